"""What every technician action needs: the ticket in hand, read fresh and checked to be theirs."""

from __future__ import annotations

from bot.isp.models import v1_records

from flows.context import Context
from flows.flow import Option

TICKET = "ticket"  # the flow showing the ticket in hand with its actions
OPEN_OS = (
    v1_records.OsStatus.QUEUED,
    v1_records.OsStatus.ON_THE_WAY,
    v1_records.OsStatus.EXECUTING,
    v1_records.OsStatus.PAUSED,
)


class NotYours(Exception):
    """The ticket does not exist, is closed, or is not assigned to this technician."""


async def ticket_in_hand(ctx: Context) -> v1_records.Ticket:
    """The ticket in hand, read now; ``NotYours`` when there is none or it is not this technician's."""
    number = ctx.current_ticket
    if number is None:
        raise NotYours("no ticket in hand")
    ticket = await ctx.coordinator.ticket(number)
    if ticket is None or not is_theirs(ctx, ticket):
        raise NotYours(f"ticket {number} is not assigned to this technician")
    return ticket


async def in_hand_or_refuse(ctx: Context) -> v1_records.Ticket | None:
    """The ticket in hand, read now; ``None`` (and the refusal said, back to the menu) when it is not theirs."""
    try:
        return await ticket_in_hand(ctx)
    except NotYours:
        refuse_not_yours(ctx)
        return None


def is_theirs(ctx: Context, ticket: v1_records.Ticket) -> bool:
    return ticket.Designacao_Usuario == ctx.system_user and ticket.Encerramento_DataHora is None


async def assigned_open_tickets(ctx: Context) -> list[v1_records.Ticket]:
    """Open tickets assigned to the technician whose service order is not finished, by appointment."""
    rows = await ctx.coordinator.assigned_tickets(ctx.system_user)
    open_rows = [t for t in rows if t.Encerramento_DataHora is None and t.Situacao_OS in OPEN_OS]
    return sorted(open_rows, key=lambda t: (t.Data_Agendamento is None, t.Data_Agendamento, t.Hora_Agendamento
                                            is None, t.Hora_Agendamento, t.Numero or 0))


def refuse_not_yours(ctx: Context) -> None:
    """Say the ticket cannot be acted on here and go back to the menu."""
    ctx.set_current_ticket(None)
    ctx.reply.say("technician.not_yours")
    ctx.to_menu()


def back_to_ticket(ctx: Context) -> None:
    ctx.switch(TICKET)


def ticket_option(ticket: v1_records.Ticket) -> Option:
    when = ""
    if ticket.Data_Agendamento is not None:
        when = ticket.Data_Agendamento.strftime("%d/%m")
        if ticket.Hora_Agendamento is not None:
            when += " " + ticket.Hora_Agendamento.strftime("%H:%M")
    label = " · ".join(part for part in (f"#{ticket.Numero}", when, ticket.Assunto or ticket.Topico or "") if part)
    return Option(ticket.Numero, text=label[:60])
