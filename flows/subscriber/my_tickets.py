"""My tickets: the open ones, each with topic, status, service order and appointment, in words.

Choices where the spec is silent:

- ``ConsultaAtendimentos`` carries no ticket status of its own; the status told is whether somebody
  took the ticket (``Designacao_Tipo`` user or group: "being handled") or it waits in the queue.
  The assigned user's login is not shown (it is the ISP's internal name, not a person's).
- The service-order and appointment codes become words in the templates (the locale files), so
  each language says them its own way; an unknown code is left out rather than shown raw.
- At most ``MAX_SHOWN`` tickets, newest first; the rest are counted.
- A contract not active is said first, in one line (``standing.say_standing``): a visit listed
  below may be to a contract cancelled or suspended.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.isp.models.v1_records import Ticket

from flows.context import Context
from flows.flow import TO_MENU, Flow, Steps
from flows.subscriber.standing import say_standing

MAX_SHOWN = 8


class MyTickets(Flow):
    name = "my_tickets"
    commands = ("chamados", "meuschamados", "tickets", "reclamos")
    steps = Steps(begin=(TO_MENU,))

    async def begin(self, ctx: Context) -> None:
        await say_standing(ctx)  # a visit to a contract cancelled or suspended: that first
        tickets = await ctx.coordinator.open_tickets(ctx.customer)
        if not tickets:
            ctx.reply.say("my_tickets.none_open")
        else:
            shown = [_describe(t) for t in tickets[:MAX_SHOWN]]
            ctx.reply.say("my_tickets.list", tickets=shown, more=len(tickets) - len(shown))
        ctx.to_menu()


def _describe(ticket: Ticket) -> dict[str, Any]:
    appointment = None
    if ticket.Data_Agendamento is not None:
        appointment = (
            datetime.combine(ticket.Data_Agendamento, ticket.Hora_Agendamento)
            if ticket.Hora_Agendamento is not None else ticket.Data_Agendamento
        )
    return {
        "ticket": ticket.Numero,  # its own number, labelled a ticket: "protocol" is the contact's
        "topic": ticket.Topico or ticket.Assunto or "",
        "subject": ticket.Assunto if ticket.Assunto and ticket.Assunto != ticket.Topico else "",
        "opened": ticket.Abertura_DataHora,
        "handled": bool(ticket.Designacao_Tipo),
        "os": ticket.Situacao_OS.value if ticket.Situacao_OS is not None else "",
        "appointment": appointment,
        "has_time": ticket.Hora_Agendamento is not None,
        "appointment_status": ticket.Situacao_Agendamento or "",
    }
