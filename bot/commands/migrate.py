"""``ispbot migrate [--database-url URL] [--check]``: bring the database schema up to this version of
ispbot (the bot refuses to start on a database that is behind), or with ``--check`` only report.

The URL defaults to ``ISPBOT_DATABASE_URL`` (from the environment or ``.env`` in the working folder,
as every command reads it), else the SQLite file ``ispbot.sqlite3`` in the working folder.
Exit codes: 0 up to date (after migrating), 1 behind or ahead (``--check``), 2 bad URL or settings.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.commands.support import Refused, load, refused


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "migrate", help="upgrade the database schema to this version",
        description=__doc__,
    )
    parser.add_argument(
        "--database-url", default=None, help="database URL (default: ISPBOT_DATABASE_URL, else ispbot.sqlite3 here)",
    )
    parser.add_argument("--check", action="store_true", help="only report whether the schema is current")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from bot.settings import BotSettings
    from bot.store import migrate
    from bot.store.errors import DatabaseRevisionError
    from bot.store.urls import async_url

    try:
        raw = args.database_url or load(BotSettings).database_url
    except Refused as exc:
        refused("ispbot migrate", exc)
        return exc.code
    try:
        url = async_url(raw)
    except ValueError as exc:  # also sqlalchemy.exc.ArgumentError, a ValueError subclass
        print(f"ispbot migrate: {exc}", file=sys.stderr)
        return 2
    shown = url.render_as_string(hide_password=True)
    if args.check:
        try:
            asyncio.run(migrate.ensure_current(url))
        except DatabaseRevisionError as exc:
            print(f"ispbot migrate: {exc}", file=sys.stderr)
            return 1
        print(f"{shown}: at revision {migrate.head_revision()} (current)")
        return 0
    asyncio.run(migrate.upgrade(url))
    print(f"{shown}: upgraded to revision {migrate.head_revision()}")
    return 0
