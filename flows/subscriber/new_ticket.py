"""Open a ticket: topic, a known outage when it concerns it, the problem in the person's words, confirmation.

- A contract that is not active is told first (``standing``), with "open a ticket anyway".
- The topic question offers "Outro" and keeps a problem typed instead of a topic as the description,
  then asks the topic once more. A bill topic leads to the bills. A known outage is told only for a
  connection topic. "Outro" opens on the ISP's general topic, else a person takes what was written.
- The subject is the topic's name as the ISP wrote it; the person's words go verbatim into the
  opening occurrence (``MAX_DESCRIPTION``). Without a subscriber-center topic, a person instead.
- A photo at the topic or the description is the problem's, never a receipt; its caption describes it.
- Contract: the one chosen at linking, else the customer's only one, else none.
- The ticket is told by its number, labelled a ticket (the protocol is the contact's, told when the
  contact began): known from the write itself, so nothing may fail after it. What the subscriber writes next is
  added to the ticket (``follow_ticket``). The opening is written with ``ctx.write_once``: its
  read-back looks for a ticket of the same subject opened since shortly before the try.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from bot.isp.models.v1_records import TicketTopic

from flows.contacts import TICKET_OPENED, Deadline
from flows.context import Context
from flows.events import Media, Text
from flows.flow import FILES, TO_MENU, WORDS, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.intents import SMALL_TALK, default_intents
from flows.subscriber.connection import OUTAGE_LEADS, answer_outage, look_at_network, offer_outage
from flows.subscriber.standing import STANDING_LEADS, answer_standing, tell_standing
from flows.words import normalise, plain_words
from flows.writes import CLOCK_SLACK, Found, Wait

MAX_DESCRIPTION = 2000
WIFI_WORDS = ("wifi", "wi fi", "senha")  # in a topic's name, accents and punctuation folded
BILL_WORDS = ("boleto", "segunda via", "2 via", "fatura")  # a topic the bills answer, not a ticket
CONNECTION_WORDS = ("conexao", "internet", "lentidao", "lento", "sinal", "queda", "velocidade", "oscila")
GENERAL_WORDS = ("outro", "geral", "duvida", "atendimento", "suporte")  # where "Outro" lands, if anywhere
OTHER = "other"


class NewTicket(Flow):
    name = "new_ticket"
    commands: ClassVar[tuple[str, ...]] = ("chamado", "abrirchamado", "ticket", "reclamo")
    steps = Steps(
        begin=("standing", "topic", Switch("human")),
        standing=("topic", Switch("human"), *STANDING_LEADS),
        topic=(WORDS, FILES, "outage", "describe", "confirm", Switch("bills"), Switch("human")),
        outage=("describe", "confirm", Switch("human"), *OUTAGE_LEADS),
        describe=(WORDS, FILES, "confirm", Switch("human")),
        confirm=("describe", "topic", Switch("follow_ticket"), Switch("human"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        if await tell_standing(ctx, "standing", ticket_anyway=True):  # before an outage: see ``connection``
            return
        await self._ask_topic(ctx)

    async def outage(self, ctx: Context, event: StepEvent) -> None:
        if isinstance(event, Chosen) and event.value == "ticket":
            self._ask_details(ctx)
        else:
            await answer_outage(ctx, event)

    async def standing(self, ctx: Context, event: StepEvent) -> None:
        if isinstance(event, Chosen) and event.value == "ticket":  # not about the connection, say
            await self._ask_topic(ctx)
        else:
            await answer_standing(ctx, event)

    async def topic(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="other"):
                ctx.data["topic"], ctx.data["subject"] = OTHER, event.label
                self._ask_details(ctx)
            case Chosen() if _about(event.label, BILL_WORDS):
                ctx.reply.say("new_ticket.bills_instead", topic=event.label)
                ctx.switch("bills")
            case Chosen(value=code):
                ctx.data["topic"], ctx.data["subject"] = code, event.label
                network = await look_at_network(ctx) if _about(event.label, CONNECTION_WORDS) else None
                if network is not None and network.outage is not None:
                    offer_outage(ctx, "outage", network.outage, ticket_anyway=True)
                    return
                self._ask_details(ctx)
            case Text(text=text) | Media(caption=text) if _a_description(ctx, text):
                # The problem typed instead of a topic: kept, so only the topic is asked for.
                ctx.data["description"] = text.strip()[:MAX_DESCRIPTION]
                await self._ask_topic(ctx, "new_ticket.topic_for_description")
            case _:
                raise Unexpected("new_ticket.pick_a_topic")

    async def describe(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Text(text=words) | Media(caption=words) if words.strip():
                ctx.data["description"] = words.strip()[:MAX_DESCRIPTION]
            case _:
                raise Unexpected("new_ticket.describe_in_words")
        await self._after_description(ctx)

    def _ask_details(self, ctx: Context) -> None:
        """The topic is known: the description, unless it was typed already."""
        if ctx.data.get("description"):
            self._ask_confirm(ctx, "new_ticket.confirm")
        elif ctx.data["topic"] == OTHER:
            ctx.reply.ask("describe", "new_ticket.describe_other")
        else:
            ctx.reply.ask("describe", "new_ticket.describe", topic=ctx.data["subject"])

    async def _after_description(self, ctx: Context) -> None:
        if ctx.data["topic"] == OTHER:
            general = await self._general_topic(ctx)
            if general is None:
                # No topic of the ISP fits "Outro": a person reads what was written (the card shows it).
                ctx.reply.say("new_ticket.other_by_person")
                ctx.switch("human")
                return
            ctx.data["subject"] = general.Nome  # tickets group by the ISP's own topic name
        self._ask_confirm(ctx, "new_ticket.confirm")

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="open"):
                await self._open(ctx)
            case Chosen(value="edit"):
                ctx.reply.ask("describe", "new_ticket.describe", topic=ctx.data["subject"])
            case Chosen(value="cancel"):
                ctx.reply.say("new_ticket.cancelled")
                ctx.to_menu()
            case _:
                raise Unexpected("new_ticket.use_the_buttons")

    async def _ask_topic(self, ctx: Context, key: str = "new_ticket.choose_topic") -> None:
        topics = [t for t in await ctx.coordinator.subscriber_topics() if t.Codigo is not None and t.Nome]
        if not topics:
            ctx.reply.say("new_ticket.no_topics")
            ctx.switch("human")
            return
        options = [Option(t.Codigo, text=t.Nome) for t in topics if not _about(t.Nome or "", GENERAL_WORDS)]
        options.append(Option(OTHER, key="new_ticket.button_other"))
        ctx.reply.ask("topic", key, options, description=ctx.data.get("description", ""))

    def _ask_confirm(self, ctx: Context, key: str) -> None:
        options = [
            Option("open", key="new_ticket.button_open"), Option("edit", key="new_ticket.button_edit"),
            Option("cancel", key="new_ticket.button_cancel"),
        ]
        ctx.reply.ask("confirm", key, options, topic=ctx.data["subject"], description=ctx.data["description"])

    async def _open(self, ctx: Context) -> None:
        customer, subject = ctx.customer, ctx.data["subject"]
        write = ctx.write_once("opening", ask=lambda key: self._ask_confirm(ctx, key),
                               unsure="new_ticket.unsure", wait="new_ticket.not_yet")
        match await write.recall(lambda tried: self._landed(ctx, subject, tried)):
            case Found(value=number):
                await self._opened(ctx, number)
                return
            case Wait():
                return
        topic = await self._topic(ctx)
        if topic is None:  # withdrawn from the subscriber center since it was offered
            ctx.reply.say("new_ticket.topic_gone")
            await self._ask_topic(ctx)
            return
        contract = await self._contract(ctx)
        sent = await write.send(lambda: ctx.coordinator.open_ticket(
            customer=customer, contract=contract, topic=topic, subject=subject,
            description=ctx.data["description"], mode=ctx.policy.ticket_mode, user=ctx.policy.isp_user,
        ))
        if sent is not None:
            await self._opened(ctx, sent.value)

    async def _opened(self, ctx: Context, number: int) -> None:
        # The ticket is told by its own number, labelled a ticket ("protocol" is the contact's).
        # A problem reported is a complaint: answered within the regulation's shorter term.
        ctx.set_current_ticket(number)
        await ctx.records.record(self.name, TICKET_OPENED, ticket=number, deadline=Deadline.COMPLAINT)
        ctx.reply.say("new_ticket.opened", ticket=number, topic=ctx.data["subject"])
        ctx.switch("follow_ticket", ticket=number)

    async def _topic(self, ctx: Context) -> TicketTopic | None:
        if ctx.data["topic"] == OTHER:
            return await self._general_topic(ctx)
        return next((t for t in await ctx.coordinator.subscriber_topics() if t.Codigo == ctx.data["topic"]), None)

    async def _general_topic(self, ctx: Context) -> TicketTopic | None:
        """The ISP's topic for anything else ("Outros assuntos", "Dúvidas"), if the subscriber center has one."""
        return next((t for t in await ctx.coordinator.subscriber_topics()
                     if t.Codigo is not None and _about(t.Nome or "", GENERAL_WORDS)), None)

    async def _contract(self, ctx: Context) -> int | None:
        if ctx.link is not None and ctx.link.contract is not None:
            return ctx.link.contract
        contracts = await ctx.coordinator.contracts(ctx.customer)
        return contracts[0].Numero if len(contracts) == 1 else None

    async def _landed(self, ctx: Context, subject: str, tried: datetime) -> int | None:
        """The number of the ticket a timed-out opening created, if it did (fresh from the ISP, not
        the cache)."""
        ctx.coordinator.forget(ctx.customer)
        since = tried.astimezone(ctx.coordinator.zone).replace(tzinfo=None) - CLOCK_SLACK
        return next(
            (t.Numero for t in await ctx.coordinator.tickets(ctx.customer)
             if t.Numero is not None and t.Assunto == subject
             and t.Abertura_DataHora is not None and t.Abertura_DataHora >= since),
            None,
        )


