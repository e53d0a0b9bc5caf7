"""``database``: a migrated scratch database per test, on SQLite and, when ISPBOT_TEST_DATABASE_URL is
set, on PostgreSQL too (each test in its own schema, dropped afterwards).

Other test packages reuse the fixtures by importing them into their own conftest.py::

    from tests.store.conftest import database, database_url  # noqa: F401
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.store.dbtools import ScratchDatabase, make_database, postgresql_url

BACKENDS = ["sqlite", *(["postgresql"] if postgresql_url() else [])]


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgresql":
        url = postgresql_url()
        assert url is not None
        return url
    return f"sqlite+aiosqlite:///{tmp_path / 'ispbot.sqlite3'}"


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[ScratchDatabase]:
    database = await make_database(database_url)
    yield database
    await database.destroy()


@pytest.fixture
async def blank_database(database_url: str) -> AsyncIterator[ScratchDatabase]:
    """Never migrated."""
    database = await make_database(database_url, migrated=False)
    yield database
    await database.destroy()
