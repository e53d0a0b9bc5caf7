"""The pool keeps a connection per chat in flight: a busy bot does not open and close connections at
every turn (each a connect, TLS and authentication on PostgreSQL, and its statements prepared again)."""

from __future__ import annotations

import asyncio
import contextlib

from bot.channels.telegram.settings import TelegramSettings
from bot.runtime.processor import DEFAULT_CONCURRENCY
from bot.settings import ServerSettings
from bot.store.db import DEFAULT_POOL_SIZE, pool_size_for
from sqlalchemy import event, text

from tests.store.dbtools import ScratchDatabase


async def test_connections_stay_open_from_one_burst_of_turns_to_the_next(database: ScratchDatabase) -> None:
    # The store and the Telegram settings cannot import the processor's default, so they write the
    # number again: keep them one.
    assert pool_size_for(DEFAULT_CONCURRENCY) == DEFAULT_POOL_SIZE
    assert TelegramSettings.model_fields["concurrency"].default == DEFAULT_CONCURRENCY
    assert ServerSettings.model_fields["concurrency"].default == DEFAULT_CONCURRENCY
    in_flight = DEFAULT_CONCURRENCY
    opened: list[object] = []
    event.listen(database.engine.sync_engine, "connect", lambda connection, _record: opened.append(connection))

    async def burst() -> None:
        everyone_in = asyncio.Barrier(in_flight)

        async def turn() -> None:
            async with database.transaction() as session:
                await session.execute(text("SELECT 1"))
                await everyone_in.wait()  # all of them hold a connection at once

        await asyncio.gather(*(turn() for _ in range(in_flight)))

    await burst()  # opens what the migrations' connection does not cover
    after_the_first = len(opened)
    for _ in range(3):
        await burst()
    assert len(opened) == after_the_first


async def test_a_transaction_gives_its_connection_back_whether_it_commits_fails_or_is_cancelled(
    database: ScratchDatabase,
) -> None:
    """A committed session is not closed (its commit gave the connection back); a failed or cancelled
    one is rolled back and closed. Either way the pool gets every connection back, and nothing of a
    failed transaction stays."""
    await _scratch_table(database)
    pool = database.engine.sync_engine.pool
    async with database.transaction() as session:
        await session.execute(text("INSERT INTO scratch VALUES (1)"))
    with contextlib.suppress(RuntimeError):
        async with database.transaction() as session:
            await session.execute(text("INSERT INTO scratch VALUES (2)"))
            raise RuntimeError("the turn failed")
    started = asyncio.Event()

    async def cancelled_midway() -> None:
        async with database.transaction() as session:
            await session.execute(text("INSERT INTO scratch VALUES (3)"))
            started.set()
            await asyncio.sleep(3600)

    task = asyncio.create_task(cancelled_midway())
    await started.wait()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task

    assert pool.checkedout() == 0  # type: ignore[attr-defined]
    # A connection left holding SQLite's write lock would make this wait forever.
    async with asyncio.timeout(30), database.transaction() as session:
        assert (await session.execute(text("SELECT n FROM scratch"))).scalars().all() == [1]


async def _scratch_table(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        await session.execute(text("CREATE TABLE scratch (n INTEGER)"))
