"""Contracts: the state machine of the second document (3.1) and the contract operations of 4.5.

States are ConsultaContratos' codes E, I, A, B, S, C, T. The spec leaves contract_unblock's target
open: the sandbox answers A (the contract is usable again). A temporary suspension is a record of its
own (``suspensions``): scheduled, effective (contract S) or cancelled; ``advance_time`` makes a
scheduled one effective on its start date and reactivates the contract when its days are over.
Suspending a contract that is not active answers 10.
"""

from __future__ import annotations

import base64
from datetime import date, datetime, timedelta
from typing import Any

from bot.sandbox import codes
from bot.sandbox.brazil import MUNICIPALITIES
from bot.sandbox.errors import Refusal
from bot.sandbox.params import Params
from bot.sandbox.registry import Context, customer_contract, need, operation
from bot.sandbox.rules.tickets import create_ticket
from bot.sandbox.seed import contract_record, customer_situation
from bot.sandbox.store import Record

CANCELLABLE = ("E", "I", "A", "B", "S")
ACTIVATABLE = ("E", "I", "S")


# ---- shared helpers ----------------------------------------------------------------------------
def set_state(ctx: Context, contract: Record, state: str, user: str | None = None) -> None:
    """Move a contract and keep what depends on its state coherent (customer status, sessions)."""
    contract["Situacao_Codigo"] = state
    contract["DataUltimaOperacao"] = None if state in ("A", "E", "I") else ctx.today.isoformat()
    contract["Ultima_Operacao_Usuario"] = ctx.user_name(user)
    if state in ("B", "S", "C", "T"):  # the NAS drops the sessions of a contract that may not browse
        for session in list(ctx.store.where("sessions", contract_id=contract["Numero"])):
            ctx.store.delete("sessions", session)
    refresh_customer(ctx, contract["Cliente_Codigo"])


def refresh_customer(ctx: Context, code: int) -> None:
    customer = ctx.store.find("customers", Codigo=code)
    if customer is not None:
        states = [c["Situacao_Codigo"] for c in ctx.store.where("contracts", Cliente_Codigo=code)]
        customer["Situacao"] = customer_situation(states)


def _ids(p: Params) -> tuple[int, int]:
    return p.id("customer_id"), p.id("contract_id")


def advance_time(ctx: Context) -> None:
    """Suspensions, trial plans and redials (``redial``) whose dates the clock has reached take
    effect (called per request)."""
    redial(ctx)
    today = ctx.today
    for suspension in ctx.store.rows("suspensions"):
        contract = ctx.store.find("contracts", Numero=suspension["contract_id"])
        if contract is None:
            continue
        start = date.fromisoformat(suspension["start_date"])
        if suspension["status"] == "scheduled" and start <= today and contract["Situacao_Codigo"] == "A":
            suspension["status"] = "effective"
            set_state(ctx, contract, "S", suspension["user"])
        if suspension["status"] == "effective" and start + timedelta(days=suspension["duration"]) <= today:
            suspension["status"] = "finished"
            if contract["Situacao_Codigo"] == "S":
                set_state(ctx, contract, "A", suspension["user"])
    stamp = ctx.stamp
    for trial in ctx.store.rows("temporary_plans"):
        if trial["status"] == "scheduled" and trial["start_period"] <= stamp:
            trial["status"] = "active"
        if trial["status"] == "active" and trial["finish_period"] <= stamp:
            trial["status"] = "finished"


# ---- state transitions -------------------------------------------------------------------------
def _transition(ctx: Context, p: Params, allowed: tuple[str, ...], target: str, verb: str) -> str:
    customer, number = _ids(p)
    contract = customer_contract(ctx, customer, number, 10)
    if contract["Situacao_Codigo"] not in allowed:
        raise Refusal(
            10,
            f"Status do contrato inválido para {verb}: {contract['Situacao_Codigo']} "
            f"(permitido: {', '.join(allowed)})",
        )
    if target == "A":
        for suspension in ctx.store.where("suspensions", contract_id=number, status="effective"):
            suspension["status"] = "finished"  # activating is also how an effected suspension is undone
    set_state(ctx, contract, target)
    return f"Contrato {number} {verb} com sucesso"


