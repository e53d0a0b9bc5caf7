"""The "/" command menu: built per language from locales/*/commands.yaml, only commands flows answer to."""

from __future__ import annotations

import pytest
from bot.channels.telegram.commands import chat_scope_calls, command_menu, default_menu_calls
from bot.i18n import LANGUAGES, Translations, default_translations
from flows.engine import CANCEL
from flows.subscriber import subscriber_flows
from flows.technician import technician_flows


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_listed_command_is_one_its_flow_answers_to(language: str) -> None:
    flows = subscriber_flows()
    menu = command_menu(flows, default_translations(), language)
    assert len(menu) >= 8
    for entry in menu:
        assert any(entry["command"] in flow.commands for flow in flows.flows.values()) or entry["command"] in CANCEL
        assert entry["description"] and len(entry["description"]) <= 256


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_role_s_menu_offers_cancel_help_and_menu_in_its_language(language: str) -> None:
    for flows in (subscriber_flows(), technician_flows()):
        names = [entry["command"] for entry in command_menu(flows, default_translations(), language)]
        assert "menu" in names and any(name in CANCEL for name in names)
    names = [entry["command"] for entry in command_menu(subscriber_flows(), default_translations(), language)]
    assert {"pt_BR": "cancelar", "en": "cancel", "es": "cancelar"}[language] in names
    assert {"pt_BR": "ajuda", "en": "help", "es": "ayuda"}[language] in names


def test_each_language_lists_its_own_words_and_the_default_is_portuguese() -> None:
    calls = default_menu_calls(subscriber_flows(), default_translations())
    by_language = {call.params.get("language_code"): [c["command"] for c in call.params["commands"]] for call in calls}
    assert "boleto" in by_language["pt"] and "bills" in by_language["en"] and "factura" in by_language["es"]
    assert by_language[None] == by_language["pt"]
    assert all(call.params["scope"] == {"type": "all_private_chats"} for call in calls)


def test_a_chat_of_its_own_role_gets_a_chat_scoped_menu() -> None:
    [call] = chat_scope_calls(42, subscriber_flows(), default_translations(), "en")
    assert call.params["scope"] == {"type": "chat", "chat_id": 42}


def test_a_command_no_flow_answers_to_is_named_with_the_file_to_fix() -> None:
    translations = Translations()
    translations._sources["en"]["commands.bills"] = "invoices: Copy of a bill"
    with pytest.raises(ValueError, match=r"locales/en/commands.yaml: /invoices is not a command of the bills flow"):
        command_menu(subscriber_flows(), translations, "en")


def test_a_technicians_menu_lists_their_own_commands_not_the_subscribers() -> None:
    names = [entry["command"] for entry in command_menu(technician_flows(), default_translations(), "pt_BR")]
    assert "os" in names and "menu" in names
    assert "boleto" not in names


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_subscriber_finds_their_rights_in_the_menu_short_and_the_everyday_ones_first(language: str) -> None:
    names = [entry["command"] for entry in command_menu(subscriber_flows(), default_translations(), language)]
    rights = {
        "pt_BR": ("atendimentos", "meusdados", "cancelarplano"),
        "en": ("contacts", "mydata", "cancelplan"),
        "es": ("atenciones", "misdatos", "cancelarplan"),
    }[language]
    bills = {"pt_BR": "boleto", "en": "bills", "es": "factura"}[language]
    assert all(name in names for name in rights)
    assert all(names.index(bills) < names.index(name) for name in rights)
    assert len(names) <= 15  # a menu to read at a glance, not every command the bot has
