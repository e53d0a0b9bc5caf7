"""``ispbot run``: the bot on every configured channel until SIGTERM or Ctrl-C (``bot.runtime.run`` runs it).

``DESCRIPTION`` is the command's ``--help``: the modes, the settings, the web server, the exit codes.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bot.commands.support import EXIT_INVALID, Refused, configuration_refused, load, load_all, refused

if TYPE_CHECKING:
    from bot.channels.telegram.settings import TelegramSettings
    from bot.runtime.run import RunSettings

DESCRIPTION = """\
Run the bot on every configured channel until SIGTERM or Ctrl-C: Telegram (ISPBOT_TELEGRAM_TOKEN),
WhatsApp (ISPBOT_WHATSAPP_TOKEN, _PHONE_NUMBER_ID, _APP_SECRET, _VERIFY_TOKEN: Meta posts to
/whatsapp/webhook) or both; with neither it refuses to start.

Telegram's modes (ISPBOT_MODE): polling, the default, needs no public address (the bot asks Telegram for
updates); webhook has Telegram post updates to ISPBOT_WEBHOOK_URL (public https, forwarded to this
process) with ISPBOT_WEBHOOK_SECRET.

Settings: a channel's, ISPBOT_ISP_BASE_URL and ISPBOT_ISP_KEY are required, the others have
defaults. The database (ISPBOT_DATABASE_URL, default ispbot.sqlite3 here) must be at this
version's migrations: run `ispbot migrate` first.

HTTP on ISPBOT_LISTEN_HOST:ISPBOT_LISTEN_PORT (default 127.0.0.1:8080): /livez (the process
answers; for liveness and container health checks), /readyz (the database answers at this
version's migrations; whether to send traffic), /healthz (each part's state, the ISP's included,
with /readyz's status code), /metrics (Prometheus), the desk's and WhatsApp's webhooks and, in
Telegram's webhook mode, its webhook.

Exit codes: 0 stopped by a signal; 1 could not start (database not at this version's migrations,
token refused, Bot API unreachable); 2 invalid configuration, one line per wrong variable.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run", help="run the bot on Telegram and/or WhatsApp", description=DESCRIPTION,
    )
    parser.set_defaults(func=run)


NO_CHANNEL = (
    "configuration: no channel is configured: set ISPBOT_TELEGRAM_TOKEN for Telegram, or ISPBOT_WHATSAPP_TOKEN, "
    "ISPBOT_WHATSAPP_PHONE_NUMBER_ID, ISPBOT_WHATSAPP_APP_SECRET and ISPBOT_WHATSAPP_VERIFY_TOKEN for WhatsApp"
)


def _telegram() -> TelegramSettings | None:
    """Telegram's settings, None when its token is not set (Telegram is then no channel here)."""
    from pydantic import ValidationError

    from bot.channels.telegram.settings import TelegramSettings

    try:
        return TelegramSettings()
    except ValidationError as exc:
        if all(e["loc"] == ("telegram_token",) and e["type"] == "missing" for e in exc.errors()):
            return None
        raise configuration_refused(exc, TelegramSettings) from None


def load_settings() -> RunSettings:
    """The settings; ``Refused`` with a line for each wrong or missing variable, or for no channel."""
    from pydantic import ValidationError

    from bot.channels.whatsapp.settings import WhatsAppSettings
    from bot.isp import IspSettings
    from bot.runtime.run import RunSettings
    from bot.settings import BotSettings, ServerSettings

    problems: list[str] = []
    telegram = None
    try:
        telegram = _telegram()
    except Refused as exc:
        problems.append(str(exc))
    try:
        whatsapp: WhatsAppSettings | None = WhatsAppSettings()
    except ValidationError as exc:
        whatsapp = None
        problems.append(str(configuration_refused(exc, WhatsAppSettings)))
    else:
        if telegram is None and not problems and whatsapp is not None and not whatsapp.configured:
            problems.append(NO_CHANNEL)
    try:
        server, isp, bot = load_all(ServerSettings, IspSettings, BotSettings)
    except Refused as exc:
        problems.append(str(exc))
    if problems:
        # A wrong variable shared by Telegram's and the server's settings is one line, not two.
        lines = list(dict.fromkeys(line for problem in problems for line in problem.splitlines()))
        raise Refused(EXIT_INVALID, "\n".join(lines))
    chatwoot = None
    if bot.staff_desk == "chatwoot":
        from bot.desks.chatwoot.settings import ChatwootSettings

        chatwoot = load(ChatwootSettings)
    from bot.acs import AcsSettings

    acs = load(AcsSettings)
    return RunSettings(server, telegram, whatsapp if whatsapp is not None and whatsapp.configured else None, isp, bot,
                       chatwoot, acs if acs.configured else None)


def run(_: argparse.Namespace) -> int:
    try:
        settings = load_settings()
    except Refused as exc:
        refused("ispbot run", exc)
        return exc.code
    from bot.runtime.run import main

    return main(settings)
