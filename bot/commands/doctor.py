"""``ispbot doctor``: the configuration checked against reality, one line per check.

``DESCRIPTION`` is the command's ``--help``: what is checked, and how each check is bounded.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from bot.commands import support

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

    from bot.doctor.report import Finding
    from bot.store import Database

DESCRIPTION = """\
``ispbot doctor``: the configuration checked against reality, one line per check.

    ispbot doctor [--timeout SECONDS]

    ok    database         postgresql, migrated to 0005
    FAIL  telegram         token refused by Telegram (401 Unauthorized): set ISPBOT_TELEGRAM_TOKEN ...
    warn  isp-environment  UNKNOWN: the web service cannot say whether this key is HOMOLOGATION ...

Checks: the settings (each ``ISPBOT_*`` variable, as ``ispbot run`` reads them), and whether
someone not linked to a customer can reach a person (``reach``: the staff group, or the
``ISPBOT_SUPPORT_PHONE`` they are told; a warning with neither); the database
reachable and at this version's migrations; the Telegram token (``getMe``); the webhook against
``ISPBOT_MODE`` / ``ISPBOT_WEBHOOK_URL`` (``getWebhookInfo``: a webhook set in polling mode, another
address, updates waiting, Telegram's last delivery error); the staff group when
``ISPBOT_STAFF_CHAT_ID`` is set (a forum supergroup where the bot is an administrator that can manage
topics); the ISP web service reachable over HTTPS (plain http only on loopback, as the client
itself requires), the key accepted by both generations, every operation the bot's code calls
permitted (``bot.doctor.operations``: probes that cannot change anything), and the key's environment,
homologation said loudly (``bot.doctor.isp``: how it is found out); with ``ISPBOT_STAFF_DESK=chatwoot``,
Chatwoot's token, the API inbox and its webhook, and the team (``bot.doctor.chatwoot``). With
WhatsApp's settings, its token and phone number id (the number's record: a refused token said
plainly) and where its webhook is served; without Telegram's token, no Telegram check (one channel
is enough).

Every check is bounded by ``--timeout`` (default 10 s); one failing does not stop the others, except
those it makes meaningless (no Telegram check without a token Telegram accepts, no operation
without a key the ISP accepts). Nothing is written anywhere, in the database or in the ISP system,
and no secret or personal data is printed. Exit codes: 0 when no check failed (warnings allowed);
1 when any check failed; 2 for invalid arguments.
"""

DEFAULT_TIMEOUT = 10.0
S = TypeVar("S", bound="BaseSettings")


def register(subparsers: Any) -> None:
    doctor = subparsers.add_parser(
        "doctor", help="check the configuration against reality: database, Telegram, webhook, staff group, ISP key",
        description=DESCRIPTION,
    )
    doctor.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT,
        help=f"seconds each check may take (default {DEFAULT_TIMEOUT:g})",
    )
    doctor.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    return asyncio.run(execute(args))


async def execute(args: argparse.Namespace) -> int:
    """Every check's lines on stdout; the exit code."""
    from bot.doctor.report import exit_code

    if not args.timeout > 0:
        print("ispbot doctor: --timeout must be a positive number of seconds", file=sys.stderr)
        return 2
    findings = await diagnose(args.timeout)
    for finding in findings:
        print(finding.line(), flush=True)
    return exit_code(findings)


def _load(kind: type[S], check: str, found: list[Finding]) -> S | None:
    from pydantic import ValidationError

    from bot.doctor.report import fail

    try:
        return kind()
    except ValidationError as exc:
        found.extend(fail(check, f"configuration: {line}") for line in support.settings_problems(exc, kind))
        return None


async def diagnose(seconds: float) -> list[Finding]:
    """The findings in a fixed order: settings, database, Telegram, WhatsApp, Chatwoot, ISP, ACS."""
    import asyncio

    from bot.acs import AcsSettings
    from bot.channels.telegram.settings import TelegramSettings
    from bot.channels.whatsapp.settings import WhatsAppSettings
    from bot.desks.chatwoot.settings import ChatwootSettings
    from bot.doctor.acs import acs_findings
    from bot.doctor.chatwoot import chatwoot_findings
    from bot.doctor.isp import isp_findings
    from bot.doctor.reach import reach_findings
    from bot.doctor.receipts import receipt_findings
    from bot.doctor.rights import cancel_findings
    from bot.doctor.telegram import telegram_findings
    from bot.doctor.whatsapp import whatsapp_findings
    from bot.isp import IspSettings
    from bot.settings import BotSettings, ServerSettings

    settings_found: list[Finding] = []
    bot_settings = _load(BotSettings, "settings", settings_found)
    whatsapp_found: list[Finding] = []
    whatsapp = _load(WhatsAppSettings, "whatsapp", whatsapp_found)
    wants_whatsapp = bool(whatsapp_found) or (whatsapp is not None and whatsapp.configured)
    whatsapp = whatsapp if whatsapp is not None and whatsapp.configured else None
    telegram_found: list[Finding] = []
    telegram = _load(TelegramSettings, "telegram", telegram_found)
    # Without Telegram's token, WhatsApp alone is a bot: its lack is no failure then.
    if not (wants_whatsapp and all("ISPBOT_TELEGRAM_TOKEN: not set" in f.text for f in telegram_found)):
        settings_found += telegram_found
    settings_found += whatsapp_found
    isp_settings = _load(IspSettings, "isp", settings_found)
    server = _load(ServerSettings, "settings", []) if telegram is None else telegram
    chatwoot = None
    if bot_settings is not None and bot_settings.staff_desk == "chatwoot":
        chatwoot = _load(ChatwootSettings, "chatwoot", settings_found)
    acs = _load(AcsSettings, "acs", settings_found)
    if bot_settings is not None and telegram is not None:
        settings_found += reach_findings(bot_settings, telegram)
    if bot_settings is not None:
        settings_found += cancel_findings(bot_settings)
        settings_found += receipt_findings(bot_settings)
    database = support.open_database(bot_settings.database_url) if bot_settings is not None else None
    try:
        listen = f"{server.listen_host}:{server.listen_port}" if server is not None else "ISPBOT_LISTEN_HOST:PORT"
        stored, on_telegram, on_whatsapp, on_chatwoot = await asyncio.gather(
            _database(database, seconds),
            telegram_findings(telegram, seconds) if telegram is not None else _nothing(),
            whatsapp_findings(whatsapp, seconds, listen) if whatsapp is not None else _nothing(),
            chatwoot_findings(chatwoot, seconds) if chatwoot is not None else _nothing(),
        )
        found_in_database, tickets = stored
        on_isp = await isp_findings(isp_settings, seconds, tickets) if isp_settings is not None else []
        on_acs = await acs_findings(acs, seconds) if acs is not None and acs.configured else []
    finally:
        if database is not None:
            await database.dispose()
    return [*settings_found, *found_in_database, *on_telegram, *on_whatsapp, *on_chatwoot, *on_isp, *on_acs]


async def _nothing() -> list[Finding]:
    return []


async def _database(database: Database | None, seconds: float) -> tuple[list[Finding], Sequence[int] | None]:
    """The database's findings, and the tickets it recorded (None when it cannot be read)."""
    import asyncio

    from bot.doctor import database as database_check
    from bot.doctor.report import Status, bounded

    if database is None:
        return [], None
    found = await bounded("database", seconds, "the database", database_check.FIX, database_check.check(database))
    if any(f.status is Status.FAIL for f in found):
        return found, None
    try:
        async with asyncio.timeout(seconds):
            tickets = await database_check.recent_tickets(database)
    except Exception:  # the environment check says it could not read them
        return found, None
    return found, tickets
