"""Fixtures of the mirror's tests: the engine's desk (seeded sandbox, scratch database on SQLite and
PostgreSQL), a fake time that the worker and its ISP client share, and workers built on them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from bot.isp import IspClient, IspSettings
from bot.mirror import MirrorWorker
from bot.sandbox import PRODUCTION_KEY, FixedClock, Sandbox
from bot.store import Database, Outbox, OutboxEntry, OutboxState
from bot.store.models import OutboxRow
from sqlalchemy import select

from tests.flows.harness import Desk, make_desk
from tests.store.conftest import blank_database, database, database_url  # noqa: F401
from tests.store.dbtools import ScratchDatabase


class FakeTime:
    """Wall clock, monotonic clock and sleep in one, moved by hand or by the worker's sleeps.

    It starts a minute ahead of the real time: the engine stamps outbox entries with the real time,
    and they must be due for the worker."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC) + timedelta(minutes=1)
        self.sleeps: list[float] = []

    def wall(self) -> datetime:
        return self.now

    def monotonic(self) -> float:
        return self.now.timestamp()

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds)
        await asyncio.sleep(0)


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def sandbox() -> Sandbox:
    return Sandbox.seeded(clock=FixedClock())


@pytest.fixture
async def desk(sandbox: Sandbox, database: ScratchDatabase) -> AsyncIterator[Desk]:  # noqa: F811
    desk = make_desk(sandbox, database, FixedClock())
    yield desk
    await desk.client.aclose()


WorkerFactory = Callable[..., MirrorWorker]


@pytest.fixture
async def make_worker(sandbox: Sandbox, fake_time: FakeTime) -> AsyncIterator[WorkerFactory]:
    """Workers on the fake time, each with its own ISP client (its circuit breaker on that time too)."""
    clients: list[IspClient] = []

    def build(db: Database, **options: Any) -> MirrorWorker:
        settings = IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0)
        client = IspClient(settings, http_transport=httpx.ASGITransport(app=sandbox.app), clock=fake_time.monotonic)
        clients.append(client)
        options.setdefault("clock", fake_time.wall)
        options.setdefault("sleep", fake_time.sleep)
        return MirrorWorker(db, client, **options)

    yield build
    for client in clients:
        await client.aclose()


async def outbox_rows(db: Database, ticket: int | None = None) -> list[OutboxRow]:
    """Every outbox row (of one ticket), in id order: what the engine wrote and its state."""
    statement = select(OutboxRow).order_by(OutboxRow.id)
    if ticket is not None:
        statement = statement.where(OutboxRow.ticket_id == ticket)
    async with db.transaction() as session:
        return list((await session.execute(statement)).scalars())


async def states(db: Database, ticket: int | None = None) -> list[OutboxState]:
    return [OutboxState(row.state) for row in await outbox_rows(db, ticket)]


def mirrored(sandbox: Sandbox, ticket: int) -> list[tuple[str, str]]:
    """(origin, content) of what the ISP recorded for the ticket, in the order it was received."""
    return [(m["origin"], m["content"]) for m in sandbox.chat_messages(ticket)]


async def get(db: Database, entry_id: int) -> OutboxEntry:
    async with db.transaction() as session:
        entry = await Outbox().get(session, entry_id)
    assert entry is not None
    return entry


@contextmanager
def ticket_missing(sandbox: Sandbox, number: int) -> Iterator[None]:
    """The ISP has no ticket ``number`` for a while (chat_messages answers error 16)."""
    row = sandbox.store.find("tickets", Numero=number)
    assert row is not None
    sandbox.store.delete("tickets", row)
    try:
        yield
    finally:
        sandbox.store.insert("tickets", row)


async def until(check: Callable[[], Awaitable[bool] | bool], *, tries: int = 10_000, pause: float = 0.001) -> None:
    """Let other tasks run until ``check`` holds (a bounded number of times)."""
    for _ in range(tries):
        outcome = check()
        if outcome if isinstance(outcome, bool) else await outcome:
            return
        await asyncio.sleep(pause)
    raise AssertionError("the condition never held")