@operation("contract_activate")
def contract_activate(ctx: Context, p: Params) -> str:
    return _transition(ctx, p, ACTIVATABLE, "A", "ativado")


@operation("contract_block")
def contract_block(ctx: Context, p: Params) -> str:
    return _transition(ctx, p, ("A",), "B", "bloqueado")


@operation("contract_unblock")
def contract_unblock(ctx: Context, p: Params) -> str:
    return _transition(ctx, p, ("B",), "A", "desbloqueado")


@operation("contract_suspend_temporary")
def contract_suspend_temporary(ctx: Context, p: Params) -> str:
    customer, number = _ids(p)
    duration = p.integer("duration", True, minimum=1)
    start = p.req_date("start_date")
    user = p.text("user")
    ticket = p.integer("ticket_id", minimum=1)
    if start < ctx.today:
        raise p.invalid("start_date", "deve ser maior ou igual a hoje")
    if ctx.user(user, active=True) is None:
        raise p.invalid("user", "usuário ativo não encontrado")
    if ticket is not None and ctx.store.find("tickets", Numero=ticket) is None:
        raise p.invalid("ticket_id", "atendimento não encontrado")
    contract = customer_contract(ctx, customer, number, 10)
    if ctx.store.find("suspensions", contract_id=number, status="scheduled") is not None:
        raise Refusal(20, "Já existe uma suspensão temporária agendada para o contrato")
    if contract["Situacao_Codigo"] != "A":
        raise Refusal(10, f"Status do contrato inválido: {contract['Situacao_Codigo']} (permitido: A)")
    suspension = ctx.store.insert(
        "suspensions",
        {
            "id": None,
            "contract_id": number,
            "customer_id": customer,
            "start_date": start.isoformat(),
            "duration": duration,
            "user": ctx.user_name(user),
            "ticket_id": ticket,
            "status": "scheduled",
            "registered": ctx.stamp,
        },
        "id",
    )
    if start == ctx.today:
        suspension["status"] = "effective"
        set_state(ctx, contract, "S", user)
        return f"Contrato {number} suspenso por {duration} dia(s)"
    return f"Suspensão temporária agendada para {start.isoformat()}"


@operation("contract_suspend_temporary_cancel")
def contract_suspend_temporary_cancel(ctx: Context, p: Params) -> str:
    customer, number = _ids(p)
    user = p.text("user")
    if ctx.user(user, active=True) is None:
        raise p.invalid("user", "usuário ativo não encontrado")
    customer_contract(ctx, customer, number, 12)
    suspension = need(
        ctx.store.find("suspensions", contract_id=number, status="scheduled"),
        12,
        "Nenhuma suspensão temporária encontrada",
    )
    suspension["status"] = "cancelled"
    return "Suspensão temporária cancelada com sucesso"


