"""``ispbot mirror``: the ``chat_messages`` outbox seen and mended by the operator.

    ispbot mirror status              # entries by state, how long the oldest has waited, dead entries
    ispbot mirror retry [--ticket N]  # dead entries (all, or one ticket's) back in line

``status`` never shows what was said (it is personal data): dead entries are listed by id, ticket,
origin (C subscriber, S bot, A staff), tries, when they were written and the ISP's last error. Dead
entries are those the ISP refused for good, typically error 16 (the ticket does not exist in the
ISP system); fix the cause first, then ``retry``: the running bot delivers them on its next round.
Requeued entries reach the ISP after the ticket's later ones that were already delivered; each
keeps the time it was said (``record``).

The database is ``ISPBOT_DATABASE_URL`` (at this version's migrations, ``ispbot migrate``); times
are shown in the ISP's zone (``ISPBOT_ISP_TIMEZONE``). Exit codes: 0 done; 1 refused (a database
behind its migrations); 2 invalid configuration. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import ValidationError
from pydantic_settings import BaseSettings

from bot.isp import IspSettings
from bot.mirror.report import dead_entries, requeue
from bot.settings import BotSettings
from bot.store import Database, DatabaseRevisionError, Outbox, OutboxState
from bot.store.migrate import ensure_current

EXIT_OK, EXIT_REFUSED, EXIT_INVALID = 0, 1, 2
PROG = "ispbot mirror"

# How a database URL becomes a handle; tests swap it to reach a scratch schema on PostgreSQL.
open_database: Callable[[str], Database] = Database


class Refused(Exception):
    def __init__(self, code: int, text: str) -> None:
        super().__init__(text)
        self.code = code


def register(subparsers: Any) -> None:
    mirror = subparsers.add_parser(
        "mirror", help="the chat_messages outbox: status (depth, lag, dead entries) and retry of dead entries",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = mirror.add_subparsers(dest="action", metavar="ACTION")
    status = actions.add_parser(
        "status", help="entries by state, the oldest pending entry's wait, dead entries with ticket and error",
    )
    status.set_defaults(func=run, handler=_status)
    retry = actions.add_parser("retry", help="put dead entries (all, or one ticket's) back in line for delivery")
    retry.add_argument("--ticket", type=int, default=None, help="only this ticket's dead entries")
    retry.set_defaults(func=run, handler=_retry)
    mirror.set_defaults(func=_usage(mirror))


def _usage(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    def show(_: argparse.Namespace) -> int:
        parser.print_help()
        return EXIT_INVALID

    return show


def run(args: argparse.Namespace) -> int:
    return asyncio.run(execute(args))


async def execute(args: argparse.Namespace) -> int:
    """The action ``args`` names; its exit code."""
    handler: Callable[[argparse.Namespace], Awaitable[None]] = args.handler
    try:
        await handler(args)
    except Refused as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return exc.code
    return EXIT_OK


# ---- settings and the database -------------------------------------------------------------------
def _problem(exc: ValidationError, kind: type[BaseSettings]) -> str:
    prefix = str(kind.model_config.get("env_prefix", ""))
    parts = []
    for error in exc.errors():
        name = prefix + "_".join(str(part) for part in error["loc"]).upper() if error["loc"] else "settings"
        parts.append(f"{name}: {error['msg'].removeprefix('Value error, ')}")
    return "; ".join(parts)


def _database_url() -> str:
    try:
        return BotSettings().database_url
    except ValidationError as exc:
        raise Refused(EXIT_INVALID, f"configuration: {_problem(exc, BotSettings)}") from None


def _zone() -> ZoneInfo:
    """The ISP's time zone, without requiring the ISP's address and key (nothing is asked of it)."""
    try:
        return IspSettings(base_url="http://127.0.0.1", key="unused").zone  # only the time zone is read
    except ValidationError as exc:
        raise Refused(EXIT_INVALID, f"configuration: {_problem(exc, IspSettings)}") from None


async def _open() -> Database:
    database = open_database(_database_url())
    try:
        await ensure_current(database)
    except DatabaseRevisionError as exc:
        await database.dispose()
        raise Refused(EXIT_REFUSED, str(exc)) from None
    return database


def _shown(moment: datetime, zone: ZoneInfo) -> str:
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M}"


def _duration(age: timedelta) -> str:
    seconds = max(0, int(age.total_seconds()))
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {seconds} s"
    return f"{seconds} s"


# ---- status / retry ------------------------------------------------------------------------------
async def _status(_: argparse.Namespace) -> None:
    zone = _zone()
    database = await _open()
    try:
        async with database.transaction() as session:
            stats = await Outbox().stats(session)
            dead = await dead_entries(session)
    finally:
        await database.dispose()
    depth = stats.depth
    waiting = (
        f" (the oldest waiting for {_duration(stats.oldest_pending_age)})"
        if stats.oldest_pending_age is not None else ""
    )
    print(
        f"Outbox: {depth[OutboxState.PENDING]} pending{waiting}, {depth[OutboxState.SENT]} sent, "
        f"{depth[OutboxState.DEAD]} dead."
    )
    if not dead:
        return
    print(f"Dead entries (`{PROG} retry [--ticket N]` puts them back in line); times in {zone.key}:")
    print(f"{'id':>8}  {'ticket':>8}  origin  {'tries':>5}  {'written':<16}  last error")
    for entry in dead:
        error = (entry.last_error or "").replace("\n", " ")
        print(
            f"{entry.id:>8}  {entry.ticket_id:>8}  {entry.origin.value:<6}  {entry.attempts:>5}  "
            f"{_shown(entry.created_at, zone):<16}  {error}"
        )


async def _retry(args: argparse.Namespace) -> None:
    ticket: int | None = args.ticket
    database = await _open()
    try:
        async with database.transaction() as session:
            count = await requeue(session, ticket)
    finally:
        await database.dispose()
    scope = f" of ticket {ticket}" if ticket is not None else ""
    if not count:
        print(f"No dead entry{scope}: nothing to retry.")
        return
    plural = "y" if count == 1 else "ies"
    print(f"{count} dead entr{plural}{scope} back in line: the running bot delivers them on its next round.")
