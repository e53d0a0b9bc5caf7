"""Envelopes, quirks, keys, permissions and environments, over raw HTTP."""

from __future__ import annotations

from typing import Any

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import HOMOLOGATION_KEY, INACTIVE_KEY, RESTRICTED_KEY, FixedClock, Sandbox

from tests.sandbox.conftest import V1_PATH, V2_PATH, Api, fail2, ok2


async def test_v1_query_answers_every_scalar_as_a_string(api: Api) -> None:
    answer = await api.query("ConsultaContratos", f"Numero = {D.contract}")
    assert answer["status"] == 1 and answer["erro_code"] == ""
    assert answer["erro_inf"] == answer["erro_desc"] == answer["erro_detail"] == ""
    (contract,) = answer["result"]
    assert all(isinstance(value, str) for value in contract.values())
    assert contract["ValorBruto"] == "99.90" and contract["Situacao_Codigo"] == "A"
    assert contract["Cliente_CPF_CNPJ"] == D.customer_cpf
    assert contract["EnderecoInstalacao_Latitude"].startswith("-23.")


async def test_v1_query_without_rows_is_failure_code_1(api: Api) -> None:
    answer = await api.query("ConsultaClientes", "Codigo = 999999")
    assert answer == {
        "status": 0,
        "erro_code": 1,
        "erro_inf": "",
        "erro_desc": answer["erro_desc"],
        "erro_detail": "",
        "result": "",
    }


async def test_invalid_or_inactive_key_answers_97(api: Api) -> None:
    for key in ("no-such-key", INACTIVE_KEY):
        answer = await api.query("ConsultaPlanos", key=key)
        assert answer["status"] == 0 and answer["erro_code"] == 97 and answer["result"] == ""
        assert "inválida ou inativa" in answer["erro_detail"]
        fail2(await api.v2("get_tickets_mode", key=key), 97)
    fail2(await api.v2("get_tickets_mode", key=None), 97)


async def test_operation_not_permitted_for_the_key_is_refused(api: Api) -> None:
    assert (await api.query("ConsultaClientes", f"Codigo = {D.customer}", key=RESTRICTED_KEY))["status"] == 1
    answer = await api.query("ConsultaAutenticacaoSenha", key=RESTRICTED_KEY)
    assert answer["status"] == 0 and answer["erro_code"] == 96
    fail2(await api.v2("ticket_update", {"ticket_id": D.ticket}, key=RESTRICTED_KEY), 96)


async def test_body_must_have_one_root_key_and_a_known_operation(api: Api, sb: Sandbox) -> None:
    two: dict[str, object] = {"ConsultaPlanos": {}, "ConsultaQoS": {}}
    assert (await api.http.post(V1_PATH, json=two)).json()["erro_code"] == 95
    assert (await api.http.post(V2_PATH, content=b"not json", headers={"authentication_key": "x"})).json()[
        "error_code"
    ] == 95
    answer = await api.v1("ConsultaNadaDisso")
    assert answer["status"] == 0 and answer["erro_code"] == 99 and answer["result"] == ""
    fail2(await api.v2("no_such_operation"), 99)
    fail2(await api.v2("ConsultaPlanos"), 99)  # a 1.0 name on the 2.0 path


async def test_v2_quirks_bare_mvno_and_string_status(api: Api) -> None:
    balance = await api.v2("mvno_get_simcard_balance", {"customer_id": D.customer, "contract_line_id": 1})
    assert set(balance) == {"balance"}
    recharge = await api.v2(
        "mvno_insert_recharge", {"customer_id": D.customer, "contract_line_id": 1, "recharge_id": 2}
    )
    purchase = recharge["recharge_purchase"]
    assert purchase["value"] == 20 and purchase["due_date"] == "10/03/2025"
    # The purchase's banking_billet_id is a bill the finance group knows (third document, Identifiers).
    pix = ok2(await api.v2("get_pix_copia_cola", {"banking_billet_id": purchase["banking_billet_id"]}))
    assert pix == purchase["pix"] and "540520.00" in pix
    line = ok2(await api.v2("get_barcode", {"banking_billet_id": purchase["banking_billet_id"]}))
    assert line.replace(".", "").replace(" ", "") == purchase["barcode"]
    fail2(await api.v2("mvno_get_simcard_balance", {"customer_id": D.customer, "contract_line_id": 99}), 13)
    subscriber = ok2(await api.v2("mvno_get_customer", {"customer_id": D.customer}))["subscriber"]
    assert subscriber[0]["contract_line"]["contract_id"] == D.contract

    ip = {
        "customer_id": D.customer,
        "contract_id": D.contract,
        "ipv4": {"ip_address": "200.200.10.5", "mask": "255.255.255.252", "gateway": "200.200.10.6"},
    }
    first = await api.v2("ip_insert", ip)
    assert first["status"] == "1" and isinstance(first["result"]["ip_id"], int)
    again = await api.v2("ip_insert", ip)
    assert again == {
        "status": "0",
        "error_code": 16,
        "error_description": again["error_description"],
        "result": {"ip_id": ""},
    }