@operation("contract_cancel")
def contract_cancel(ctx: Context, p: Params) -> str:
    customer, number = _ids(p)
    reason = p.id("reason_id")
    competitor = p.integer("cancel_competition_id", minimum=1)
    billing = p.req_group("billing")
    future_cancel = billing.boolean("future_cancel", True)
    billing.req_choice("cancellation_period_action", ("none", "cancel", "block"))
    billing.id("reason_id")
    pre_billing = p.req_group("pre_billing")
    pre_billing.boolean("cancel", True)
    pre_billing.req_choice("cancellation_period_action", ("cancel", "none"))
    fine = p.req_group("fine")
    account = fine.id("account_id")
    history = fine.id("historic_id")
    os_group = p.group("os", required=not ctx.settings.transitory_stock_location)
    open_os = os_group.boolean("open", True) if os_group is not None else False
    target_type = target_id = None
    if os_group is not None and open_os:
        target_type = os_group.req_choice("target_type", ("topic", "workflow"))
        target_id = os_group.id("target_id")
    reason_row = need(
        ctx.store.find("cancel_reasons", id=reason),
        codes.V2_INVALID_FIELD,
        "Motivo de cancelamento não encontrado",
    )
    if competitor is not None and ctx.store.find("competitors", id=competitor) is None:
        raise p.invalid("cancel_competition_id", "concorrente não encontrado")
    if ctx.store.find("accounts", id=account, natureza="R") is None:
        raise fine.invalid("account_id", "conta de natureza Recebimentos não encontrada")
    if ctx.store.find("histories", id=history, operacao="C", tipo="P") is None:
        raise fine.invalid("historic_id", "histórico de operação Crédito e tipo Prazo não encontrado")
    contract = customer_contract(ctx, customer, number, 38)
    if contract["Situacao_Codigo"] not in CANCELLABLE:
        raise Refusal(38, f"Status do contrato não permite o cancelamento: {contract['Situacao_Codigo']}")
    topic = workflow = None
    if target_type == "topic":
        topic = need(
            ctx.store.find("topics", Codigo=target_id, Situacao="A"),
            codes.V2_INVALID_FIELD,
            "Tópico não encontrado",
        )
    elif target_type == "workflow":
        workflow = need(
            ctx.store.find("workflows", Codigo=target_id, Situacao="A"),
            codes.V2_INVALID_FIELD,
            "Fluxo não encontrado",
        )
        topic = ctx.store.find("topics", Codigo=workflow.get("topico"))
    set_state(ctx, contract, "C")
    contract["Cancelamento_Motivo"] = reason_row["Nome"]
    contract["Cancelamento_Concorrencia"] = str(competitor or "")
    if future_cancel:
        for doc in ctx.store.rows("documents"):
            if (
                number in doc.get("contratos", [])
                and not doc.get("DataBaixa")
                and doc["DataVencimento"] > ctx.today.isoformat()
            ):
                doc.update(
                    {
                        "DataBaixa": ctx.today.isoformat(),
                        "Motivo": "CANC",
                        "UsuarioBaixa": ctx.key.default_user,
                        "DataHoraExecucaoBaixa": ctx.stamp,
                        "HistoricoBaixa": "Cancelamento de contrato",
                    }
                )
    message = f"Contrato {number} cancelado com sucesso"
    if topic is not None:
        ticket = create_ticket(
            ctx,
            customer=customer,
            kind=topic["Tipo"],
            topic=topic,
            workflow=workflow,
            subject="Retirada de equipamento",
            user=ctx.key.default_user,
            opened=ctx.now,
            contract=number,
        )
        message += f"; atendimento {ticket['Numero']} aberto para a retirada de equipamentos"
    return message


@operation("contract_signature")
def contract_signature(ctx: Context, p: Params) -> str:
    customer, number = _ids(p)
    update_start = p.boolean("update_start_date")
    contract = customer_contract(ctx, customer, number, codes.V2_INVALID_FIELD)
    if contract.get("Assinado") == "S":
        raise Refusal(11, "Contrato já assinado")
    contract["Assinado"] = "S"
    signed_on = contract.get("Assinatura") or ctx.today.isoformat()
    if update_start and signed_on <= ctx.today.isoformat():
        contract["Inicio"] = ctx.today.isoformat()
    return "Contrato assinado com sucesso"


def _address_group(p: Params, name: str) -> dict[str, Any] | None:
    group = p.group(name)
    if group is None:
        return None
    out: dict[str, Any] = {
        k: group.req_text(k)
        for k in ("country", "zipcode", "street", "neighborhood", "additional_details", "state", "city")
    }
    out["number"] = group.integer("number", True)
    out["maps_lat"] = group.decimal("maps_lat", True, minimum=-90, maximum=90)
    out["maps_lng"] = group.decimal("maps_lng", True, minimum=-180, maximum=180)
    if name == "installation_address":
        out["billing_address"] = group.req_choice("billing_address", ("yes", "no"))
    return out


def _apply_address(contract: Record, prefix: str, address: dict[str, Any]) -> None:
    contract.update(
        {
            prefix + "Logradouro": address["street"],
            prefix + "Numero": address["number"],
            prefix + "Complemento": address["additional_details"],
            prefix + "Bairro": address["neighborhood"],
            prefix + "Cidade": address["city"],
            prefix + "UF": address["state"],
            prefix + "CEP": address["zipcode"],
            prefix + "Pais": address["country"],
            prefix + "Latitude": address["maps_lat"],
            prefix + "Longitude": address["maps_lng"],
        }
    )


