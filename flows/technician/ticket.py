"""The ticket in hand: who, where, what, the service order's status and the appointment, with the
actions a technician takes on it. Every action flow comes back here when it is done. A customer
whose contract is cancelled or suspended, and a visit past its time, are said on the card."""

from __future__ import annotations

from bot.isp.models import v1_records

from flows.acs import router_line
from flows.context import Context
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.technician import service_orders
from flows.technician.tickets import NotYours, refuse_not_yours, ticket_in_hand

# The action flows offered on a ticket, in order (each a module of this package).
ACTIONS = ("status", "occurrence", "checklist", "materials", "appointment", "finish")


class Ticket(Flow):
    name = "ticket"
    commands = ("os", "ticket")
    steps = Steps(begin=("act", Switch("agenda"), TO_MENU), act=(*map(Switch, ACTIONS), "act", TO_MENU))

    async def begin(self, ctx: Context) -> None:
        try:
            ticket = await ticket_in_hand(ctx)
        except NotYours:
            if ctx.current_ticket is None:
                ctx.reply.say("technician.no_ticket_in_hand")
                ctx.switch("agenda")
                return
            refuse_not_yours(ctx)
            return
        await self._card(ctx, ticket)

    async def _card(self, ctx: Context, ticket: v1_records.Ticket, *, fresh: bool = False) -> None:
        customer = await ctx.coordinator.customer(ticket.CodigoCliente) if ticket.CodigoCliente else None
        contracts = await ctx.coordinator.contracts(ticket.CodigoCliente) if ticket.CodigoCliente else []
        options = [Option(action, key=f"technician.action_{action}") for action in ACTIONS]
        # With the ISP's ACS: the customer's router on the card, read again on request.
        router = await router_line(ctx, ticket.CodigoCliente, fresh=fresh) if ticket.CodigoCliente else None
        if router is not None:
            options.append(Option("router", key="technician.action_router"))
        options.append(Option("menu", key="technician.action_menu"))
        ctx.reply.ask(
            "act", "technician.ticket_card", options, columns=2, router=router,
            number=ticket.Numero, protocol=ticket.Protocolo, subject=ticket.Assunto or ticket.Topico or "",
            status=_status(ticket), name=customer.Nome if customer else "", address=service_orders.address(customer),
            phones=service_orders.phones(customer), map=service_orders.map_link(customer),
            plan=contracts[0].Plano_Descricao if len(contracts) == 1 else "",
            day=ticket.Data_Agendamento, time=ticket.Hora_Agendamento,
            standing=service_orders.standing(c.Situacao_Codigo for c in contracts),
            late=service_orders.late(ticket, ctx.coordinator.now()),
        )

    async def act(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="router"):
                try:
                    ticket = await ticket_in_hand(ctx)
                except NotYours:
                    refuse_not_yours(ctx)
                    return
                await self._card(ctx, ticket, fresh=True)
            case Chosen(value=action):
                ctx.switch(action)
            case _:
                raise Unexpected("technician.pick_a_button")


def _status(ticket: v1_records.Ticket) -> str:
    return ticket.Situacao_OS.name.lower() if ticket.Situacao_OS is not None else "none"

