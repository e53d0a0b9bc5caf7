"""Sentences a person reads and could stumble on: the help names what the bot does and only commands
that exist, a technician is told the command of their language, a tip reads as Portuguese."""

from __future__ import annotations

import re

import pytest
from bot.i18n import Translations, plain_text
from flows.engine import CANCEL
from flows.subscriber import subscriber_flows
from flows.technician import technician_flows

from tests.flows.harness import Desk

TEXTS = Translations()


@pytest.mark.parametrize(("language", "paid", "invoices"), [
    ("pt-br", "já paguei", "nota fiscal"), ("en", "I have paid", "nota fiscal"), ("es", "ya pagué", "nota fiscal"),
])
async def test_help_tells_of_reporting_a_payment_and_of_fiscal_invoices(
    desk: Desk, language: str, paid: str, invoices: str,
) -> None:
    chat = await desk.linked_chat(language=language)
    await chat.command("ajuda")
    assert paid in chat.text and invoices in chat.text
    await chat.say(paid)  # what the help says to write does what it says
    assert "boleto" in chat.text.lower() or "bill" in chat.text.lower() or "factura" in chat.text.lower()
    assert "Qual boleto" in chat.text or "Which bill" in chat.text or "¿Qué factura" in chat.text


@pytest.mark.parametrize("language", ["pt_BR", "en", "es"])
def test_every_command_the_help_names_exists(language: str) -> None:
    known = set(subscriber_flows().commands) | set(CANCEL) | {"menu", "start"}
    for linked in (True, False):
        named = set(re.findall(r"/(\w+)", plain_text(TEXTS.render(language, "help.text", linked=linked))))
        assert named <= known, f"{language}: {sorted(named - known)}"


@pytest.mark.parametrize("language", ["pt_BR", "en", "es"])
def test_technicians_are_told_only_commands_that_exist_in_their_language(language: str) -> None:
    cancel = "cancel" if language == "en" else "cancelar"  # both work; the help names the language's own
    assert f"/{cancel} " in TEXTS.render(language, "technician.help")
    known = set(technician_flows().commands) | {cancel, "menu", "start"}
    samples = TEXTS.samples()
    for key in sorted(k for k in TEXTS.keys(language) if k.startswith("technician")):
        named = set(re.findall(r"(?<![\w/])/(\w+)", plain_text(TEXTS.render(language, key, **samples.get(key, {})))))
        assert named <= known, (language, key, sorted(named - known))


def test_the_connection_tips_read_as_portuguese() -> None:
    text = TEXTS.render("pt_BR", "connection.online")
    assert "aparelhos que você não está usando" in text
