"""/unlink: forget which customer this chat speaks for, after a confirmation.

Choices where the spec is silent: an unlinked chat that asks to unlink is told it is not linked and
sent on (to linking, as every unlinked chat is). After unlinking the bot waits for the person's next
message before greeting them for a new link, so the goodbye is the last thing they read.
"""

from __future__ import annotations

from flows.context import Context
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Unexpected


class Unlink(Flow):
    name = "unlink"
    requires_link = False  # answered in words when there is no link, rather than sent to linking
    commands = ("unlink", "desvincular")
    steps = Steps(begin=("confirm", TO_MENU), confirm=("unlinked", TO_MENU), unlinked=(TO_MENU,))

    async def begin(self, ctx: Context) -> None:
        if ctx.link is None:
            ctx.say("unlink.not_linked")
            ctx.to_menu()
            return
        options = [Option(True, key="unlink.yes"), Option(False, key="unlink.no")]
        ctx.ask("confirm", "unlink.confirm", options, columns=2)

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=True):
                await ctx.unlink()
                ctx.ask("unlinked", "unlink.done")
            case Chosen(value=False):
                ctx.say("unlink.kept")
                ctx.to_menu()
            case _:
                raise Unexpected("unlink.pick_a_button")

    async def unlinked(self, ctx: Context, event: StepEvent) -> None:
        ctx.to_menu()  # the engine sends an unlinked chat on to linking
