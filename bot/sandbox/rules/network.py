"""Online sessions, equipment, additional data, the virtual collector and the MVNO integration
(second document, 4.3 and 4.4).

A session dropped by disconnect_online_customer comes back as a new one (new id, start time) once
``Settings.redial_seconds`` have passed on the sandbox's clock, as a router dials in again, while its
contract is still active; with ``Settings.redials`` off it never does (``contracts.redial`` runs per request).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bot.sandbox.errors import Refusal
from bot.sandbox.params import Params
from bot.sandbox.registry import Context, need, operation
from bot.sandbox.rules.billing import pix_of
from bot.sandbox.seed import document_record
from bot.sandbox.store import Record

_SESSION_FIELDS = (
    "session_id",
    "customer_id",
    "customer_name",
    "contract_id",
    "plan_id",
    "plan_description",
    "authentication_username",
    "framed_ipv4_address",
    "framed_ipv6_address",
    "delegated_ipv6_prefix",
    "session_start_time",
    "session_up_time",
    "nas_port_id",
    "calling_station_id",
    "input_octets",
    "output_octets",
    "server",
    "nas_ip_address",
)


@operation("get_online_customer", writes=False)
def get_online_customer(ctx: Context, p: Params) -> list[dict[str, Any]]:
    customer = p.integer("customer_id")
    if customer is not None and ctx.store.find("customers", Codigo=customer) is None:
        raise Refusal(3, "customer_id inválido")
    name = p.text("customer_name")
    exact = {
        k: v
        for k, v in (
            ("customer_id", customer),
            ("contract_id", p.integer("contract_id")),
            ("plan_id", p.integer("plan_id")),
            ("framed_ipv4_address", p.text("framed_ipv4_address")),
            ("authentication_username", p.text("authentication_username")),
        )
        if v is not None
    }
    since = p.moment("session_start_time")

    def keep(row: Record) -> bool:
        return (name is None or name.casefold() in row["customer_name"].casefold()) and (
            since is None or row["session_start_time"] >= since.strftime("%Y-%m-%d %H:%M:%S")
        )

    return [{f: row.get(f) for f in _SESSION_FIELDS} for row in ctx.store.where("sessions", keep, **exact)]


@operation("disconnect_online_customer")
def disconnect_online_customer(ctx: Context, p: Params) -> str:
    customer = p.id("customer_id")
    server = p.id("server_id")
    nas = p.req_text("nas_ip_address")
    session_id = p.req_text("session_id")
    session = ctx.store.find(
        "sessions", customer_id=customer, server_id=server, nas_ip_address=nas, session_id=session_id
    )
    if session is None:
        return "Nenhuma conexão ativa encontrada para os dados informados"
    ctx.store.delete("sessions", session)
    if ctx.settings.redials:
        due = ctx.now + timedelta(seconds=ctx.settings.redial_seconds)
        ctx.store.insert("redials", {**session, "due": due.strftime("%Y-%m-%d %H:%M:%S")})
    return "Cliente desconectado com sucesso"


@operation("virtual_collector_costumer_list", writes=False)
def virtual_collector_costumer_list(ctx: Context, p: Params) -> list[dict[str, Any]]:
    rules = []
    for index, raw in enumerate(p.entries("regra", True)):
        if isinstance(raw, bool) or not str(raw).isdecimal():
            raise p.invalid(f"regra[{index}]", "código de regra numérico")
        rules.append(need(ctx.store.find("reduction_rules", Regra=int(raw)), 8, f"Regra {raw} não existe"))
    out = []
    for rule in rules:
        customers = []
        for number in rule.get("contratos", []):
            contract = ctx.store.find("contracts", Numero=number)
            person = ctx.store.find("customers", Codigo=contract["Cliente_Codigo"]) if contract else None
            if contract is None or person is None:
                continue
            customers.append(
                {
                    **{
                        k: person.get(k)
                        for k in (
                            "Codigo",
                            "Nome",
                            "Endereco",
                            "Numero",
                            "Bairro",
                            "Complemento",
                            "Distrito",
                            "Cidade",
                            "UF",
                            "TelComercial",
                            "TelResidencial",
                            "TelCelular",
                            "Bloqueavel",
                        )
                    },
                    "Acessos": sum(1 for _ in ctx.store.where("authentications", Contrato=number)),
                    "ContratoNumero": number,
                    "Contrato": f"{number} - {contract['Plano_Descricao']}",
                }
            )
        out.append(
            {
                "Regra": rule["Regra"],
                "Prioridade": rule["Prioridade"],
                "Atraso_Max": rule["Atraso_Max"],
                "Atraso_Min": rule["Atraso_Min"],
                "Clientes": customers,
            }
        )
    return out


_ADDITIONAL_TABLES = {"customer_market": "Clientes", "contracts": "Contratos", "services": "Atendimentos"}


@operation("consult_additional_data", writes=False)
def consult_additional_data(ctx: Context, p: Params) -> list[dict[str, Any]]:
    kinds = p.entries("type", True)
    for kind in kinds:
        if kind not in _ADDITIONAL_TABLES:
            raise Refusal(4, f"type inválido: {kind}")
    tables = {_ADDITIONAL_TABLES[k] for k in kinds}
    names = {d["Codigo"]: d["Nome"] for d in ctx.store.rows("additional_data")}
    out = []
    for value in ctx.store.rows("additional_values"):
        if value["Tabela"] in tables:
            out.append(
                {
                    "id": value["Id"],
                    "table": value["Tabela"],
                    "complement": names.get(value["Codigo"], ""),
                    "complement_value": value["Valor"],
                    "market_id": None,
                    "customer": value["Chave"] if value["Tabela"] == "Clientes" else None,
                }
            )
    return out


_EQUIPMENT_FIELDS = (
    "id",
    "customer_id",
    "customer_name",
    "contract_id",
    "source",
    "serial",
    "product_code",
    "activate_date",
    "deactivation_date",
    "deactivation_reason",
    "quantity",
    "unit_price",
    "total_price",
    "controller_ip",
    "controller_port",
    "status",
    "additional_data",
)


@operation("get_equipment_customer", writes=False)
def get_equipment_customer(ctx: Context, p: Params) -> list[dict[str, Any]]:
    customer = p.integer("customer_id", minimum=1)
    status = p.text("equipment_status")
    if status is not None and status not in ("active", "inactive"):
        raise Refusal(8, "equipment_status inválido")
    pairs = (("customer_id", customer), ("status", status))
    match: dict[str, Any] = {k: v for k, v in pairs if v is not None}
    return [{f: row.get(f) for f in _EQUIPMENT_FIELDS} for row in ctx.store.where("equipment", **match)]


# ---- MVNO: bare objects on success -------------------------------------------------------------
def _line(ctx: Context, p: Params) -> Record:
    customer = p.id("customer_id")
    line = p.id("contract_line_id")
    return need(
        ctx.store.find("mvno_lines", id=line, customer_id=customer), 13, "Linha de contrato não identificada"
    )


@operation("mvno_get_customer", writes=False)
def mvno_get_customer(ctx: Context, p: Params) -> dict[str, Any]:
    customer = p.id("customer_id")
    lines = list(ctx.store.where("mvno_lines", customer_id=customer))
    if not lines:
        raise Refusal(8, "Cliente não identificado")
    return {
        "subscriber": [
            {
                "id": line["id"],
                "mvno_customer_code": line["mvno_customer_code"],
                "mvno_person_type": line["mvno_person_type"],
                "mvno_person_name": line["mvno_person_name"],
                "mvno_document_number": line["mvno_document_number"],
                "insert_date": line["insert_date"],
                "contract_line": {
                    "id": line["id"],
                    "contract_id": line["contract_id"],
                    "mvno_contract_code": line["mvno_contract_code"],
                    "mvno_plan_code": line["mvno_plan_code"],
                    "iccid": line["iccid"],
                    "msisdn": line["msisdn"],
                    "status": line["status"],
                    "insert_date": line["insert_date"],
                    "last_update": line["insert_date"],
                    "portability": [],
                    "recharge_avaliable": [
                        {"id": i + 1, "value": v} for i, v in enumerate(line["recharges"])
                    ],
                },
                "recharge_purchase": list(line.get("purchases", [])),
            }
            for line in lines
        ]
    }


@operation("mvno_get_simcard_balance", writes=False, bare=True)
def mvno_get_simcard_balance(ctx: Context, p: Params) -> dict[str, Any]:
    return {"balance": _line(ctx, p)["balance"]}


@operation("mvno_insert_recharge", bare=True)
def mvno_insert_recharge(ctx: Context, p: Params) -> dict[str, Any]:
    recharge = p.id("recharge_id")
    line = _line(ctx, p)
    if not 1 <= recharge <= len(line["recharges"]):
        raise p.invalid("recharge_id", "recarga não disponível para a linha")
    value = line["recharges"][recharge - 1]
    purchase_id = len(line.setdefault("purchases", [])) + 1
    # The purchase is a bill like any other: the finance group's operations take its banking_billet_id.
    customer = need(ctx.store.find("customers", Codigo=line["customer_id"]), 13, "Cliente não encontrado")
    number = ctx.store.next_id("documents", "Sequencia")
    doc = document_record(number, customer, [line["contract_id"]], ctx.today, float(value), paid_on=None, origin="VEN")
    doc.update(Historico="Recarga", Complemento=f"Recarga de celular {value}", DataLancamento=ctx.today.isoformat())
    ctx.store.insert("documents", doc)
    purchase = {
        "id": purchase_id,
        "banking_billet_id": number,
        "value": value,
        "due_date": ctx.today.strftime("%d/%m/%Y"),
        "barcode": doc["linha_digitavel"],
        "pix": pix_of(ctx, doc),
    }
    line["purchases"].append(purchase)
    return {"recharge_purchase": purchase}
