"""What a technician reads around the work: their own help, their name in the greeting, counts said
in the language's plural forms."""

from __future__ import annotations

from bot.channels.telegram.commands import command_menu
from bot.i18n import Translations
from flows.technician import technician_flows

from tests.flows.harness import Desk
from tests.flows.test_technician_work import in_hand


async def test_ajuda_gives_the_technicians_own_help_then_their_menu(desk: Desk) -> None:
    for language, command, words in (("pt-br", "ajuda", "Chamado em mãos"), ("en", "help", "Ticket in hand"),
                                     ("es", "ayuda", "Reclamo en mano")):
        chat = await desk.technician_chat(language=language)
        await chat.command(command)
        assert "conheço" not in chat.text and "know" not in chat.text
        assert words in chat.text and "/agenda" in chat.text
        assert any("Agenda" in label for label in chat.buttons)  # the menu follows


def test_the_technicians_command_menu_lists_help() -> None:
    menu = command_menu(technician_flows(), Translations(), "pt_BR")
    assert {"agenda", "os", "ajuda"} <= {entry["command"] for entry in menu}


async def test_the_greeting_names_the_person_not_the_login(desk: Desk) -> None:
    chat = await desk.technician_chat(name="João")
    await chat.command("menu")
    assert "Olá, João!" in chat.text and "tecnico.joao" not in chat.text
    nameless = await desk.technician_chat()
    await nameless.command("menu")
    assert "Olá!" in nameless.text and "tecnico.joao" not in nameless.text


async def test_the_checklist_counts_in_singular_and_plural(desk: Desk) -> None:
    chat = await in_hand(desk)
    await chat.tap("Checklist")
    assert "Faltam 2 obrigatórios." in chat.text and "(s)" not in chat.text
    await chat.tap("Conferir sinal")
    assert "Falta 1 obrigatório." in chat.text
