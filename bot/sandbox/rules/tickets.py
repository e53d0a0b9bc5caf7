"""Tickets: opening (1.0 AtendimentoCadastro), status, service orders, appointments, checklist,
occurrences, assignment, closing, satisfaction survey and the chat mirror (second document, 3.3 and 4.1).

Service-order moves follow ``OS_TRANSITIONS`` (the spec shows only that some state allows
on_the_way, aborted and completed: that is ``in_queue`` here); any other move answers error 15
listing the allowed targets (a move on a closed ticket answers 15 too). ticket_update and ticket_finish
on a closed ticket answer 13; ticket_finish's failure keeps the shape ``{messages: [], new_tickets: []}``.
AtendimentoCadastro's SLA is the deadline (opening + SLA hours, SLA_Tipo "Horas"), and
Situacao_Agendamento uses the 2.0 words (``APPOINTMENT_STATUSES``).
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from typing import Any

from bot.sandbox import codes
from bot.sandbox.errors import Refusal
from bot.sandbox.params import Params
from bot.sandbox.registry import V1, Context, is_closed, need, operation
from bot.sandbox.store import Record

OS_CODES = {
    "in_queue": "F",
    "on_the_way": "A",
    "running": "E",
    "paused": "P",
    "completed": "C",
    "aborted": "B",
}
OS_NAMES = {code: name for name, code in OS_CODES.items()}

#: Allowed service-order moves (generation-1.0 codes). "" is a ticket with no service order yet.
OS_TRANSITIONS: dict[str, tuple[str, ...]] = {
    "": ("in_queue", "on_the_way"),
    "F": ("on_the_way", "aborted", "completed"),
    "A": ("running", "in_queue", "aborted"),
    "E": ("paused", "completed", "aborted"),
    "P": ("running", "aborted"),
    "B": ("in_queue",),
    "C": (),
}
APPOINTMENT_STATUSES = ("to_confirm", "confirmed", "canceled", "completed")
TICKET_STATUSES = ("", "in_progress", "on_hold")
REMINDERS = (
    "none",
    "appointment_time",
    "10_minutos",
    "15_minutes",
    "20_minutes",
    "25_minutes",
    "30_minutes",
    "45_minutes",
    "60_minutes",
    "2_hours",
    "3_hours",
    "12_hours",
    "24_hours",
    "2_days",
    "1_weeks",
)
_HEX_COLOUR = re.compile(r"#?[0-9A-Fa-f]{6}")


# ---- shared helpers ----------------------------------------------------------------------------
def find_ticket(ctx: Context, number: int) -> Record | None:
    return ctx.store.find("tickets", Numero=number)


def open_ticket(ctx: Context, number: int, code: int) -> Record:
    """An existing ticket that is still open; ``code`` otherwise (the operation's own)."""
    ticket = need(find_ticket(ctx, number), code, f"Atendimento {number} não encontrado")
    if is_closed(ticket):
        raise Refusal(code, f"Atendimento {number} já encerrado")
    return ticket


def add_occurrence(
    ctx: Context,
    ticket: Record,
    text: str,
    user: str,
    *,
    mode: str = "M",
    coords: tuple[float, float] | None = None,
    protocol: int | None = None,
) -> Record:
    return ctx.store.insert(
        "occurrences",
        {
            "Id": None,
            "Data": ctx.stamp,
            "Descricao": text,
            "Modo": mode,
            "Usuario": user,
            "Latitude": coords[0] if coords else None,
            "Longitude": coords[1] if coords else None,
            "Atendimento_Numero": ticket["Numero"],
            "protocolo": protocol,
        },
        "Id",
    )


def create_ticket(
    ctx: Context,
    *,
    customer: int,
    kind: str,
    topic: Record | None,
    subject: str,
    user: str,
    opened: datetime,
    client_type: str = "C",
    contract: int | None = None,
    mode: str = "",
    status: str = "",
    priority: int = 0,
    workflow: Record | None = None,
    contact: int | None = None,
    initiative: str = "A",
    occurrence: str | None = None,
) -> Record:
    """A new open ticket, as AtendimentoCadastro and the contract operations that open one create it."""
    number = ctx.store.next_id("tickets", "Numero", start=70001)
    group = ""
    if workflow is not None and workflow.get("GruposUsuarios"):
        group = str(workflow["GruposUsuarios"]).split(",")[0]
    group_row = ctx.store.find("user_groups", id=int(group)) if group else None
    sla = ctx.store.find("sla_groups", Codigo=1) or {"horas": 24}
    if contract is not None:
        row = ctx.store.find("contracts", Numero=contract)
        if row is not None:
            sla = ctx.store.find("sla_groups", Codigo=row.get("sla_id", 1)) or sla
    ticket = ctx.store.insert(
        "tickets",
        {
            "Numero": number,
            "Protocolo": int(opened.strftime("%Y%m%d")) * 100000 + number % 100000,
            "Abertura_DataHora": opened.strftime("%Y-%m-%d %H:%M:%S"),
            "Abertura_Usuario": user,
            "Designacao_Tipo": "grupo" if group else "",
            "Designacao_Usuario": "",
            "Designacao_Grupo_Id": group,
            "Designacao_Grupo_Nome": group_row["Grupo"] if group_row else "",
            "Situacao_OS": "",
            "Topico": topic["Nome"] if topic else "",
            "topico": topic["Codigo"] if topic else None,
            "Assunto": subject,
            "Solucao": "",
            "Encerramento_DataHora": None,
            "Causa": "",
            "causa": None,
            "encerramento_usuario": "",
            "Tipo": kind,
            "TipoCliente": client_type,
            "CodigoCliente": customer,
            "Data_Agendamento": None,
            "Hora_Agendamento": None,
            "Duracao_Agendamento": None,
            "Situacao_Agendamento": "",
            "contrato": contract,
            "contato": contact,
            "prioridade": priority,
            "status": status,
            "modo": mode,
            "iniciativa": initiative,
            "fluxo": workflow["Codigo"] if workflow else None,
            "sla": sla.get("Codigo", 1),
            "sla_horas": sla["horas"],
            "pesquisa": bool(topic and topic.get("pesquisa")),
        },
    )
    if topic is not None and kind == "T":
        for item in ctx.store.rows("checklists"):
            if topic["Codigo"] in item.get("topicos", []):
                ctx.store.insert(
                    "ticket_checklists",
                    {"Atendimento_Numero": number, "Checklist_Id": item["Id"], "Checklist_Status": "N"},
                )
    add_occurrence(
        ctx, ticket, occurrence or f"Atendimento aberto: {subject}", user, mode="A" if not occurrence else "M"
    )
    return ticket


# ---- generation 1.0 ----------------------------------------------------------------------------
@operation("AtendimentoCadastro", V1, group="DadosAtendimento")
def atendimento_cadastro(ctx: Context, p: Params) -> dict[str, Any]:  # noqa: PLR0912, PLR0915 - a rule reads and checks each documented parameter in turn
    opened_on = p.req_date("Data_Abertura")
    opened_at = p.req_time("Hora_Abertura", seconds=True)
    initiative = p.req_choice("Iniciativa", ("C", "A"))
    mode = p.req_text("Modo")
    stimulus = p.integer("Estimulo_Marketing")
    client_type = p.req_choice("TipoCliente", ("C", "M"))
    client = p.id("Cliente")
    contract = p.integer("Contrato")
    contact = p.integer("Contato")
    priority = p.integer("Prioridade", minimum=0, maximum=99)
    situation = p.choice("Situacao", ("A", "E"))
    kind = p.choice("Tipo", ("A", "C", "T"))
    topic_code = p.integer("Topico")
    workflow_code = p.integer("Fluxo")
    subject = p.req_text("Assunto")
    occurrence = p.text("Ocorrencia")
    user = p.text("Usuario_Abertura")

    if ctx.store.find("ticket_modes", code=mode) is None:
        raise p.invalid("Modo", "modo de atendimento não cadastrado")
    table = "customers" if client_type == "C" else "markets"
    if ctx.store.find(table, Codigo=client) is None:
        raise Refusal(codes.V1_INVALID_CODE, "Código inválido", detail="Cliente")
    if contract is not None and (
        client_type != "C" or ctx.store.find("contracts", Numero=contract, Cliente_Codigo=client) is None
    ):
        raise p.invalid("Contrato", "contrato não pertence ao cliente")
    if contact is not None and ctx.store.find("contacts", id=contact) is None:
        raise p.invalid("Contato", "contato não cadastrado")
    if topic_code is not None and workflow_code is not None:
        raise p.invalid("Fluxo", "informe Topico ou Fluxo, não ambos")
    if kind is not None and topic_code is None:
        raise p.invalid("Tipo", "Tipo só pode ser informado com Topico")
    topic: Record | None = None
    workflow: Record | None = None
    if topic_code is not None:
        topic = ctx.store.find("topics", Codigo=topic_code, Situacao="A")
        if topic is None or (kind is not None and topic["Tipo"] != kind):
            raise p.invalid("Topico", "tópico ativo do tipo informado não encontrado")
    if workflow_code is not None:
        workflow = ctx.store.find("workflows", Codigo=workflow_code, Situacao="A")
        if workflow is None:
            raise p.invalid("Fluxo", "fluxo ativo não encontrado")
        topic = ctx.store.find("topics", Codigo=workflow.get("topico"))
    if user is not None and ctx.user(user, active=True) is None:
        raise p.invalid("Usuario_Abertura", "usuário não encontrado")
    ticket_kind = topic["Tipo"] if topic else (kind or "")
    if stimulus is not None:
        if ticket_kind != "C":
            raise Refusal(
                223,
                "Estímulo de marketing permitido somente para atendimentos do tipo Comercial",
                detail="Estimulo_Marketing",
            )
        if ctx.store.find("marketing_stimuli", Codigo=stimulus) is None:
            raise p.invalid("Estimulo_Marketing", "estímulo não cadastrado")
    opened = datetime.combine(opened_on, datetime.strptime(opened_at, "%H:%M:%S").time())
    ticket = create_ticket(
        ctx,
        customer=client,
        kind=ticket_kind,
        topic=topic,
        subject=subject,
        user=ctx.user_name(user),
        opened=opened,
        client_type=client_type,
        contract=contract,
        mode=mode,
        status={"A": "in_progress", "E": "on_hold"}.get(situation or "", ""),
        priority=priority or 0,
        workflow=workflow,
        contact=contact,
        initiative=initiative,
        occurrence=occurrence,
    )
    deadline = opened + timedelta(hours=ticket["sla_horas"])
    return {
        "NumeroAtendimento": ticket["Numero"],
        "SLA": deadline.strftime("%Y-%m-%d %H:%M:%S"),
        "SLA_Tipo": "Horas",
        "Mensagem": f"Atendimento {ticket['Numero']} cadastrado com sucesso. Protocolo {ticket['Protocolo']}",
    }


# ---- generation 2.0 ----------------------------------------------------------------------------
@operation("ticket_update")
def ticket_update(ctx: Context, p: Params) -> str:
    number = p.id("ticket_id")
    priority = p.integer("priority", minimum=0, maximum=99)
    status = p.optional_status("status", TICKET_STATUSES)
    ticket = need(find_ticket(ctx, number), codes.V2_INVALID_FIELD, f"Atendimento {number} não encontrado")
    if is_closed(ticket):
        raise Refusal(13, "Atendimento já encerrado")
    if priority is not None:
        ticket["prioridade"] = priority
    if status is not None:
        ticket["status"] = status
    return "Atendimento alterado com sucesso"


@operation("ticket_checklist_update")
def ticket_checklist_update(ctx: Context, p: Params) -> str:
    number = p.id("ticket_id")
    item = p.id("checklist_id")
    mark = p.req_choice("checklist_set", ("M", "D"))
    user = p.text("user")
    open_ticket(ctx, number, codes.V2_INVALID_FIELD)
    if user is not None and ctx.user(user, active=True) is None:
        raise p.invalid("user", "usuário não encontrado")
    row = need(
        ctx.store.find("ticket_checklists", Atendimento_Numero=number, Checklist_Id=item),
        codes.V2_INVALID_FIELD,
        "Item de checklist não pertence ao atendimento",
    )
    row["Checklist_Status"] = "S" if mark == "M" else "N"
    return "Checklist atualizado com sucesso"


@operation("ticket_os_status_update")
def ticket_os_status_update(ctx: Context, p: Params) -> str:
    number = p.id("ticket_id")
    target = p.req_choice("new_status", tuple(OS_CODES))
    coordinates = p.group("coordinates")
    coords = coordinates.coordinates() if coordinates is not None else None
    user = p.text("user")
    if target == "running" and ctx.settings.min_distance_to_execute and coords is None:
        raise p.missing("coordinates")
    if ctx.user(user, active=True) is None:
        raise p.invalid("user", "usuário não encontrado")
    ticket = open_ticket(ctx, number, 15)
    current = ticket.get("Situacao_OS") or ""
    allowed = OS_TRANSITIONS.get(current, ())
    if target not in allowed:
        now = OS_NAMES.get(current, "sem OS")
        raise Refusal(
            15,
            f"Status da OS inválido: de {now} só é permitido ir para "
            f"{', '.join(allowed) if allowed else 'nenhum status'}",
        )
    ticket["Situacao_OS"] = OS_CODES[target]
    add_occurrence(
        ctx, ticket, f"Status da OS alterado para {target}", ctx.user_name(user), mode="A", coords=coords
    )
    return "Status da OS alterado com sucesso"


def _appointment_fields(p: Params) -> tuple[str, str, str, str | None]:
    day = p.req_date("appointment_date").isoformat()
    time = p.req_time("appointment_time")
    duration = p.req_time("duration")
    status = p.choice("appointment_status", APPOINTMENT_STATUSES)
    return day, time, duration, status


def _schedule(ticket: Record, day: str, time: str, duration: str, status: str) -> None:
    ticket.update(
        {
            "Data_Agendamento": day,
            "Hora_Agendamento": time + ":00",
            "Duracao_Agendamento": duration + ":00",
            "Situacao_Agendamento": status,
        }
    )


def has_appointment(ticket: Record) -> bool:
    return bool(ticket.get("Data_Agendamento")) and ticket.get("Situacao_Agendamento") != "canceled"


@operation("ticket_appointment_insert")
def ticket_appointment_insert(ctx: Context, p: Params) -> str:
    number = p.id("ticket_id")
    day, time, duration, status = _appointment_fields(p)
    ticket = open_ticket(ctx, number, codes.V2_INVALID_FIELD)
    if has_appointment(ticket):
        raise Refusal(18, "Atendimento já possui agendamento")
    _schedule(ticket, day, time, duration, status or "to_confirm")
    return "Agendamento cadastrado com sucesso"


@operation("ticket_appointment_update")
def ticket_appointment_update(ctx: Context, p: Params) -> str:
    number = p.id("ticket_id")
    day, time, duration, status = _appointment_fields(p)
    ticket = open_ticket(ctx, number, 15)
    if not ticket.get("Data_Agendamento"):
        raise Refusal(15, "Erro ao buscar o agendamento do atendimento")
    _schedule(ticket, day, time, duration, status or ticket.get("Situacao_Agendamento") or "to_confirm")
    return "Agendamento alterado com sucesso"


def _span(day: str, time: str, duration: str) -> dict[str, str]:
    start = datetime.fromisoformat(f"{day} {time[:5]}:00")
    hours, minutes = int(duration[:2]), int(duration[3:5])
    end = start + timedelta(hours=hours, minutes=minutes)
    return {"start_time": start.strftime("%Y-%m-%d %H:%M:%S"), "end_time": end.strftime("%Y-%m-%d %H:%M:%S")}


@operation("consult_appointments", writes=False)
def consult_appointments(ctx: Context, p: Params) -> list[dict[str, str]]:
    user = p.req_text("user")
    day = p.req_date("appointment_date").isoformat()
    if ctx.user(user) is None:
        raise Refusal(8, "Usuário não encontrado")
    spans = [
        _span(t["Data_Agendamento"], t["Hora_Agendamento"], t["Duracao_Agendamento"] or "01:00")
        for t in ctx.store.rows("tickets")
        if t.get("Designacao_Usuario") == user
        and t.get("Data_Agendamento") == day
        and t.get("Situacao_Agendamento") != "canceled"
    ]
    spans += [
        _span(a["appointment_date"], a["appointment_time"], a.get("duration") or "01:00")
        for a in ctx.store.rows("appointments")
        if a["user"] == user and a["appointment_date"] == day
    ]
    return sorted(spans, key=lambda s: s["start_time"])


@operation("appointment_insert")
def appointment_insert(ctx: Context, p: Params) -> str:
    description = p.req_text("description")
    customer = p.integer("customer_id", minimum=1)
    day = p.req_date("appointment_date").isoformat()
    time = p.req_time("appointment_time")
    duration = p.hour("duration")
    user = p.req_text("user")
    recurrence = p.req_choice("recurrence", ("yes", "no"))
    period = p.choice("period", ("daily", "weekly", "monthly", "yearly"), recurrence == "yes")
    colour = p.text("event_color")
    reminder = p.req_choice("reminder", REMINDERS)
    status = p.choice("status", APPOINTMENT_STATUSES)
    if colour is not None and not _HEX_COLOUR.fullmatch(colour):
        raise p.invalid("event_color", "código hexadecimal de cor")
    if customer is not None and ctx.store.find("customers", Codigo=customer) is None:
        raise p.invalid("customer_id", "cliente não encontrado")
    if ctx.user(user) is None:
        raise Refusal(16, "Usuário não encontrado")
    ctx.store.insert(
        "appointments",
        {
            "id": None,
            "description": description,
            "customer_id": customer,
            "appointment_date": day,
            "appointment_time": time,
            "duration": duration,
            "user": user,
            "recurrence": recurrence,
            "period": period,
            "event_color": colour,
            "reminder": reminder,
            "local": p.text("local"),
            "status": status or "to_confirm",
            "comments": p.text("comments"),
            "pre_appointment_type": p.integer("pre_appointment_type"),
        },
        "id",
    )
    return "Agendamento cadastrado com sucesso"


@operation("get_tickets_mode", writes=False)
def get_tickets_mode(ctx: Context, p: Params) -> list[dict[str, str]]:
    return [{"code": m["code"], "description": m["description"]} for m in ctx.store.rows("ticket_modes")]


@operation("ticket_assign")
def ticket_assign(ctx: Context, p: Params) -> str:
    number = p.id("ticket_id")
    mode = p.req_text("mode_assign")
    target_type = p.req_choice("target_type", ("user", "group"))
    target = p.req_text("target_id")
    if ctx.store.find("ticket_modes", code=mode) is None:
        raise p.invalid("mode_assign", "modo não cadastrado (veja get_tickets_mode)")
    ticket = open_ticket(ctx, number, codes.V2_INVALID_FIELD)
    if target_type == "user":
        if ctx.user(target, active=True) is None:
            raise Refusal(14, "target_id inválido: usuário não encontrado ou inativo")
        ticket.update(
            {
                "Designacao_Tipo": "usuario",
                "Designacao_Usuario": target,
                "Designacao_Grupo_Id": "",
                "Designacao_Grupo_Nome": "",
            }
        )
    else:
        group = ctx.store.find("user_groups", id=int(target)) if target.isdecimal() else None
        if group is None:
            raise Refusal(14, "target_id inválido: grupo não encontrado")
        ticket.update(
            {
                "Designacao_Tipo": "grupo",
                "Designacao_Usuario": "",
                "Designacao_Grupo_Id": str(group["id"]),
                "Designacao_Grupo_Nome": group["Grupo"],
            }
        )
    add_occurrence(ctx, ticket, f"Atendimento encaminhado para {target}", ctx.key.default_user, mode="A")
    return "Atendimento encaminhado com sucesso"


@operation("ticket_finish", failure_result={"messages": [], "new_tickets": []})
def ticket_finish(ctx: Context, p: Params) -> dict[str, Any]:
    number = p.id("ticket_id")
    cause_id = p.id("cause_id")
    solution = p.req_text("solution")
    when = p.moment("datetime")
    user = p.req_text("user")
    if ctx.user(user) is None:
        raise Refusal(7, "Usuário não existe")
    ticket = need(find_ticket(ctx, number), codes.V2_INVALID_FIELD, f"Atendimento {number} não encontrado")
    if is_closed(ticket):
        raise Refusal(13, "Atendimento já encerrado")
    cause = need(
        ctx.store.find("causes", Codigo=cause_id, Situacao="A"),
        codes.V2_INVALID_FIELD,
        "Causa não encontrada ou inativa",
    )
    ticket.update(
        {
            "Encerramento_DataHora": (when or ctx.now).strftime("%Y-%m-%d %H:%M:%S"),
            "Causa": cause["Nome"],
            "causa": cause["Codigo"],
            "Solucao": solution,
            "encerramento_usuario": user,
            "status": "",
        }
    )
    add_occurrence(ctx, ticket, f"Atendimento encerrado: {solution}", user, mode="A")
    return {"messages": [{"message": f"Atendimento {number} encerrado com sucesso"}], "new_tickets": []}


@operation("generate_questionare_link", writes=False)
def generate_questionare_link(ctx: Context, p: Params) -> list[dict[str, str]]:
    number = p.id("ticket")
    ticket = need(find_ticket(ctx, number), 11, "Atendimento não encontrado")
    if not ticket.get("pesquisa"):
        raise Refusal(11, "Atendimento não possui pesquisas")
    token = hashlib.sha256(f"survey:{number}".encode()).hexdigest()[:20]
    return [
        {
            "Description": "Pesquisa de satisfação",
            "generate_questionare_link": f"https://pesquisa.provedor.example.com.br/q/{token}",
        }
    ]


@operation("ticket_occurrence_insert")
def ticket_occurrence_insert(ctx: Context, p: Params) -> dict[str, int]:
    number = p.id("ticket_id")
    protocol = p.integer("protocol_id", minimum=1)
    user = p.text("user")
    description = p.req_text("description")
    coords = p.coordinates()
    ticket = need(find_ticket(ctx, number), codes.V2_INVALID_FIELD, f"Atendimento {number} não encontrado")
    if ctx.user(user) is None:
        raise Refusal(18, "Usuário não encontrado")
    if ticket.get("fluxo") and protocol is None:
        raise p.missing("protocol_id")
    row = add_occurrence(ctx, ticket, description, ctx.user_name(user), coords=coords, protocol=protocol)
    return {"occurrence_id": row["Id"]}


@operation("chat_messages", list_body=True)
def chat_messages(ctx: Context, p: Params) -> str:
    entries = p.entries("messages", True)
    parsed: list[Record] = []
    for index, raw in enumerate(entries):
        entry = p.child(raw, f"[{index}]")
        parsed.append(
            {
                "record": entry.req_moment("record").strftime("%Y-%m-%d %H:%M:%S"),
                "customer": entry.id("customer"),
                "ticket_id": entry.id("ticket_id"),
                "attendant": entry.req_text("attendant"),
                "content": entry.req_text("content"),
                "origin": entry.req_choice("origin", ("A", "C", "S")),
                "contact": entry.integer("contact", minimum=1),
            }
        )
    for message in parsed:
        if find_ticket(ctx, message["ticket_id"]) is None:
            raise Refusal(16, f"ticket_id {message['ticket_id']} não encontrado")
    for message in parsed:
        ctx.store.insert("chat_messages", {"id": None, **message}, "id")
    return f"{len(parsed)} mensagem(ns) registrada(s) com sucesso"
