"""Every row of every table a database holds, as text: for tests that look for what must not be kept."""

from __future__ import annotations

from bot.store import Database
from sqlalchemy import inspect, select, table, text


async def every_row(database: Database) -> dict[str, list[str]]:
    """Every row of every table the database holds (those the bot knows and any other), as text."""
    async with database.session() as session:
        connection = await session.connection()
        names = await connection.run_sync(lambda sync: inspect(sync).get_table_names())
        assert {"inbox", "chats", "outbox", "desk_jobs", "links", "link_attempts"} <= set(names)
        return {name: [repr(tuple(row)) for row in await session.execute(select(text("*")).select_from(table(name)))]
                for name in names}


def holding(tables: dict[str, list[str]], *needles: str) -> list[str]:
    """``table: row`` for each row where any of ``needles`` appears."""
    return [f"{name}: {row}" for name, rows in tables.items() for row in rows
            if any(needle in row for needle in needles)]
