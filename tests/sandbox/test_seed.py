"""The seeded data set: deterministic, valid Brazilian identifiers, every state, fixtures round trip."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox
from bot.sandbox.brazil import valid_cnpj, valid_cpf
from bot.sandbox.seed import generate
from bot.sandbox.store import Store

from tests.sandbox.conftest import Api

DAY = date(2025, 3, 10)


def test_same_seed_same_day_same_records_and_another_seed_differs() -> None:
    first = json.dumps(generate(7, DAY).export(), sort_keys=True)
    assert first == json.dumps(generate(7, DAY).export(), sort_keys=True)
    assert first != json.dumps(generate(8, DAY).export(), sort_keys=True)


def test_records_are_realistic(sb: Sandbox) -> None:
    customers = sb.store.rows("customers")
    assert 250 <= len(customers) <= 400
    for customer in customers:
        tax = customer["CNPJ_CNPF"]
        assert valid_cpf(tax) if customer["Tipo"] == "F" else valid_cnpj(tax), customer["Codigo"]
        assert re.fullmatch(r"11 ?9\d{8}", customer["TelCelular"]), customer["TelCelular"]
        assert re.fullmatch(r"\d{8}", customer["CEP"]) and customer["UF"] == "SP" and customer["Cidade"]
    assert {c["Situacao_Codigo"] for c in sb.store.rows("contracts")} == set("EIABSCT")
    assert {t["Tipo"] for t in sb.store.rows("tickets")} == set("ACT")
    assert any(t["Central"] == "S" for t in sb.store.rows("topics"))
    assert {u["Situacao"] for u in sb.store.rows("users") if u["tecnico"]} == set("ABI")
    assert {f["Status"] for f in sb.store.rows("failover")} == {"O", "C"}
    assert {n["online"] for n in sb.store.rows("nas")} == {True, False}
    assert any(m["description"] == "Telegram" for m in sb.store.rows("ticket_modes"))
    lines = [d["linha_digitavel"] for d in sb.store.rows("documents")]
    assert all(re.fullmatch(r"\d{47}", line) for line in lines)


async def test_a_company_with_an_alphanumeric_cnpj_is_found_by_it(api: Api) -> None:
    assert valid_cnpj(D.alnum_company_cnpj) and not D.alnum_company_cnpj.isdigit()
    (customer,) = await api.rows("ConsultaClientes", f"CNPJ_CNPF = '{D.alnum_company_cnpj}'")
    assert customer["Codigo"] == str(D.alnum_company) and customer["Tipo"] == "J"
    (contract,) = await api.rows("ConsultaContratos", f"Cliente_CPF_CNPJ = '{D.alnum_company_cnpj}'")
    assert contract["Numero"] == str(D.alnum_company_contract)


async def test_demo_identities(api: Api) -> None:
    (customer,) = await api.rows("ConsultaClientes", f"CNPJ_CNPF = '{D.customer_cpf}'")
    assert customer["Codigo"] == str(D.customer) and customer["TelCelular"] == D.customer_mobile
    (contract,) = await api.rows("ConsultaContratos", f"Cliente_Codigo = {D.customer}")
    assert contract["Numero"] == str(D.contract) and contract["Plano_Descricao"] == D.plan
    docs = await api.rows("ConsultaDocumentosAbertos", f"Cliente = {D.customer}")
    assert [d["Sequencia"] for d in docs] == [str(D.overdue_document), str(D.open_document)]
    assert docs[0]["Vencimento"] < "2025-03-10" <= docs[1]["Vencimento"]
    line = await api.v1(
        "ConsultaLinhaDigitavelBoleto",
        {"DadosLinhaDigitavelEntrada": {"CliFor": D.customer, "Documento": docs[1]["Documento"]}},
    )
    assert re.fullmatch(r"\d{47}", line["result"][0]["LinhaDigitavel"])
    missing = await api.v1("ConsultaLinhaDigitavelBoleto", {"DadosLinhaDigitavelEntrada": {"CliFor": 424242}})
    assert missing["status"] == 0 and missing["erro_code"] == 1
    (ticket,) = await api.rows("ConsultaAtendimentos", f"Numero = {D.ticket}")
    assert (
        ticket["Tipo"] == "T"
        and ticket["Designacao_Usuario"] == D.technician
        and not ticket["Encerramento_DataHora"]
    )
    (blocked,) = await api.rows("ConsultaContratos", f"Numero = {D.blocked_contract}")
    assert blocked["Situacao_Codigo"] == "B" and blocked["Cliente_CPF_CNPJ"] == D.blocked_customer_cpf
    company = await api.rows("ConsultaContratos", f"Cliente_CPF_CNPJ = '{D.company_cnpj}'")
    assert sorted(int(c["Numero"]) for c in company) == list(D.company_contracts)
    assert any(
        str(D.customer) in e["AffectedCustomers"] for e in await api.rows("FailOverEvents", "Status = 'O'")
    )


def test_export_then_load_serves_the_same_records(sb: Sandbox, tmp_path: Path, clock: FixedClock) -> None:
    sb.v2("ticket_update", {"ticket_id": D.ticket, "priority": 9})
    path = tmp_path / "mine.json"
    sb.save(path)
    again = Sandbox.from_file(path, clock=clock)
    assert again.export() == sb.export()
    assert again.v1("ConsultaClientes", {"Filtro": f"Codigo = {D.customer}"})["status"] == 1


def test_an_operators_own_yaml_fixture(tmp_path: Path, clock: FixedClock) -> None:
    customer = next(
        c for c in Sandbox.seeded(clock=clock).store.rows("customers") if c["Codigo"] == D.company
    )
    path = tmp_path / "isp.yaml"
    Sandbox(Store({"customers": [{**customer, "Nome": "Provedor Próprio Ltda"}]})).save(path)
    mine = Sandbox.from_file(path, clock=clock)
    (row,) = mine.v1("ConsultaClientes", {"Filtro": "Nome LIKE '%próprio%'"})["result"]
    assert row["Codigo"] == str(D.company)
    assert mine.v1("ConsultaContratos")["erro_code"] == 1  # nothing else was loaded
