"""Talk to a person. A linked subscriber's conversation gets a ticket (the current one, or a new
administrative ticket, subject "Atendimento pelo Telegram", the last messages as description), a
handoff, and a desk conversation with a card (customer, contract, online, open bills and tickets,
last messages; in pt_BR, the staff's language). The person's words go to the desk (``ctx.staff.relay``),
the bot quiet until staff hand back (``/bot``); asked again, "a person is coming". A staff member
who answers first in a chat the bot serves (Chatwoot) takes it over so (``taken_over``), unsaid.
Without a desk: the ticket's number, and what they write joins it (``follow_ticket``).
``cancel_plan`` says why and asks for a person on a ticket of a cancellation topic.

Someone linked to no customer reaches a person too (``/atendente``, the words, the link's button):
with a desk, a card saying plainly they are not identified (name, why, what they asked; no ticket,
no record: staff confirm who they are first); without one, the ISP's phone and hours
(``ISPBOT_SUPPORT_*``): no ISP call, nothing they type reaches the ISP. A prospect (``sales``) reaches
the sales team the same way, or ``ISPBOT_SALES_PHONE`` and ``ISPBOT_SALES_ADDRESS``.
"""

from __future__ import annotations

import logging
from typing import Any

from bot.i18n import plain_text
from bot.isp import IspError
from bot.isp.models import v1_records

from flows.contacts import HANDED_TO_PERSON, TICKET_OPENED, Deadline
from flows.context import UNIDENTIFIED, Context
from flows.events import UNREADABLE, Contact, Location, Media, Text
from flows.flow import TO_MENU, Flow, StepEvent, Steps, Switch
from flows.identity import masked_tax_id
from flows.intents import default_intents

log = logging.getLogger(__name__)

def subject(ctx: Context) -> str:
    """The ticket's subject, naming the channel the subscriber wrote on (in the ISP's language)."""
    return ctx.isp_text("human.isp_subject")
STAFF_LANGUAGE = "pt_BR"
TOPIC_HINTS = ("atendimento", "telegram", "suporte")
SALES_HINTS = ("comercial", "venda")  # the administrative topic of sales, where there is one
ASKED_KEPT = 300  # characters of a prospect's question shown on the staff's card
TITLE_WORDS = 60  # characters of what the person asked in a ticket's subject and a desk conversation's title