def _group_contract(p: Params, name: str, required: bool) -> str | None:
    value = p.text(name, required)
    if value is not None and value not in ("yes", "no") and not (value.isdecimal() and 1 <= int(value) <= 99):
        raise p.invalid(name, "yes, no ou 1 a 99")
    return value


def _online_signature(p: Params, required: bool) -> None:
    group = p.group("online_signature", required)
    if group is not None:
        option = group.req_choice("option", ("no", "optional", "required"))
        if option != "no" and not group.has("templates"):
            raise group.missing("templates")


@operation("contract_insert")
def contract_insert(ctx: Context, p: Params) -> dict[str, Any]:  # noqa: PLR0912, PLR0915 - a rule reads and checks each documented parameter in turn
    customer_id = p.id("customer_id")
    seller = p.req_text("seller_name")
    kind = p.req_choice("type", ("Plan", "Package"))
    plans: list[tuple[int, int, int, int | None, str | None]] = []  # plan, quantity, qos, sla, attach
    package: int | None = None
    if kind == "Plan":
        data = p.req_group("plan_data")
        plan_id = data.id("id")
        quantity = data.integer("quantity", True, minimum=1)
        attach = data.text("attach_package_id")
        qos = data.id("qos_id")
        sla = data.integer("sla_id", minimum=1)
        _group_contract(data, "group_contract", True)
        _online_signature(data, True)
        for entry in data.entries("additional_data"):
            item = data.child(entry, "additional_data")
            item.id("code")
            item.req_text("content")
        plans.append((plan_id, quantity or 1, qos, sla, attach))
    else:
        package = p.req_group("package_data").id("id")
    discount = p.decimal("discount_value", minimum=0)
    p.integer("duration", minimum=1)
    cycle = p.id("due_date_id")
    signed_on = p.req_date("signature_date")
    start = p.req_date("start_date")
    signature = p.req_choice("signature", ("yes", "no"))
    adhesion = p.group("generate_adhesion")
    if adhesion is not None:
        for entry in adhesion.entries("installments", True):
            item = adhesion.child(entry, "installments")
            item.decimal("value", True, positive=True)
            item.req_date("due_date")
        adhesion.req_choice("billet", ("single_billet", "include_in_billing"))
        adhesion.req_choice("charge", ("simple", "registered"))
        for name in ("account_id", "historic_id", "bank"):
            adhesion.id(name)
        adhesion.req_text("bank_agreement")
    installation = _address_group(p, "installation_address")
    billing = _address_group(p, "billing_address")
    customer = need(
        ctx.store.find("customers", Codigo=customer_id), codes.V2_INVALID_FIELD, "Cliente não encontrado"
    )
    if ctx.store.find("billing_cycles", id=cycle, Situacao="A") is None:
        raise p.invalid("due_date_id", "ciclo de faturamento não encontrado")
    if package is not None:
        pack = need(ctx.store.find("packages", Codigo=package), 1, "Pacote não identificado")
        plans = [(plan, 1, 1, None, None) for plan in pack["planos"]]
    for plan_id, _q, qos, _sla, attach in plans:
        if ctx.store.find("plans", Codigo=plan_id) is None:
            raise p.invalid("plan_data.id", "plano não encontrado")
        if ctx.store.find("qos", Codigo=qos) is None:
            raise p.invalid("plan_data.qos_id", "QoS não encontrado")
        if attach is not None and (
            not attach.isdecimal() or ctx.store.find("packages", Codigo=int(attach)) is None
        ):
            raise Refusal(1, "Pacote não identificado")
    created = []
    for plan_id, quantity, qos, sla, attach in plans:
        number = ctx.store.next_id("contracts", "Numero", start=5001)
        record = contract_record(
            number,
            customer,
            plan_id,
            "E",
            start,
            cycle=cycle,
            discount=discount or 0.0,
            qos=qos,
            sla=sla or 1,
            package=package or (int(attach) if attach else None),
        )
        record.update(
            {
                "Assinatura": signed_on.isoformat(),
                "Assinado": "S" if signature == "yes" else "N",
                "Vendedor": seller,
                "quantidade": quantity,
            }
        )
        if installation is not None:
            _apply_address(record, "EnderecoInstalacao_", installation)
            record["EnderecoInstalacao_UsadoParaCobranca"] = (
                "S" if installation["billing_address"] == "yes" else "N"
            )
            if installation["billing_address"] == "yes":
                _apply_address(record, "EnderecoCobranca_", installation)
        if billing is not None:
            _apply_address(record, "EnderecoCobranca_", billing)
        ctx.store.insert("contracts", record)
        created.append({"id": number, "plan": plan_id})
    refresh_customer(ctx, customer_id)
    return {"new_contracts": created}


