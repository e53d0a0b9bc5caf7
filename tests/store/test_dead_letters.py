"""A dead letter the database cannot hold (a chat id past 64 bits) is told apart from a database that
cannot be reached: the channels stop retrying the first at once (it used to retry for five minutes,
holding its chat's update), and keep retrying the second."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from bot.store import Database
from bot.store.dead_letters import DeadLetters, unstorable

from tests.store.dbtools import ScratchDatabase

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


async def _add(database: Database, chat_id: int) -> int:
    async with database.transaction() as session:
        return await DeadLetters().add(session, chat_id, "sendMessage", {"text": "oi"}, error="refused", now=NOW)


async def test_a_chat_id_past_64_bits_is_unstorable_and_a_real_one_is_kept(database: ScratchDatabase) -> None:
    with pytest.raises(Exception) as caught:  # OverflowError on SQLite, DBAPIError on PostgreSQL
        await _add(database, 2**64)
    assert unstorable(caught.value)
    await _add(database, -1001234567890)
    async with database.transaction() as session:
        assert [letter.chat_id for letter in await DeadLetters().all(session)] == [-1001234567890]


async def test_a_database_that_cannot_be_reached_is_worth_another_try(tmp_path: Path) -> None:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'no' / 'such' / 'folder.sqlite3'}")
    try:
        with pytest.raises(Exception) as caught:  # whatever the driver raises
            await _add(database, 42)
        assert not unstorable(caught.value)
    finally:
        await database.dispose()
