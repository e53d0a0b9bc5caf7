"""The menu: a button per flow, the customer's name and contract, and free text understood.

Free text reaches the flow it names (``flows.intents``); small talk gets a short kind answer and the
menu again (a greeting needs none: the menu greets by name; a goodbye gets a goodbye alone); a text
that names nothing is said to be not understood rather than guessed at. The greeting (name,
contract) is kept in the menu's data and shown again unread when the chat comes straight back from
being told an outage (see ``GREETING``).

A contract blocked for non-payment is said in the greeting, with the overdue total due today that
unblocks it (``standing.overdue_total``: the amount the bills' cards and PIX codes carry): the
person who opens the menu of a blocked contract wants that first. The contract is the chat's own,
else the only one, else the blocked one among several. A contract otherwise not active (cancelled,
suspended, awaiting installation: ``standing.inactive_among``) is said there in one line too.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from bot.isp import IspError
from bot.isp.models.v1_records import ContractStatus
from markupsafe import Markup

from flows.context import Context
from flows.events import Media, Text
from flows.flow import MENU_FLOWS, TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.intents import SMALL_TALK, default_intents
from flows.subscriber.paid import kept, receipt_of
from flows.subscriber.standing import inactive_among, overdue_total

# What small talk gets before the menu (a greeting gets the menu's own greeting).
SMALL_TALK_REPLIES = {"thanks": "menu.thanks", "ok": "menu.ok", "bye": "menu.bye"}
# Small talk that ends the conversation: said, and the menu not shown again (it waits as it was).
PARTING = frozenset({"bye"})
# The menu's greeting (name, contract) as last shown, in its data and handed to the flows that may
# come straight back after telling an outage (``flows.subscriber.connection.answer_outage``): in a
# surge thousands press "tell me when it's back", and the menu after it would read each customer.
GREETING = "greeting"
CARRY_GREETING = frozenset({"connection", "new_ticket"})


class Menu(Flow):
    name = "menu"
    commands = ("menu", "inicio")
    resting = True
    # Besides its buttons, free text reaches the flows the intents name (a receipt, "paid").
    steps = Steps(
        begin=("choose",),
        choose=(MENU_FLOWS, Switch("invoices"), Switch("wifi_password"), Switch("cancel_plan"), Switch("paid"),
                Switch("sales"), Switch("suspend"), Switch("restart"),
                Switch("contest"), Switch("paid_bills"), Switch("statement"), Switch("company"),
                Switch("notices_off"), Switch("notices_on"), Switch("router"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        options = [Option(name, key=f"menu.{name}") for name in ctx.menu]
        greeting = ctx.data.get(GREETING) or await self._who(ctx)
        if greeting is not None:
            ctx.data[GREETING] = list(greeting)
        name, contract, blocked, owed, standing = (*(greeting or ("", "")), None, None, None)[:5]
        ctx.reply.ask("choose", "menu.prompt", options, columns=2, name=name, contract=contract, blocked=blocked,
                      owed=Decimal(owed) if owed else None,
                      standing=Markup(standing) if standing else None)  # noqa: S704 - our own rendered template

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=flow):
                ctx.switch(flow, **_carried(ctx, flow))
            case Text(text=text) if (name := default_intents().match(ctx.language, text)) is not None:
                if name == "link":  # identifying oneself, already identified: the menu greets by name
                    ctx.to_menu()
                    return
                if name not in SMALL_TALK:
                    ctx.switch(name, **_carried(ctx, name))
                    return
                if name in SMALL_TALK_REPLIES:
                    ctx.reply.say(SMALL_TALK_REPLIES[name])
                if name not in PARTING:
                    ctx.to_menu()
            case Media() if (receipt := receipt_of(event)) is not None:  # a receipt sent out of the blue
                ctx.switch("paid", receipt=kept(receipt))
            case _:
                raise Unexpected("menu.not_understood")

    async def _who(self, ctx: Context) -> tuple[str, str, int | None, str | None, str | None] | None:
        """Name and contract plan for the greeting, and a contract blocked for non-payment with what
        unblocks it, or the standing of one otherwise not active (cancelled, suspended, awaiting
        installation) in words (None when the ISP could not say: the menu still works when the ISP
        does not)."""
        try:
            customer = await ctx.coordinator.customer(ctx.customer)
            contracts = await ctx.coordinator.contracts(ctx.customer)
        except IspError:  # a refusal as much as an outage: the menu must not undo the step before it
            return None
        chosen = ctx.link.contract if ctx.link else None
        contract = next((c for c in contracts if c.Numero == chosen), contracts[0] if len(contracts) == 1 else None)
        plan = f"{contract.Numero} · {contract.Plano_Descricao}" if contract else ""
        name = (customer.Nome or "") if customer else ""
        candidates = [contract] if contract else contracts
        blocked = next((c.Numero for c in candidates if c.Situacao_Codigo is ContractStatus.BLOCKED), None)
        if blocked is None:
            inactive = inactive_among(contracts, chosen)
            if inactive is None or inactive.Situacao_Codigo is ContractStatus.BLOCKED:
                return name, plan, None, None, None
            status = inactive.Situacao_Codigo
            standing = ctx.text(f"standing.status_{status.value if status else 'other'}", number=inactive.Numero,
                                plan="")
            return name, plan, None, None, standing
        try:
            owed, overdue = await overdue_total(ctx)
        except IspError:  # the block is still said, without the amount
            return name, plan, blocked, None, None
        return name, plan, blocked, (str(owed) if overdue else None), None


def carried_greeting(ctx: Context) -> dict[str, Any]:
    """The greeting a flow was handed by the menu, for going back to it unchanged (see ``GREETING``)."""
    greeting = ctx.data.get(GREETING)
    return {GREETING: greeting} if greeting else {}


def _carried(ctx: Context, flow: str) -> dict[str, Any]:
    return carried_greeting(ctx) if flow in CARRY_GREETING else {}
