"""The notices a person receives, in words: "parar avisos" (``notices_off``) and "quero receber
avisos de novo" (``notices_on``), for every kind or one group of them; "Meus dados" shows the choice.
A bare "stop" ("parar", "pare") at the menu stops every kind at once (the engine's ``_stops_notices``).

The groups a person chooses between are what they would name: bills (the reminder before the due date
and the overdue notice), payments received, outages. An opt-out of all is one row (``ALL_KINDS``),
so a kind added later is not sent to someone who asked for none. The round (``flows.notices``) reads
the opt-outs before each notice: one asked for is honoured from the next round on.
"""

from __future__ import annotations

from flows.context import Context
from flows.engine import EVERY_NOTICE
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Unexpected
from flows.notices import BILL_DUE, BILL_OVERDUE, OUTAGE_STARTED, PAYMENT_RECEIVED

ALL, MENU = "all", "menu"  # ALL is bot.store.ALL_KINDS: the opt-out of every kind
GROUPS: dict[str, tuple[str, ...]] = {
    "bills": (BILL_DUE, BILL_OVERDUE),
    "payments": (PAYMENT_RECEIVED,),
    "outages": (OUTAGE_STARTED,),
}


def refused_groups(opted_out: set[str]) -> list[str]:
    """The groups a chat with these opt-outs does not receive, in order (every one after "all")."""
    if ALL in opted_out:
        return list(GROUPS)
    return [group for group, kinds in GROUPS.items() if set(kinds) <= opted_out]


def _options(groups: list[str]) -> list[Option]:
    return [Option(ALL, key="notices.button_all"), *(Option(g, key=f"notices.button_{g}") for g in groups),
            Option(MENU, key="notices.button_menu")]


def _chosen(event: StepEvent) -> str:
    if not isinstance(event, Chosen) or event.value not in (ALL, MENU, *GROUPS):
        raise Unexpected("notices.pick_a_button")
    return str(event.value)


class NoticesOff(Flow):
    name = "notices_off"
    commands = ("pararavisos", "stopnotices", "desactivaravisos")
    steps = Steps(begin=("which", TO_MENU), which=(TO_MENU,))

    async def begin(self, ctx: Context) -> None:
        if ctx.data.get(EVERY_NOTICE):  # a bare "stop" at the menu: every kind, nothing asked
            await ctx.records.opt_out(ALL)
            ctx.reply.say("notices.stopped", group=ALL)
            ctx.to_menu()
            return
        ctx.reply.ask("which", "notices.which_off", _options(list(GROUPS)), columns=1)

    async def which(self, ctx: Context, event: StepEvent) -> None:
        chosen = _chosen(event)
        if chosen != MENU:
            for kind in GROUPS.get(chosen, (ALL,)):
                await ctx.records.opt_out(kind)
            ctx.reply.say("notices.stopped", group=chosen)
        ctx.to_menu()


class NoticesOn(Flow):
    name = "notices_on"
    commands = ("avisos", "notices")
    steps = Steps(begin=("which", TO_MENU), which=(TO_MENU,))

    async def begin(self, ctx: Context) -> None:
        refused = refused_groups(await ctx.records.opt_outs())
        if not refused:
            ctx.reply.say("notices.all_on")
            ctx.to_menu()
            return
        ctx.reply.ask("which", "notices.which_on", _options(refused if len(refused) > 1 else []), columns=1,
                      refused=[ctx.text(f"notices.button_{g}") for g in refused])

    async def which(self, ctx: Context, event: StepEvent) -> None:
        chosen = _chosen(event)
        if chosen != MENU:
            opted_out = await ctx.records.opt_outs()
            if chosen != ALL and ALL in opted_out:  # "all" becomes every group but this one
                for kind in (k for group, kinds in GROUPS.items() if group != chosen for k in kinds):
                    await ctx.records.opt_out(kind)
            for kind in GROUPS.get(chosen, (ALL,)):
                await ctx.records.opt_in(kind)
            ctx.reply.say("notices.resumed", group=chosen)
        ctx.to_menu()
