"""/unlink: forget which customer this chat speaks for, after a confirmation.

Choices where the spec is silent: an unlinked chat that asks to unlink is told it is not linked and
sent on (to linking, as every unlinked chat is). After unlinking, the goodbye is followed at once by
the greeting that asks how to link again (where every unlinked chat stands), so the next message is
read there: a tax id typed right away links, instead of being swallowed by a wait for "any message".
"""

from __future__ import annotations

from flows.context import Context
from flows.flow import TO_MENU, YES_NO, Answer, Chosen, Flow, Option, StepEvent, Steps, Unexpected


class Unlink(Flow):
    name = "unlink"
    requires_link = False  # answered in words when there is no link, rather than sent to linking
    commands = ("unlink", "desvincular")
    # A chat still saved in the old wait after the goodbye ("unlinked") is greeted by the engine, as
    # any chat whose step no longer exists.
    steps = Steps(begin=("confirm", TO_MENU), confirm=(YES_NO, TO_MENU))

    async def begin(self, ctx: Context) -> None:
        if ctx.link is None:
            ctx.reply.say("unlink.not_linked")
            ctx.to_menu()
            return
        options = [Option(True, key="unlink.yes"), Option(False, key="unlink.no")]
        ctx.reply.ask("confirm", "unlink.confirm", options, columns=2)

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=True) | Answer(value=True):
                await ctx.identity.unlink()
                ctx.reply.say("unlink.done")
                ctx.to_menu()  # the engine sends an unlinked chat on to linking: its greeting follows
            case Chosen(value=False) | Answer(value=False):
                ctx.reply.say("unlink.kept")
                ctx.to_menu()
            case _:
                raise Unexpected("unlink.pick_a_button")
