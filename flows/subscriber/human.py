"""Talk to a person. The conversation gets a ticket (the current one, or a new administrative ticket
the bot opens), a handoff is recorded, and the staff desk opens a forum topic with a card: who the
customer is, their contract, online or not, open bills and tickets, their last messages. From then
on what the subscriber says goes to that topic (``ctx.relay``) and the bot keeps quiet, until a
staff member hands the chat back (``/bot`` in the topic).

Choices where the spec is silent: the new ticket is administrative (the first active administrative
topic whose name fits, as for trust unblocks), subject "Atendimento pelo Telegram", and its
description the subscriber's last messages. The card is in Brazilian Portuguese, the staff's
language. A subscriber who asks again while a handoff is open is told a person is already coming.
Without a staff desk the subscriber is told the ticket's protocol and what they write from then on is
added to that ticket (``follow_ticket``). Cancelling a plan is a person's job (they try to keep the
customer): ``cancel_plan`` says so and asks for a person on a ticket of a cancellation topic.
"""

from __future__ import annotations

import logging
from typing import Any

from bot.i18n import plain_text
from bot.isp import IspError
from bot.isp.models import v1_records

from flows.context import Context
from flows.events import Contact, Location, Media, Text
from flows.flow import TO_MENU, Flow, StepEvent, Steps, Switch

log = logging.getLogger(__name__)

SUBJECT = "Atendimento pelo Telegram"
STAFF_LANGUAGE = "pt_BR"
TOPIC_HINTS = ("atendimento", "telegram", "suporte")


class Human(Flow):
    name = "human"
    commands = ("human", "atendente", "humano", "agente")
    verbatim_steps = frozenset({"with_person"})
    steps = Steps(begin=("with_person", Switch("follow_ticket"), TO_MENU), with_person=())

    async def begin(self, ctx: Context) -> None:
        ticket = await self._still_open(ctx, ctx.current_ticket) or await self._open_ticket(ctx)
        if ticket is None:
            ctx.say("human.unavailable")
            ctx.to_menu()
            return
        ctx.set_current_ticket(ticket)
        if not ctx.policy.staff_desk:
            protocol = await ctx.coordinator.protocol(ctx.customer, ticket) or ticket
            ctx.say("human.by_ticket", protocol=protocol)
            ctx.switch("follow_ticket", protocol=protocol)
            return
        if not await ctx.open_handoff(ticket):
            ctx.say("human.already")
            ctx.wait("with_person")
            return
        title, card = await self._card(ctx, ticket)
        ctx.handoff("asked", title=title, card=card)
        ctx.say("human.requested")
        ctx.wait("with_person")

    async def with_person(self, ctx: Context, event: StepEvent) -> None:
        """A person handles the chat: whatever the subscriber sends goes to them, the bot says nothing."""
        said = ctx.recent[-1] if ctx.recent else ""
        match event:
            case Text(text=text):
                ctx.relay(text)
            case Media(kind=kind):
                ctx.relay(said, kind)
            case Location():
                ctx.relay(said, "location")
            case Contact():
                ctx.relay(said, "contact")
            case _:
                ctx.relay(said)
        ctx.wait("with_person")

    async def _still_open(self, ctx: Context, ticket: int | None) -> int | None:
        """The conversation's ticket if it is still open (a closed one cannot take a handoff)."""
        if ticket is None:
            return None
        try:
            open_numbers = {t.Numero for t in await ctx.coordinator.open_tickets(ctx.customer)}
        except IspError:
            return ticket  # cannot tell now: keep the conversation's own ticket
        return ticket if ticket in open_numbers else None

    async def _open_ticket(self, ctx: Context) -> int | None:
        try:
            topics = await ctx.coordinator.administrative_topics()
            hints = (*ctx.data.get("topic_hints", ()), *TOPIC_HINTS)
            topic = next((t for hint in hints for t in topics if hint in (t.Nome or "").casefold()),
                         topics[0] if topics else None)
            if topic is None:
                log.warning("no active administrative topic: a handoff cannot open its ticket")
                return None
            contract = ctx.link.contract if ctx.link else None
            return await ctx.coordinator.open_ticket(
                customer=ctx.customer, contract=contract, topic=topic, subject=SUBJECT,
                description="\n".join(ctx.recent) or SUBJECT, mode=ctx.policy.ticket_mode, user=ctx.policy.isp_user,
            )
        except IspError as exc:
            log.warning("a handoff could not open its ticket: %s", type(exc).__name__)
            return None

    async def _card(self, ctx: Context, ticket: int) -> tuple[str, str]:
        """The topic's title and the summary card, from what the ISP says now (best effort)."""
        facts: dict[str, Any] = {"ticket": ticket, "name": "", "contract": "", "status": "", "online": None,
                                 "bills": None, "tickets": None, "protocol": ticket}
        try:
            customer = await ctx.coordinator.customer(ctx.customer)
            facts["name"] = customer.Nome if customer and customer.Nome else ""
            contracts = await ctx.coordinator.contracts(ctx.customer)
            chosen = ctx.link.contract if ctx.link else None
            contract = next((c for c in contracts if c.Numero == chosen), contracts[0] if contracts else None)
            if contract is not None:
                facts["contract"] = f"{contract.Numero} · {contract.Plano_Descricao or ''}".strip(" ·")
                facts["status"] = contract.Situacao_Codigo.name.lower() if contract.Situacao_Codigo else ""
            online = await ctx.coordinator.online(ctx.customer)
            facts["online"] = online is not None and online.Online is v1_records.YesNo.YES
            facts["bills"] = len(await ctx.coordinator.open_documents(ctx.customer))
            open_tickets = await ctx.coordinator.open_tickets(ctx.customer)
            facts["tickets"] = len(open_tickets)
            facts["protocol"] = next((t.Protocolo for t in open_tickets if t.Numero == ticket), None) or ticket
        except IspError as exc:  # the card shows what it could read; the handoff goes on
            log.info("handoff card incomplete: %s", type(exc).__name__)
        render = ctx.render_in
        title = plain_text(render(STAFF_LANGUAGE, "human.topic_title", protocol=facts["protocol"], name=facts["name"]))
        card = render(STAFF_LANGUAGE, "human.card", recent=ctx.recent, **facts)
        return title[:128], card

