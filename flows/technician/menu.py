"""The technician's menu: the agenda first, the ticket in hand when there is one, and the actions.

The greeting names the person as they call themselves on the channel (Telegram's first name), not
the ISP login the chat speaks for: the ISP's user list holds no person's name."""

from __future__ import annotations

from flows.context import Context
from flows.flow import MENU_FLOWS, Chosen, Flow, Option, StepEvent, Steps, Unexpected


class Menu(Flow):
    name = "menu"
    commands = ("menu", "inicio")
    resting = True
    steps = Steps(begin=("choose",), choose=(MENU_FLOWS,))

    async def begin(self, ctx: Context) -> None:
        options = [Option(name, key=f"technician.menu_{name}") for name in ctx.menu]
        ctx.reply.ask("choose", "technician.menu", options, columns=2, name=ctx.sender_name or "",
                      ticket=ctx.current_ticket)

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=flow):
                ctx.switch(flow)
            case _:
                raise Unexpected("technician.pick_a_button")
