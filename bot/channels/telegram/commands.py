"""The command menu Telegram shows behind the "/" button, per language and per role.

What each language lists lives in ``locales/<language>/commands.yaml`` ("command: description" per
flow, in menu order), so an operator renames or reorders a command without touching Python. A
role's menu holds the entries of its own flows whose command that flow really answers to, and the
``cancel`` entry (the engine's own command, every role's).

Subscribers' menu is the bot's default for private chats (``all_private_chats``), once per language
and once without a language (Brazilian Portuguese) for clients in any other language. A role with a
menu of its own (technicians) gets it per chat, with ``chat_scope_calls``, when the chat joins it.
"""

from __future__ import annotations

from flows.engine import CANCEL, RoleFlows

from bot.channels.telegram.render import ApiCall
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, Translations

# Telegram's language_code for each of our languages (it takes two-letter ISO 639-1 codes).
TELEGRAM_LANGUAGE = {"pt_BR": "pt", "en": "en", "es": "es"}


def command_menu(flows: RoleFlows, translations: Translations, language: str) -> list[dict[str, str]]:
    """``[{"command": ..., "description": ...}]`` for one role in one language."""
    menu: list[dict[str, str]] = []
    for flow_name, entry in translations.topic(language, "commands").items():
        flow = flows.flows.get(flow_name)
        command, _, description = entry.partition(":")
        command, description = command.strip().lstrip("/").lower(), description.strip()
        if flow is None and flow_name != "cancel":
            continue
        answers_to = flow.commands if flow is not None else CANCEL
        if command not in answers_to:
            raise ValueError(
                f"locales/{language}/commands.yaml: /{command} is not a command of the {flow_name} flow "
                f"(it answers to {', '.join(answers_to)})"
            )
        menu.append({"command": command, "description": description[:256] or command})
    return menu


def default_menu_calls(flows: RoleFlows, translations: Translations) -> list[ApiCall]:
    """``setMyCommands`` calls making ``flows`` the menu of every private chat, in every language."""
    scope = {"type": "all_private_chats"}
    calls = [
        ApiCall("setMyCommands", {"commands": command_menu(flows, translations, language), "scope": scope,
                                  "language_code": TELEGRAM_LANGUAGE[language]})
        for language in LANGUAGES
    ]
    calls.append(ApiCall("setMyCommands", {
        "commands": command_menu(flows, translations, DEFAULT_LANGUAGE), "scope": scope,
    }))
    return calls


def chat_scope_calls(chat_id: int, flows: RoleFlows, translations: Translations, language: str) -> list[ApiCall]:
    """The ``setMyCommands`` call giving one chat its role's menu (a technician, say)."""
    scope = {"type": "chat", "chat_id": chat_id}
    return [ApiCall("setMyCommands", {"commands": command_menu(flows, translations, language), "scope": scope})]
