"""Session-wide: the log output of every test is scanned for personal data and secrets (``tests.leakscan``),
and PostgreSQL's scratch schemas are handed from test to test (``dbtools.spares``); ``on``: an
``ispbot`` command run against the test's scratch database."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from bot.commands import support
from flows.engine import Engine

from tests.leakscan import (  # noqa: F401 - pytest finds hooks by name in a conftest
    pytest_runtest_logstart,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_terminal_summary,
    pytest_testnodedown,
)
from tests.store import dbtools
from tests.store.dbtools import ScratchDatabase

# A step that leads where its flow's ``steps`` do not declare fails the test (a running bot logs it).
Engine.strict_steps = True


@pytest.fixture(scope="session", autouse=True)
def spare_schemas() -> Iterator[None]:
    with dbtools.spares():
        yield


@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, database: ScratchDatabase) -> ScratchDatabase:
    """``ispbot`` commands on the test's scratch database (its own schema on PostgreSQL), in a folder
    without the developer's .env, times in the ISP zone's default."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ISPBOT_ISP_TIMEZONE", raising=False)
    monkeypatch.setenv("ISPBOT_DATABASE_URL", database.url.render_as_string(hide_password=False))
    monkeypatch.setattr(support, "open_database", lambda _url: database.reopen())
    return database
