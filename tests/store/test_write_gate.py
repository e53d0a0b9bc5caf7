"""SQLite's single writer, queued in the process: a second writer waits for the first's commit
instead of sleeping in SQLite's busy handler, and gets "database is locked" after the timeout."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot.store import ChatState, ChatStates, Database
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from tests.store.dbtools import make_database

chats = ChatStates()


@pytest.fixture
async def sqlite(tmp_path: Path) -> AsyncIterator[Database]:
    database = await make_database(f"sqlite+aiosqlite:///{tmp_path / 'gate.sqlite3'}")
    yield database
    await database.destroy()


async def test_a_second_writer_waits_for_the_first_to_commit_then_goes_on(sqlite: Database) -> None:
    events: list[str] = []
    first_wrote = asyncio.Event()
    let_first_commit = asyncio.Event()

    async def first() -> None:
        async with sqlite.transaction() as session:
            await chats.save(session, ChatState(chat_id=1, flow="menu"))
            events.append("first wrote")
            first_wrote.set()
            await let_first_commit.wait()  # holds SQLite's write lock meanwhile

    async def second() -> None:
        async with sqlite.transaction() as session:
            # Without the gate SQLite would answer "database is locked" at once: no busy wait to hide in.
            await session.execute(text("PRAGMA busy_timeout=0"))
            await chats.save(session, ChatState(chat_id=2, flow="bills"))
            events.append("second wrote")
            if (await chats.load(session, 1)).flow == "menu":  # a writer sees every commit before it
                events.append("second saw the first's commit")

    holder = asyncio.create_task(first())
    await first_wrote.wait()
    waiter = asyncio.create_task(second())
    done, _ = await asyncio.wait({waiter}, timeout=0.5)
    assert not done, "the second writer should wait for the first, not fail"
    assert events == ["first wrote"]
    let_first_commit.set()
    await asyncio.gather(holder, waiter)
    assert events == ["first wrote", "second wrote", "second saw the first's commit"]
    async with sqlite.session() as session:
        assert (await chats.load(session, 1)).flow == "menu"
        assert (await chats.load(session, 2)).flow == "bills"


async def test_readers_never_wait_for_a_writer(sqlite: Database) -> None:
    async with sqlite.transaction() as session:
        await chats.save(session, ChatState(chat_id=1, flow="menu"))
    async with sqlite.transaction() as writer:
        await chats.save(writer, ChatState(chat_id=2, flow="bills"))
        async with sqlite.session() as reader:  # WAL: reads the last committed state, at once
            assert (await chats.load(reader, 1)).flow == "menu"
            assert (await chats.load(reader, 2)).version == 0


async def test_a_writer_waiting_longer_than_the_timeout_is_told_the_database_is_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("bot.store.db.SQLITE_BUSY_TIMEOUT_MS", 50)
    database = await make_database(f"sqlite+aiosqlite:///{tmp_path / 'gate.sqlite3'}")
    try:
        async with database.transaction() as holder:
            await chats.save(holder, ChatState(chat_id=1))
            with pytest.raises(OperationalError, match="database is locked"):
                async with database.transaction() as late:
                    await chats.save(late, ChatState(chat_id=2))
        async with database.transaction() as session:  # the gate opened again with the commit
            await chats.save(session, ChatState(chat_id=3))
    finally:
        await database.destroy()
