"""SQLite runs in the event loop's thread (``bot.store.inline_sqlite``), and still behaves as a database."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from bot.store import ChatState, ChatStates
from bot.store.models import ChatRow
from sqlalchemy import event, insert, text
from sqlalchemy.exc import IntegrityError

from tests.store.dbtools import make_database

chats = ChatStates()


async def test_sqlite_works_in_the_loops_own_thread_without_a_thread_per_connection(tmp_path: Path) -> None:
    database = await make_database(f"sqlite:///{tmp_path / 'inline.sqlite3'}")

    def who_runs_sqlite(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.create_function("runner", 0, threading.get_ident)

    event.listen(database.engine.sync_engine, "connect", who_runs_sqlite)
    await database.engine.dispose()  # connections made from now on carry the function
    threads_before = threading.active_count()
    try:
        async def one_chat(chat_id: int) -> int:
            async with database.transaction() as session:
                await chats.save(session, ChatState(chat_id=chat_id, step="asked"))
                await asyncio.sleep(0)  # let the other transactions interleave
                return int((await session.execute(text("SELECT runner()"))).scalar_one())

        runners = await asyncio.gather(*(one_chat(chat_id) for chat_id in range(8)))
        assert set(runners) == {threading.get_ident()}
        assert threading.active_count() == threads_before
        async with database.session() as session:
            assert [(await chats.load(session, chat_id)).step for chat_id in range(8)] == ["asked"] * 8
    finally:
        await database.destroy()


async def test_a_refused_statement_raises_and_leaves_the_connection_usable(tmp_path: Path) -> None:
    database = await make_database(f"sqlite:///{tmp_path / 'refused.sqlite3'}")
    try:
        async with database.transaction() as session:
            await chats.save(session, ChatState(chat_id=5))
        with pytest.raises(IntegrityError):
            async with database.transaction() as session:
                await chats.save(session, ChatState(chat_id=6))
                await session.execute(insert(ChatRow).values(chat_id=5, role="subscriber", data={}, version=1))
        async with database.transaction() as session:  # the failed one left nothing behind
            assert (await chats.load(session, 6)).version == 0
            await chats.save(session, ChatState(chat_id=7))
        async with database.session() as session:
            assert (await chats.load(session, 7)).version == 1
    finally:
        await database.destroy()

