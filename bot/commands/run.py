"""``ispbot run``: the bot on Telegram until SIGTERM or Ctrl-C (``bot.runtime.run`` runs it).

``DESCRIPTION`` is the command's ``--help``: the modes, the settings, the web server, the exit codes.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bot.commands.support import Refused, load, load_all, refused

if TYPE_CHECKING:
    from bot.channels.telegram.settings import TelegramSettings
    from bot.isp import IspSettings
    from bot.settings import BotSettings

DESCRIPTION = """\
Run the bot on Telegram until SIGTERM or Ctrl-C.

Modes (ISPBOT_MODE): polling, the default, needs no public address (the bot asks Telegram for
updates); webhook has Telegram post updates to ISPBOT_WEBHOOK_URL (public https, forwarded to this
process) with ISPBOT_WEBHOOK_SECRET.

Settings: ISPBOT_TELEGRAM_TOKEN, ISPBOT_ISP_BASE_URL and ISPBOT_ISP_KEY are required, the others
have defaults. The database (ISPBOT_DATABASE_URL, default ispbot.sqlite3 here) must be at this
version's migrations: run `ispbot migrate` first.

HTTP on ISPBOT_LISTEN_HOST:ISPBOT_LISTEN_PORT (default 127.0.0.1:8080): /livez (the process
answers; for liveness and container health checks), /readyz (the database answers at this
version's migrations; whether to send traffic), /healthz (each part's state, the ISP's included,
with /readyz's status code), /metrics (Prometheus) and, in webhook mode, the webhook.

Exit codes: 0 stopped by a signal; 1 could not start (database not at this version's migrations,
token refused, Bot API unreachable); 2 invalid configuration, one line per wrong variable.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run", help="run the bot on Telegram (polling or webhook)", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(func=run)


def load_settings() -> tuple[TelegramSettings, IspSettings, BotSettings]:
    """The three groups of settings; ``Refused`` with a line for each wrong or missing variable."""
    from bot.channels.telegram.settings import TelegramSettings
    from bot.isp import IspSettings
    from bot.settings import BotSettings

    return load_all(TelegramSettings, IspSettings, BotSettings)


def run(_: argparse.Namespace) -> int:
    try:
        telegram, isp_settings, bot_settings = load_settings()
        chatwoot = None
        if bot_settings.staff_desk == "chatwoot":
            from bot.desks.chatwoot.settings import ChatwootSettings

            chatwoot = load(ChatwootSettings)
    except Refused as exc:
        refused("ispbot run", exc)
        return exc.code
    from bot.runtime.run import main

    return main(telegram, isp_settings, bot_settings, chatwoot)
