"""Language: Portuguese, English or Spanish, kept for the chat from then on."""

from __future__ import annotations

from bot.i18n import LANGUAGES

from flows.context import Context
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Unexpected


class Language(Flow):
    name = "language"
    requires_link = False
    commands = ("language", "idioma")
    steps = Steps(begin=("choose",), choose=(TO_MENU,))

    async def begin(self, ctx: Context) -> None:
        options = [Option(lang, key=f"language.name_{lang}") for lang in LANGUAGES]
        ctx.reply.ask("choose", "language.prompt", options)

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Chosen):
            raise Unexpected("language.pick_a_button")
        ctx.set_language(str(event.value))
        ctx.reply.say("language.changed")
        ctx.to_menu()
