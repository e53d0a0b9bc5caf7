"""Help: what the bot can do and the commands that reach each thing directly."""

from __future__ import annotations

from flows.context import Context
from flows.flow import TO_MENU, Flow, Steps


class Help(Flow):
    name = "help"
    requires_link = False
    commands = ("help", "ajuda", "ayuda")
    steps = Steps(begin=(TO_MENU,))

    async def begin(self, ctx: Context) -> None:
        ctx.reply.say("help.text", linked=ctx.link is not None)
        if ctx.link is not None:
            ctx.to_menu()
