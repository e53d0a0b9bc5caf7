"""Alembic environment. ``bot.store.migrate`` hands over an open connection; the ``alembic`` command
line (for writing new revisions: ``alembic -c bot/store/migrations/alembic.ini revision
--autogenerate``) gets one from ``sqlalchemy.url`` or ``ISPBOT_DATABASE_URL``."""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection

from bot.store.db import Database
from bot.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_with(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things: later revisions rebuild tables in batch mode.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_from_url(url: str) -> None:
    database = Database(url)
    try:
        async with database.engine.begin() as connection:
            await connection.run_sync(run_with)
    finally:
        await database.dispose()


def main() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_with(connection)
        return
    if context.is_offline_mode():
        raise SystemExit("offline (--sql) migrations are not supported: run `ispbot migrate`")
    url = os.environ.get("ISPBOT_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
    asyncio.run(run_from_url(url or "sqlite:///ispbot.sqlite3"))


main()
