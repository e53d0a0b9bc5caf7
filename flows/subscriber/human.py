"""Talk to a person: the engine hands the conversation to the staff; until a person answers, the
subscriber knows one will."""

from __future__ import annotations

from flows.context import Context
from flows.flow import Flow


class Human(Flow):
    name = "human"
    commands = ("human", "atendente", "humano", "agente")
    menu_order = 70

    async def begin(self, ctx: Context) -> None:
        ctx.handoff("asked")
        ctx.say("human.requested")
        ctx.to_menu()