async def test_disconnect_without_a_matching_session_still_succeeds(api: Api) -> None:
    answer = await api.v2(
        "disconnect_online_customer",
        {"customer_id": D.customer, "server_id": 1, "nas_ip_address": "10.9.9.9", "session_id": "nope"},
    )
    assert answer["status"] == 1 and "Nenhuma conexão" in answer["result"]
    (session,) = ok2(await api.v2("get_online_customer", {"customer_id": D.customer}))
    done = await api.v2(
        "disconnect_online_customer",
        {
            "customer_id": D.customer,
            "server_id": 1,
            "nas_ip_address": session["nas_ip_address"],
            "session_id": session["session_id"],
        },
    )
    assert "desconectado" in ok2(done)
    assert ok2(await api.v2("get_online_customer", {"customer_id": D.customer})) == []


async def test_homologation_validates_for_real_and_persists_nothing(api: Api, sb: Sandbox) -> None:
    before = sb.export()
    opened = await api.v1(
        "AtendimentoCadastro",
        {
            "DadosAtendimento": {
                "Data_Abertura": "2025-03-10",
                "Hora_Abertura": "09:00:00",
                "Iniciativa": "C",
                "Modo": "7",
                "TipoCliente": "C",
                "Cliente": D.customer,
                "Assunto": "Teste",
            }
        },
        key=HOMOLOGATION_KEY,
    )
    assert opened["status"] == 1 and opened["result"]["NumeroAtendimento"]
    blocked = await api.v2(
        "contract_block", {"customer_id": D.customer, "contract_id": D.contract}, key=HOMOLOGATION_KEY
    )
    assert ok2(blocked)
    # Validation and state rules still run: the blocked contract cannot be blocked again.
    fail2(
        await api.v2(
            "contract_block",
            {"customer_id": D.blocked_customer, "contract_id": D.blocked_contract},
            key=HOMOLOGATION_KEY,
        ),
        10,
    )
    fail2(await api.v2("ticket_update", {"ticket_id": D.ticket, "priority": 100}, key=HOMOLOGATION_KEY), 1)
    assert sb.export() == before


async def test_v2_failure_of_ticket_finish_keeps_its_result_shape(api: Api) -> None:
    answer = await api.v2(
        "ticket_finish", {"ticket_id": D.ticket, "cause_id": 1, "solution": "x", "user": "ninguem"}
    )
    assert answer == {
        "status": 0,
        "error_code": 7,
        "error_description": answer["error_description"],
        "result": {"messages": [], "new_tickets": []},
    }


async def test_a_disconnected_session_dials_in_again_unless_the_equipment_is_dead(
    api: Api, sb: Sandbox, clock: FixedClock
) -> None:
    async def drop() -> dict[str, Any]:
        (session,) = ok2(await api.v2("get_online_customer", {"customer_id": D.customer}))
        ok2(await api.v2("disconnect_online_customer", {
            "customer_id": D.customer, "server_id": int(session["server"]),
            "nas_ip_address": session["nas_ip_address"], "session_id": session["session_id"],
        }))
        return dict(session)

    before = await drop()
    clock.advance(seconds=sb.settings.redial_seconds - 1)
    assert ok2(await api.v2("get_online_customer", {"customer_id": D.customer})) == []
    clock.advance(seconds=1)
    (again,) = ok2(await api.v2("get_online_customer", {"customer_id": D.customer}))
    assert again["session_id"] != before["session_id"] and again["session_up_time"] == "00:00:00"
    sb.settings.redials = False
    await drop()
    clock.advance(minutes=5)
    assert ok2(await api.v2("get_online_customer", {"customer_id": D.customer})) == []
