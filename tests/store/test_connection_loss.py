"""PostgreSQL connections that die in the pool (a server restart, an idle timeout): the next use gets a
new one, and a connection back from use a moment ago is not pinged again (three round trips each)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from bot.store import Database
from bot.store import db as db_module
from sqlalchemy import text

from tests.store.dbtools import ScratchDatabase, make_database, postgresql_url

pytestmark = pytest.mark.skipif(postgresql_url() is None, reason="needs ISPBOT_TEST_DATABASE_URL (PostgreSQL)")


@pytest.fixture
async def postgresql(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[ScratchDatabase]:
    monkeypatch.setattr(db_module, "PING_AFTER_IDLE_S", 0.05)
    url = postgresql_url()
    assert url is not None
    database = await make_database(url)
    yield database
    await database.destroy()


def count_pings(database: Database) -> list[int]:
    pings = [0]
    dialect: Any = database.engine.sync_engine.dialect
    ping = dialect.do_ping

    def counted(dbapi_connection: Any) -> Any:
        pings[0] += 1
        return ping(dbapi_connection)

    dialect.do_ping = counted
    return pings


async def backend_pids(database: Database, connections: int) -> set[int]:
    """Open ``connections`` pooled connections at once and give them back; their server pids."""
    held = asyncio.Event()
    pids: set[int] = set()

    async def one() -> None:
        async with database.transaction() as session:
            pids.add((await session.execute(text("SELECT pg_backend_pid()"))).scalar_one())
            if len(pids) == connections:
                held.set()
            await held.wait()

    await asyncio.gather(*(one() for _ in range(connections)))
    return pids


async def test_connections_killed_while_idle_in_the_pool_are_replaced_before_use(
    postgresql: ScratchDatabase,
) -> None:
    killed = await backend_pids(postgresql, 3)
    await postgresql.terminate_server_processes(killed)
    await asyncio.sleep(0.1)  # past the idle time after which a pooled connection is pinged

    async def use() -> int:
        async with postgresql.transaction() as session:
            return int((await session.execute(text("SELECT pg_backend_pid()"))).scalar_one())

    now_used = set(await asyncio.gather(*(use() for _ in range(3))))
    assert not now_used & killed


async def test_a_connection_back_from_use_a_moment_ago_is_not_pinged_again(postgresql: ScratchDatabase) -> None:
    pings = count_pings(postgresql)
    for _ in range(20):
        async with postgresql.transaction() as session:
            await session.execute(text("SELECT 1"))
    assert pings[0] == 0

    await asyncio.sleep(0.1)
    async with postgresql.transaction() as session:
        await session.execute(text("SELECT 1"))
    assert pings[0] == 1