class Human(Flow):
    name = "human"
    commands = ("human", "atendente", "humano", "agente")
    requires_link = False  # someone not linked reaches a person too (``_unidentified``)
    verbatim_steps = frozenset({"with_person"})
    steps = Steps(begin=("with_person", Switch("follow_ticket"), Switch("link"), TO_MENU), with_person=())

    async def begin(self, ctx: Context) -> None:
        if ctx.link is None or ctx.link.customer_code is None:
            await self._unidentified(ctx)
            return
        ticket = await self._still_open(ctx, ctx.current_ticket) or await self._open_ticket(ctx)
        if ticket is None:
            ctx.reply.say("human.unavailable")
            ctx.to_menu()
            return
        ctx.set_current_ticket(ticket)
        if not ctx.policy.staff_desk:
            # Answered later, from the ISP system: a request, with its term.
            await ctx.records.record(self.name, TICKET_OPENED, ticket=ticket, deadline=Deadline.REQUEST)
            ctx.reply.say("human.by_ticket", ticket=ticket)
            await ctx.staff.say_expectation(queued=False)
            ctx.switch("follow_ticket", ticket=ticket)
            return
        if not await ctx.staff.open_handoff(ticket):
            ctx.reply.say("human.already")
            await ctx.staff.say_expectation(queued=True)
            ctx.reply.wait("with_person")
            return
        title, card, tax_id = await self._card(ctx, ticket)
        await ctx.records.record(self.name, HANDED_TO_PERSON, ticket=ticket)
        taken = bool(ctx.data.get("taken_over"))  # a staff member answered first: their words come next
        ctx.staff.handoff("taken_over" if taken else "asked", title=title, card=card, tax_id=tax_id)
        if not taken:
            ctx.reply.say("human.requested")
            await ctx.staff.say_expectation(queued=True)
        ctx.reply.wait("with_person")

    async def _unidentified(self, ctx: Context) -> None:
        """A person linked to no customer: the desk with a card saying so, or how to reach the ISP."""
        sales = bool(ctx.data.get("sales"))
        if not ctx.policy.staff_desk:
            say_contacts(ctx, sales=sales)
            ctx.switch("link", again=True)  # a customer may still prove who they are, for a ticket
            return
        if not await ctx.staff.open_handoff(UNIDENTIFIED):
            ctx.reply.say("human.already")
            await ctx.staff.say_expectation(queued=True)
            ctx.reply.wait("with_person")
            return
        name = ctx.sender_name or ""
        reason = "sales" if sales else str(ctx.data.get("reason") or "asked")
        asked = str(ctx.data.get("asked") or "")[:ASKED_KEPT]
        render = ctx.render_in
        said = "" if default_intents().only_asks(ctx.language, asked, "human") else _short(asked)
        title = plain_text(render(STAFF_LANGUAGE, "human.unidentified_title", name=name, sales=sales, asked=said))
        contact = ctx.records.contact.protocol if ctx.records.contact is not None else ""
        card = render(STAFF_LANGUAGE, "human.unidentified_card", name=name, reason=reason, asked=asked,
                      language=ctx.language, contact=contact)
        await ctx.records.record(self.name, HANDED_TO_PERSON)
        ctx.staff.handoff("sales" if sales else "unidentified", title=title[:128], card=card)
        ctx.reply.say("human.sales_requested" if sales else "human.requested_unidentified")
        await ctx.staff.say_expectation(queued=True)
        ctx.reply.wait("with_person")

    async def with_person(self, ctx: Context, event: StepEvent) -> None:
        """A person handles the chat: whatever the subscriber sends goes to them, the bot says nothing."""
        said = ctx.staff.recent[-1] if ctx.staff.recent else ""
        match event:
            case Text(text=text):
                ctx.staff.relay(text)
            case Media(kind=kind) if kind == UNREADABLE:
                # The staff cannot see it either: they hear something came, the person what is read.
                ctx.staff.relay(said, kind)
                ctx.reply.say("common.unreadable", kind=kind)
            case Media(kind=kind):
                ctx.staff.relay(said, kind)
            case Location():
                ctx.staff.relay(said, "location")
            case Contact():
                ctx.staff.relay(said, "contact")
            case _:
                ctx.staff.relay(said)
        ctx.reply.wait("with_person")

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
            asked = asked_words(ctx)
            # Titled by what the person asked, in their words (the channel's subject when they typed
            # nothing but the request); the description opens with it, then their last messages.
            description = "\n".join(dict.fromkeys([asked, *ctx.staff.recent] if asked else ctx.staff.recent))
            return await ctx.coordinator.open_ticket(
                customer=ctx.customer, contract=contract, topic=topic, subject=_short(asked) or subject(ctx),
                description=description or subject(ctx), mode=ctx.policy.ticket_mode, user=ctx.policy.isp_user,
            )
        except IspError as exc:
            log.warning("a handoff could not open its ticket: %s", type(exc).__name__)
            return None

    async def _card(self, ctx: Context, ticket: int) -> tuple[str, str, str]:
        """The topic's title, the summary card and the masked tax id, from what the ISP says now
        (best effort)."""
        facts: dict[str, Any] = {"ticket": ticket, "name": "", "contract": "", "status": "", "online": None,
                                 "bills": None, "tickets": None}
        tax_id = ""
        try:
            customer = await ctx.coordinator.customer(ctx.customer)
            facts["name"] = customer.Nome if customer and customer.Nome else ""
            tax_id = masked_tax_id(customer.CNPJ_CNPF if customer else None)
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
        except IspError as exc:  # the card shows what it could read; the handoff goes on
            log.info("handoff card incomplete: %s", type(exc).__name__)
        render = ctx.render_in
        asked = asked_words(ctx)
        title = plain_text(render(STAFF_LANGUAGE, "human.topic_title", ticket=ticket, name=facts["name"],
                                  asked=_short(asked)))
        contact = ctx.records.contact.protocol if ctx.records.contact is not None else ""
        card = render(STAFF_LANGUAGE, "human.card", recent=ctx.staff.recent, contact=contact, asked=asked, **facts)
        return title[:128], card, tax_id


class Sales(Flow):
    """Someone who wants to subscribe or asks about coverage: a person of the team when there is a desk,
    else the sales phone and address. A customer not linked yet may prove who they are afterwards."""

    name = "sales"
    commands = ("contratar", "vendas", "comercial", "planos", "sales")
    requires_link = False
    steps = Steps(begin=(Switch("human"), Switch("link"), TO_MENU))

    async def begin(self, ctx: Context) -> None:
        if ctx.policy.staff_desk:
            ctx.switch("human", sales=True, asked=ctx.data.get("asked", ""), topic_hints=list(SALES_HINTS))
            return
        say_contacts(ctx, sales=True)
        if ctx.link is None:
            ctx.switch("link", again=True)
        else:
            ctx.to_menu()


def asked_words(ctx: Context) -> str:
    """What the person asked a person for, in their words: the request itself when it says more than
    "a person, please", else the last thing they typed before it ("" when they typed nothing else).
    A button's label, a command or a file is not their words."""
    typed = [line for line in ctx.staff.recent if line.strip() and not line.startswith(("/", "["))]
    intents = default_intents()
    while typed and intents.only_asks(ctx.language, typed[-1], "human"):
        typed.pop()
    return typed[-1].strip() if typed else ""


def _short(words: str) -> str:
    """Words cut to a title's length, at a word where there is one."""
    if len(words) <= TITLE_WORDS:
        return words
    cut = words[:TITLE_WORDS].rsplit(" ", 1)[0] or words[:TITLE_WORDS]
    return f"{cut}…"


def say_contacts(ctx: Context, *, sales: bool) -> None:
    """How to reach the ISP without the bot: for ``sales``, its sales phone and address (else the
    support phone); otherwise the support phone and hours. Said plainly when the operator gave none."""
    policy = ctx.policy
    if sales and (policy.sales_phone or policy.sales_address):
        ctx.reply.say("human.sales_contacts", phone=policy.sales_phone, address=policy.sales_address)
    elif policy.support_phone:
        ctx.reply.say("human.sales_by_phone" if sales else "human.call_us", phone=policy.support_phone,
                      hours=policy.support_hours)
    else:
        ctx.reply.say("human.no_contact_sales" if sales else "human.no_contact")

