"""``.env.example``: every setting the bot reads, with its meaning and default, written from the
settings classes themselves so the file cannot drift from them (a test compares the two).

    python -m bot.env_example > .env.example

Run in a checkout, it also lists the variables ``compose.yaml`` takes from ``.env`` (``${NAME}``
in it) besides the settings; run where ispbot is only installed, it writes the bot's settings
alone, a ``.env`` to fill in.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings

from bot.acs import AcsSettings
from bot.channels.telegram.settings import TelegramSettings
from bot.channels.whatsapp.settings import WhatsAppSettings
from bot.desks.chatwoot.settings import ChatwootSettings
from bot.isp import IspSettings
from bot.settings import BotSettings

SECTIONS: tuple[tuple[str, type[BaseSettings]], ...] = (
    ("Telegram and the bot's web server", TelegramSettings),
    ("WhatsApp (the web server, concurrency and logs above serve it too)", WhatsAppSettings),
    ("The ISP's web service", IspSettings),
    ("The database and the bot's policy", BotSettings),
    ("The staff desk in Chatwoot (with ISPBOT_STAFF_DESK=chatwoot)", ChatwootSettings),
    ("The ISP's ACS (GenieACS's NBI): the router and its Wi-Fi from the chat", AcsSettings),
)
HEADER = """\
# ispbot's settings. Copy this file to .env in the folder ispbot runs from, or set the variables in the
# environment (which wins over .env); every command reads them the same way. A line left commented
# (or empty) keeps the default it shows; the uncommented ones have no default and must be filled in.
# Written by `python -m bot.env_example > .env.example` from the settings themselves: edit those."""
_COMPOSE_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}")


def _value(default: Any) -> str:
    if default is None:
        return ""
    if isinstance(default, bool):
        return str(default).lower()
    return str(default)


def _variable(kind: type[BaseSettings], name: str) -> str:
    """The environment variable of the setting ``name`` of ``kind`` (its prefix, upper case)."""
    return f"{kind.model_config.get('env_prefix', '')}{name}".upper()


def _section(title: str, kind: type[BaseSettings]) -> list[str]:
    lines = [f"# --- {title} ---"]
    for name, field in kind.model_fields.items():
        variable = _variable(kind, name)
        if field.is_required():
            lines += [f"# {field.description} (required)", f"{variable}="]
        else:
            lines += [f"# {field.description}", f"# {variable}={_value(field.default)}"]
    return lines


def settings_variables() -> set[str]:
    """Every setting's environment variable (``ISPBOT_...``), as the settings classes name them."""
    return {_variable(kind, name) for _, kind in SECTIONS for name in kind.model_fields}


def _compose_section(compose: str) -> list[str]:
    lines = ["# --- compose.yaml: what it takes from .env besides the settings above ---"]
    seen = settings_variables()  # compose.yaml hands each setting to the bot: listed above already
    for match in _COMPOSE_VARIABLE.finditer(compose):
        name, operator, argument = match.groups()
        if name in seen:
            continue
        seen.add(name)
        if operator and operator.endswith("?"):
            lines += [f"# {argument or name} (required)", f"{name}="]
        else:
            lines += ["# (compose.yaml's own default)", f"# {name}={argument or ''}"]
    return lines


def env_example(compose: str | None = None) -> str:
    """The file's text; ``compose`` is compose.yaml's text, when there is one to describe."""
    lines = [HEADER]
    sections = [_section(title, kind) for title, kind in SECTIONS]
    if compose is not None and _COMPOSE_VARIABLE.search(compose):
        sections.append(_compose_section(compose))
    for section in sections:
        lines += ["", *section]
    return "\n".join(lines) + "\n"


def main() -> int:
    compose = Path("compose.yaml")
    sys.stdout.write(env_example(compose.read_text(encoding="utf-8") if compose.is_file() else None))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