@operation("contract_update")
def contract_update(ctx: Context, p: Params) -> str:  # noqa: PLR0912 - a rule reads and checks each documented parameter in turn
    customer, number = _ids(p)
    changes: dict[str, Any] = {}
    for name, field in (
        ("quantity", "quantidade"),
        ("sla_id", "sla_id"),
        ("qos_id", "qos_id"),
        ("bank_billing", "banco"),
        ("due_date_id", "ciclo"),
    ):
        value = p.integer(name, minimum=1)
        if value is not None:
            changes[field] = value
    for name, field in (("adhesion_value", "Adesao_Valor"), ("discount_value", "DescontoFixo")):
        amount = p.decimal(name, minimum=0)
        if amount is not None:
            changes[field] = amount
    for name, field in (("signature_date", "Assinatura"), ("start_date", "Inicio")):
        day = p.day(name)
        if day is not None:
            changes[field] = day.isoformat()
    for name, field in (("bank_agreement", "convenio"), ("text", "texto"), ("seller_name", "Vendedor")):
        text = p.text(name)
        if text is not None:
            changes[field] = text
    group = _group_contract(p, "group_contract", False)
    if group is not None:
        changes["Agrupamento"] = {"yes": "S", "no": "N"}.get(group, group)
    signature = p.boolean("signature")
    if signature is not None:
        changes["Assinado"] = "S" if signature else "N"
    _online_signature(p, False)
    if ctx.store.find("customers", Codigo=customer) is None:
        raise Refusal(26, "Cliente não encontrado")
    contract = customer_contract(ctx, customer, number, codes.V2_INVALID_FIELD)
    if "ciclo" in changes:
        cycle = need(
            ctx.store.find("billing_cycles", id=changes["ciclo"]),
            codes.V2_INVALID_FIELD,
            "Ciclo de faturamento não encontrado",
        )
        changes.update(
            {"CicloFaturamento_DiaBase": cycle["Dia"], "CicloFaturamento_Vencimento": cycle["Vencimento"]}
        )
    if "sla_id" in changes:
        changes["SLA"] = need(
            ctx.store.find("sla_groups", Codigo=changes["sla_id"]),
            codes.V2_INVALID_FIELD,
            "SLA não encontrado",
        )["Descricao"]
    if "qos_id" in changes:
        changes["QoS"] = need(
            ctx.store.find("qos", Codigo=changes["qos_id"]), codes.V2_INVALID_FIELD, "QoS não encontrado"
        )["Descricao"]
    contract.update(changes)
    contract["ValorLiquido"] = round(contract["ValorBruto"] - contract["DescontoFixo"], 2)
    return "Contrato alterado com sucesso"


@operation("promotional_contract_discount_update")
def promotional_contract_discount_update(ctx: Context, p: Params) -> str:
    customer = p.id("customer")
    number = p.id("contract_number")
    period = p.integer("discount_period", True, minimum=1)
    value = p.decimal("discount_value", True, positive=True)
    text = p.text("discount_description")
    contract = customer_contract(ctx, customer, number, 12)
    if value is not None and value > contract["ValorLiquido"]:
        raise Refusal(21, "Desconto maior que o valor do contrato")
    contract.update(
        {
            "DescontoPromocional_Valor": value,
            "DescontoPromocional_Prazo": period,
            "DescontoPromocional_Descricao": text or "",
        }
    )
    return "Desconto promocional alterado com sucesso"


