"""Contesting a charge: from a bill's card (or "contestar" and the bill picked), the reason in the
person's words becomes a ticket on the topic the operator names (``contest_topic``; else one whose
name says contest, billing or finance), recorded against the contact with the contested charge's
30-day deadline (``Deadline.CONTESTED_CHARGE``: staff are warned before it runs out), and the person
is told their rights in one line.

- Holding the amount back from collection has no operation in the ISP's web service (the finance
  group's ``document_delete`` and ``document_payment`` are back-office acts a chat bot must not
  take): the bot does not promise it. It says the bill stays open as it is until the answer, and
  that the ticket asks staff not to collect the contested amount meanwhile (what it does ask).
- The bill is remembered as contested (``ctx.records.record_contest``): every list and card of bills marks
  it with the date and the ticket's number (``marks``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from decimal import Decimal
from typing import Any

from markupsafe import Markup

from flows.contacts import Deadline
from flows.context import Context
from flows.events import Text
from flows.flow import TO_MENU, WORDS, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.subscriber.rights import record_ticket
from flows.subscriber.standing import say_standing

HINTS = ("contest", "cobran", "financ")  # a topic for contested charges, when the operator names none
CONTESTED = "charge_contested"  # what the contact came to (flows.contacts)
MAX_SHOWN = 6
MIN_REASON = 8  # characters: "errado" alone tells staff nothing


class Contest(Flow):
    name = "contest"
    commands = ("contestar", "contest", "impugnar")
    steps = Steps(
        begin=("bill", "reason", Switch("human"), TO_MENU),
        bill=("reason", TO_MENU),
        reason=(WORDS, Switch("human"), TO_MENU),  # "charged after I cancelled": a detail, not a cancel
    )

    async def begin(self, ctx: Context) -> None:
        if "document" in ctx.data:  # from a bill's card
            self._ask_reason(ctx)
            return
        await say_standing(ctx)
        documents = sorted(await ctx.coordinator.open_documents(ctx.customer),
                           key=lambda d: (d.Vencimento or date.max, d.Sequencia or 0))[:MAX_SHOWN]
        if not documents:  # a paid charge is contested with a person, who sees the payment
            ctx.reply.say("contest.no_open_bills")
            ctx.switch("human")
            return
        contested = await marks(ctx, [d.Documento for d in documents])
        options = [Option({"number": d.Documento, "due": d.Vencimento.isoformat() if d.Vencimento else None,
                           "value": str(d.Valor or 0)}, key="contest.bill_button",
                          vars={"value": d.Valor or 0, "due": d.Vencimento, "contested": d.Documento in contested})
                   for d in documents]
        ctx.reply.ask("bill", "contest.which_bill", options,
                      contested=[{"value": d.Valor or 0, "due": d.Vencimento, "mark": Markup(contested[d.Documento])}  # noqa: S704 - our own
                                 for d in documents if d.Documento in contested])

    async def bill(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Chosen):
            raise Unexpected("contest.pick_a_button")
        ctx.data["document"] = event.value
        self._ask_reason(ctx)

    async def reason(self, ctx: Context, event: StepEvent) -> None:
        if isinstance(event, Chosen):
            ctx.to_menu()
            return
        if not isinstance(event, Text) or len(event.text.strip()) < MIN_REASON:
            raise Unexpected("contest.reason_hint")
        bill = _bill(ctx.data["document"])
        words = " ".join(event.text.split())[:1000]
        text = ctx.isp_text("contest.isp_description", number=bill["number"], due=bill["due"], value=bill["value"],
                            words=words)
        ticket, protocol = await record_ticket(ctx, hints=_hints(ctx), contract=None,
                                               subject=ctx.isp_text("contest.isp_subject"), text=text)
        if ticket is None:
            ctx.reply.say("contest.failed")
            ctx.switch("human")
            return
        due_at = await ctx.records.record(self.name, CONTESTED, ticket=ticket, reference=str(protocol),
                                          deadline=Deadline.CONTESTED_CHARGE)
        if bill["number"] is not None:
            await ctx.records.record_contest(int(bill["number"]), ticket=ticket, protocol=str(protocol))
        until = (due_at or ctx.coordinator.now() + Deadline.CONTESTED_CHARGE.term).date()
        ctx.reply.say("contest.done", ticket=ticket, until=until, **bill)
        ctx.to_menu()

    def _ask_reason(self, ctx: Context) -> None:
        ctx.reply.ask("reason", "contest.reason", [Option("menu", key="contest.button_menu")],
                      **_bill(ctx.data["document"]))


async def marks(ctx: Context, numbers: Iterable[int | None]) -> dict[int, str]:
    """Bill number → "contested on DD/MM, ticket no. N" for the bills among these that were contested
    in the chat: what every list and card of bills says beside the bill."""
    found = await ctx.records.contested_bills(n for n in numbers if n is not None)
    zone = ctx.coordinator.zone
    return {number: ctx.text("contest.mark", at=contest.at.astimezone(zone).date(), ticket=contest.ticket)
            for number, contest in found.items()}


def _hints(ctx: Context) -> tuple[str, ...]:
    named = ctx.policy.contest_topic
    return (named, *HINTS) if named else HINTS


def _bill(kept: dict[str, Any]) -> dict[str, Any]:
    """The bill as the flow keeps it (JSON), as the templates read it."""
    return {"number": kept.get("number"), "due": date.fromisoformat(kept["due"]) if kept.get("due") else None,
            "value": Decimal(str(kept.get("value") or 0))}
