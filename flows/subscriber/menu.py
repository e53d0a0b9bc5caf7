"""The menu: a button per flow, the customer's name and contract, and free text understood.

Free text reaches the flow it names (``flows.intents``); small talk gets a short kind answer and the
menu again (a greeting needs none: the menu greets by name); a text that names nothing is said to be
not understood rather than guessed at.
"""

from __future__ import annotations

from bot.isp import IspError

from flows.context import Context
from flows.events import Media, Text
from flows.flow import MENU_FLOWS, TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.intents import SMALL_TALK, default_intents
from flows.subscriber.paid import kept, receipt_of

# What small talk gets before the menu (a greeting gets the menu's own greeting).
SMALL_TALK_REPLIES = {"thanks": "menu.thanks", "ok": "menu.ok"}


class Menu(Flow):
    name = "menu"
    commands = ("menu", "inicio")
    resting = True
    # Besides its buttons, free text reaches the flows the intents name (a receipt, "paid").
    steps = Steps(
        begin=("choose",),
        choose=(MENU_FLOWS, Switch("invoices"), Switch("wifi_password"), Switch("cancel_plan"), Switch("paid"),
                TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        options = [Option(name, key=f"menu.{name}") for name in ctx.menu]
        name, contract = await self._who(ctx)
        ctx.ask("choose", "menu.prompt", options, columns=2, name=name, contract=contract)

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=flow):
                ctx.switch(flow)
            case Text(text=text) if (name := default_intents().match(ctx.language, text)) is not None:
                if name not in SMALL_TALK:
                    ctx.switch(name)
                    return
                if name in SMALL_TALK_REPLIES:
                    ctx.say(SMALL_TALK_REPLIES[name])
                ctx.to_menu()
            case Media() if (receipt := receipt_of(event)) is not None:  # a receipt sent out of the blue
                ctx.switch("paid", receipt=kept(receipt))
            case _:
                raise Unexpected("menu.not_understood")

    async def _who(self, ctx: Context) -> tuple[str, str]:
        """Name and contract plan for the greeting; the menu still works when the ISP does not."""
        try:
            customer = await ctx.coordinator.customer(ctx.customer)
            contracts = await ctx.coordinator.contracts(ctx.customer)
        except IspError:  # a refusal as much as an outage: the menu must not undo the step before it
            return "", ""
        chosen = ctx.link.contract if ctx.link else None
        contract = next((c for c in contracts if c.Numero == chosen), contracts[0] if len(contracts) == 1 else None)
        plan = f"{contract.Numero} · {contract.Plano_Descricao}" if contract else ""
        return (customer.Nome or "") if customer else "", plan
