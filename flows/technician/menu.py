"""The technician's menu: the agenda first, the ticket in hand when there is one, and the actions."""

from __future__ import annotations

from flows.context import Context
from flows.flow import Chosen, Flow, Option, StepEvent, Unexpected


class Menu(Flow):
    name = "menu"
    commands = ("menu", "inicio")
    resting = True

    async def begin(self, ctx: Context) -> None:
        options = [Option(flow.name, key=f"technician.menu_{flow.name}") for flow in ctx.menu]
        ctx.ask("choose", "technician.menu", options, columns=2, user=ctx.system_user, ticket=ctx.current_ticket)

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=flow):
                ctx.switch(flow)
            case _:
                raise Unexpected("technician.pick_a_button")