@operation("promotional_contract_discount_delete")
def promotional_contract_discount_delete(ctx: Context, p: Params) -> str:
    contract = customer_contract(ctx, p.id("customer"), p.id("contract_number"), 12)
    contract.update(
        {
            "DescontoPromocional_Valor": 0.0,
            "DescontoPromocional_Prazo": 0,
            "DescontoPromocional_Descricao": "",
        }
    )
    return "Desconto promocional removido com sucesso"


@operation("contract_generate_html", writes=False)
def contract_generate_html(ctx: Context, p: Params) -> list[dict[str, Any]]:
    customer, number = _ids(p)
    p.choice("type", ("hiring", "cancellation"))
    models = p.entries("contract_model_id")
    link = p.boolean("generate_link", True)
    p.boolean("resend_clicksign_contract")
    contract = customer_contract(ctx, customer, number, 14)
    chosen = [str(m) for m in models] or str(contract.get("Modelos_Contrato") or "1").split(",")
    out = []
    for model in chosen:
        html = (
            f"<html><body><h1>Contrato {number}</h1><p>Plano {contract['Plano_Descricao']}, valor "
            f"R$ {contract['ValorLiquido']:.2f}</p><p>Modelo {model}</p></body></html>"
        )
        out.append(
            {
                "contract_model_id": model,
                "contract_model_html": base64.b64encode(html.encode()).decode(),
                "contract_link_download": f"https://erp.provedor.example.com.br/contratos/{number}-{model}.pdf"
                if link
                else "",
            }
        )
    return out


@operation("contract_address")
def contract_address(ctx: Context, p: Params) -> str:
    customer = p.id("customer_id")
    number = p.integer("contract_id", minimum=1)
    package = p.text("package_id", number is None)
    kind = p.choice("type", ("installation", "billing")) or "installation"
    p.choice("dici_type", ("urban", "rural"))
    also_billing = p.boolean("billing")
    address: dict[str, Any] = {
        "street": p.req_text("address"),
        "number": p.integer("number", True),
        "neighborhood": p.req_text("neighborhood"),
        "additional_details": p.text("complement") or "",
        "city_id": p.id("city_id"),
        "state": p.req_text("state"),
        "zipcode": p.digits("zip_code", True),
        "country": "Brasil",
    }
    coords = p.coordinates()
    if address["city_id"] not in MUNICIPALITIES:
        raise p.invalid("city_id", "município não encontrado")
    address["city"] = MUNICIPALITIES[address["city_id"]][0]
    address["maps_lat"], address["maps_lng"] = coords or (None, None)
    if number is not None:
        targets = [customer_contract(ctx, customer, number, 27)]
    else:
        targets = [
            c
            for c in ctx.store.where("contracts", Cliente_Codigo=customer)
            if str(c.get("Pacote_PacoteID")) == package
        ]
        if not targets:
            raise Refusal(27, "Contrato não existe ou não pertence ao cliente")
    for contract in targets:
        prefixes = ["EnderecoInstalacao_" if kind == "installation" else "EnderecoCobranca_"]
        if kind == "installation" and also_billing:
            prefixes.append("EnderecoCobranca_")
        for prefix in prefixes:
            _apply_address(contract, prefix, address)
            contract[prefix + "LocalidadeId"] = address["city_id"]
    return "Endereço alterado com sucesso"


@operation("reasons_for_transfer", writes=False)
def reasons_for_transfer(ctx: Context, p: Params) -> list[dict[str, Any]]:
    return [dict(r) for r in ctx.store.rows("transfer_reasons")]


def _transfer_target(p: Params, kind: str) -> Params:
    data = p.req_group("plan_data" if kind == "plan" else "package_data")
    data.req_text("id")
    data.req_text("due_date_id")
    data.decimal("discount_vale", minimum=0)
    data.integer("duration", True, minimum=1)
    data.req_choice("promotional_discount_option", ("keep", "new", "cancel"))
    billing = data.req_group("billing")
    keep = billing.boolean("keep", True)
    future = billing.boolean("future_cancel") if not keep else None
    if future:
        billing.choice("cancellation_period_action", ("none", "cancel", "block"))
    if kind == "plan":
        data.choice("status", ("A", "B", "E", "I", "S"))
        data.req_text("qos_id")
        data.req_text("sla_id")
        signature = data.req_group("online_signature")
        signature.req_choice("option", ("no", "optional", "required"))
        signature.req_text("templates")
    else:
        for entry in data.entries("plan_correlation", True):
            item = data.child(entry, "plan_correlation")
            item.req_text("contract_id")
            item.req_text("new_plan_id")
    return data


