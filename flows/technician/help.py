"""The technician's own help: how a day goes with the bot (agenda, ticket in hand, actions) and the
commands that work anywhere. Then the menu."""

from __future__ import annotations

from flows.context import Context
from flows.flow import TO_MENU, Flow, Steps


class Help(Flow):
    name = "help"
    commands = ("ajuda", "help", "ayuda")
    steps = Steps(begin=(TO_MENU,))

    async def begin(self, ctx: Context) -> None:
        ctx.reply.say("technician.help")
        ctx.to_menu()
