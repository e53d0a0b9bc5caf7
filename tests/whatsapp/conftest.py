"""``database`` (SQLite, and PostgreSQL when ISPBOT_TEST_DATABASE_URL is set) and a seeded ``sandbox``."""

from __future__ import annotations

import pytest
from bot.sandbox import FixedClock, Sandbox

from tests.store.conftest import database, database_url  # noqa: F401


@pytest.fixture
def sandbox() -> Sandbox:
    return Sandbox.seeded(clock=FixedClock())
