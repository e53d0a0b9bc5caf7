"""Open a ticket: a known outage first, then topic, the problem in the person's words, confirmation.

- A contract that is not active is told first (``standing``), with "open a ticket anyway" among its
  buttons: a blocked subscriber may write about something else.
- The subject (``Assunto``) is the topic's name as the ISP wrote it, so tickets group by topic; the
  person's words go verbatim into the opening occurrence, capped at ``MAX_DESCRIPTION``. Without a
  topic in the subscriber center, a person instead: a ticket without one lands nowhere useful.
- Contract: the one chosen at linking, else the customer's only one, else none. A photo counts by
  its caption (the ticket cannot carry the picture).
- The protocol is the ticket's one name towards the subscriber (what the ISP's staff ask for on the
  phone); when reading it fails the number is told: nothing may fail after the write. What the
  subscriber writes next is added to the ticket (``follow_ticket``).
- The opening is written with ``ctx.write_once``: its read-back looks for a ticket of the same
  subject opened since shortly before the try.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from bot.isp.models.v1_records import TicketTopic

from flows.context import Context
from flows.events import Media, Text
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.intents import normalise
from flows.subscriber.connection import OUTAGE_LEADS, answer_outage, look_at_network, offer_outage
from flows.subscriber.standing import STANDING_LEADS, answer_standing, tell_standing
from flows.writes import CLOCK_SLACK, Found, Wait

MAX_DESCRIPTION = 2000
WIFI_WORDS = ("wifi", "wi fi", "senha")  # in a topic's name, accents and punctuation folded


class NewTicket(Flow):
    name = "new_ticket"
    commands: ClassVar[tuple[str, ...]] = ("chamado", "abrirchamado", "ticket", "reclamo")
    steps = Steps(
        begin=("standing", "outage", "topic", Switch("human")),
        standing=("topic", Switch("human"), *STANDING_LEADS),
        outage=("topic", Switch("human"), *OUTAGE_LEADS),
        topic=("describe",),
        describe=("confirm",),
        confirm=("describe", "topic", Switch("follow_ticket"), Switch("human"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        known = await ctx.coordinator.outage_on_record(ctx.customer)  # first: in a surge it costs no read per customer
        if known is None and await tell_standing(ctx, "standing", ticket_anyway=True):
            return
        network = await look_at_network(ctx)
        if network.outage is not None:
            offer_outage(ctx, "outage", network.outage, ticket_anyway=True)
            return
        await self._ask_topic(ctx)

    async def outage(self, ctx: Context, event: StepEvent) -> None:
        if isinstance(event, Chosen) and event.value == "ticket":
            await self._ask_topic(ctx)
        else:
            await answer_outage(ctx, event)

    async def standing(self, ctx: Context, event: StepEvent) -> None:
        if isinstance(event, Chosen) and event.value == "ticket":  # not about the connection, say
            await self._ask_topic(ctx)
        else:
            await answer_standing(ctx, event)

    async def topic(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Chosen):
            raise Unexpected("new_ticket.pick_a_topic")
        ctx.data["topic"], ctx.data["subject"] = event.value, event.label
        ctx.ask("describe", "new_ticket.describe", topic=event.label)

    async def describe(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Text(text=words) | Media(caption=words) if words.strip():
                ctx.data["description"] = words.strip()[:MAX_DESCRIPTION]
            case _:
                raise Unexpected("new_ticket.describe_in_words")
        self._ask_confirm(ctx, "new_ticket.confirm")

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="open"):
                await self._open(ctx)
            case Chosen(value="edit"):
                ctx.ask("describe", "new_ticket.describe", topic=ctx.data["subject"])
            case Chosen(value="cancel"):
                ctx.say("new_ticket.cancelled")
                ctx.to_menu()
            case _:
                raise Unexpected("new_ticket.use_the_buttons")

    async def _ask_topic(self, ctx: Context) -> None:
        topics = [t for t in await ctx.coordinator.subscriber_topics() if t.Codigo is not None and t.Nome]
        if not topics:
            ctx.say("new_ticket.no_topics")
            ctx.switch("human")
            return
        ctx.ask("topic", "new_ticket.choose_topic", [Option(t.Codigo, text=t.Nome) for t in topics])

    def _ask_confirm(self, ctx: Context, key: str) -> None:
        options = [
            Option("open", key="new_ticket.button_open"), Option("edit", key="new_ticket.button_edit"),
            Option("cancel", key="new_ticket.button_cancel"),
        ]
        ctx.ask("confirm", key, options, topic=ctx.data["subject"], description=ctx.data["description"])

    async def _open(self, ctx: Context) -> None:
        customer, subject = ctx.customer, ctx.data["subject"]
        write = ctx.write_once("opening", ask=lambda key: self._ask_confirm(ctx, key),
                               unsure="new_ticket.unsure", wait="new_ticket.not_yet")
        match await write.recall(lambda tried: self._landed(ctx, subject, tried)):
            case Found(value=(number, protocol)):
                self._opened(ctx, number, protocol)
                return
            case Wait():
                return
        topic = await self._topic(ctx)
        if topic is None:  # withdrawn from the subscriber center since it was offered
            ctx.say("new_ticket.topic_gone")
            await self._ask_topic(ctx)
            return
        contract = await self._contract(ctx)
        sent = await write.send(lambda: ctx.coordinator.open_ticket(
            customer=customer, contract=contract, topic=topic, subject=subject,
            description=ctx.data["description"], mode=ctx.policy.ticket_mode, user=ctx.policy.isp_user,
        ))
        if sent is not None:
            self._opened(ctx, sent.value, await ctx.coordinator.protocol(customer, sent.value))

    def _opened(self, ctx: Context, number: int, protocol: int | None) -> None:
        ctx.set_current_ticket(number)
        ctx.say("new_ticket.opened", protocol=protocol or number, topic=ctx.data["subject"])
        ctx.switch("follow_ticket", protocol=protocol or number)

    async def _topic(self, ctx: Context) -> TicketTopic | None:
        return next((t for t in await ctx.coordinator.subscriber_topics() if t.Codigo == ctx.data["topic"]), None)

    async def _contract(self, ctx: Context) -> int | None:
        if ctx.link is not None and ctx.link.contract is not None:
            return ctx.link.contract
        contracts = await ctx.coordinator.contracts(ctx.customer)
        return contracts[0].Numero if len(contracts) == 1 else None

    async def _landed(self, ctx: Context, subject: str, tried: datetime) -> tuple[int, int | None] | None:
        """The number and protocol of the ticket a timed-out opening created, if it did (fresh from
        the ISP, not the cache)."""
        ctx.coordinator.forget(ctx.customer)
        since = tried.astimezone(ctx.coordinator.zone).replace(tzinfo=None) - CLOCK_SLACK
        return next(
            ((t.Numero, t.Protocolo) for t in await ctx.coordinator.tickets(ctx.customer)
             if t.Numero is not None and t.Assunto == subject
             and t.Abertura_DataHora is not None and t.Abertura_DataHora >= since),
            None,
        )


class WifiPassword(NewTicket):
    """A ticket about the Wi-Fi password, its topic already chosen; a person where there is no such topic."""

    name = "wifi_password"
    commands = ()
    steps = NewTicket.steps.but(begin=("describe", Switch("human")))

    async def begin(self, ctx: Context) -> None:
        topics = [t for t in await ctx.coordinator.subscriber_topics() if t.Codigo is not None and t.Nome]
        topic = next((t for t in topics if any(w in " ".join(normalise(t.Nome or "")) for w in WIFI_WORDS)), None)
        if topic is None:
            ctx.say("new_ticket.wifi_by_person")
            ctx.switch("human")
            return
        ctx.data["topic"], ctx.data["subject"] = topic.Codigo, topic.Nome
        ctx.ask("describe", "new_ticket.describe", topic=topic.Nome)