@operation("contract_transfer")
def contract_transfer(ctx: Context, p: Params) -> dict[str, Any]:
    customer, number = _ids(p)
    scope = p.req_choice("type", ("plan", "package"))
    user = p.text("user")
    new = p.req_group("new")
    seller = new.text("seller_name")
    new_kind = new.req_choice("type", ("plan", "package"))
    data = _transfer_target(new, new_kind)
    fine = p.req_group("fine")
    fine.req_text("account_id")
    fine.req_text("historic_id")
    fine.day("due_date")
    reason = p.integer("reason_id", minimum=1)
    if reason is not None and ctx.store.find("transfer_reasons", id=reason) is None:
        raise p.invalid("reason_id", "motivo de transferência não encontrado")
    source = customer_contract(ctx, customer, number, 10)
    if source["Inicio"] > ctx.today.isoformat():
        raise Refusal(10, "Data de início do contrato é maior que a data atual")
    if source["Situacao_Codigo"] in ("C", "T"):
        raise Refusal(10, f"Status do contrato não permite a transferência: {source['Situacao_Codigo']}")
    sources = (
        [source]
        if scope == "plan" or not source.get("Pacote_PacoteID")
        else [
            c
            for c in ctx.store.where("contracts", Cliente_Codigo=customer)
            if c.get("Pacote_PacoteID") == source["Pacote_PacoteID"]
            and c["Situacao_Codigo"] not in ("C", "T")
        ]
    )
    if new_kind == "plan":
        plan_text = data.req_text("id")
        if not plan_text.isdecimal() or ctx.store.find("plans", Codigo=int(plan_text)) is None:
            raise data.invalid("id", "plano não encontrado")
        targets = [int(plan_text)]
    else:
        package_text = data.req_text("id")
        pack = ctx.store.find("packages", Codigo=int(package_text)) if package_text.isdecimal() else None
        if pack is None:
            raise data.invalid("id", "pacote não encontrado")
        targets = list(pack["planos"])
    owner = need(ctx.store.find("customers", Codigo=customer), 10, "Cliente não encontrado")
    new_numbers = []
    for plan in targets:
        new_number = ctx.store.next_id("contracts", "Numero", start=5001)
        record = contract_record(
            new_number,
            owner,
            plan,
            data.choice("status", ("A", "B", "E", "I", "S")) or source["Situacao_Codigo"],
            ctx.today,
            cycle=source.get("ciclo", 1),
        )
        record["Vendedor"] = seller or source.get("Vendedor", "")
        ctx.store.insert("contracts", record)
        new_numbers.append(new_number)
    for old in sources:
        set_state(ctx, old, "T", user)
    return {
        "new_contracts": new_numbers,
        "package_id": None,
        "messages": [f"Contrato {old['Numero']} transferido" for old in sources],
    }


def redial(ctx: Context) -> None:
    """Sessions dropped by ``disconnect_online_customer`` (``network``) whose equipment dials in again
    now that their time has come."""
    for pending in list(ctx.store.rows("redials")):
        if pending["due"] > ctx.stamp:
            continue
        ctx.store.delete("redials", pending)
        contract = ctx.store.find("contracts", Numero=pending["contract_id"])
        if contract is None or contract["Situacao_Codigo"] != "A":
            continue
        session = {k: v for k, v in pending.items() if k != "due"}
        start = datetime.strptime(pending["due"], "%Y-%m-%d %H:%M:%S")
        session.update(
            session_id=f"{int(start.timestamp()):x}{pending['contract_id']:06x}",
            session_start_time=pending["due"],
            session_up_time="00:00:00",
            input_octets=0,
            output_octets=0,
        )
        ctx.store.insert("sessions", session)