def _about(name: str, words: tuple[str, ...]) -> bool:
    """Whether a topic's name says one of ``words`` (accents and punctuation folded)."""
    folded = " ".join(normalise(name))
    return any(word in folded for word in words)


def _a_description(ctx: Context, text: str) -> bool:
    """Whether typed text reads as a problem told (two words at least), not a greeting or a stray word."""
    if default_intents().plainly(ctx.language, text) in SMALL_TALK:
        return False
    return len(plain_words(text)) >= 2


class WifiPassword(NewTicket):
    """A ticket about the Wi-Fi password, its topic already chosen; a person where there is no such topic."""

    name = "wifi_password"
    commands = ()
    steps = NewTicket.steps.but(begin=("describe", Switch("human"), Switch("wifi")))

    async def begin(self, ctx: Context) -> None:
        if ctx.acs is not None:  # the ISP's ACS changes it from the chat
            ctx.switch("wifi")
            return
        topics = [t for t in await ctx.coordinator.subscriber_topics() if t.Codigo is not None and t.Nome]
        topic = next((t for t in topics if any(w in " ".join(normalise(t.Nome or "")) for w in WIFI_WORDS)), None)
        if topic is None:
            ctx.reply.say("new_ticket.wifi_by_person")
            ctx.switch("human")
            return
        ctx.data["topic"], ctx.data["subject"] = topic.Codigo, topic.Nome
        ctx.reply.ask("describe", "new_ticket.describe", topic=topic.Nome)
