"""``desk``: the engine with every subscriber flow, a seeded sandbox ISP and a scratch database
(SQLite, and PostgreSQL too when ISPBOT_TEST_DATABASE_URL is set)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from bot.sandbox import FixedClock, Sandbox

from tests.flows.harness import Desk, make_desk
from tests.store.conftest import database, database_url  # noqa: F401
from tests.store.dbtools import ScratchDatabase


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()  # 2025-03-10 09:30 in São Paulo


@pytest.fixture
def sandbox(clock: FixedClock) -> Sandbox:
    return Sandbox.seeded(clock=clock)


@pytest.fixture
async def desk(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Desk]:  # noqa: F811
    desk = make_desk(sandbox, database, clock)
    yield desk
    await desk.client.aclose()
