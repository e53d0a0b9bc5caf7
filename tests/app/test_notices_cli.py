"""``ispbot notices``: a dry run says who would get what and claims nothing; ``status`` shows the
rounds; a round without ``--once`` is refused (``ispbot run`` repeats them)."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import httpx
import pytest
from bot.cli import build_parser
from bot.commands import notices as notices_cli
from bot.commands import support
from bot.commands.support import run_action
from bot.runtime import app as app_module
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, FixedClock, Sandbox
from flows.notices import BILL_DUE

from tests.flows.harness import Desk, make_desk
from tests.flows.test_notices import close_outages, run
from tests.store.conftest import database, database_url  # noqa: F401
from tests.store.dbtools import ScratchDatabase

DUE_IN_THREE_DAYS = "2025-03-25T10:00"  # Maria's open bill is due on 2025-03-28


@pytest.fixture
async def desk(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, database: ScratchDatabase,  # noqa: F811
) -> AsyncIterator[Desk]:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.setenv("ISPBOT_ISP_KEY", PRODUCTION_KEY)
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", "http://127.0.0.1")
    monkeypatch.setenv("ISPBOT_DATABASE_URL", database.url.render_as_string(hide_password=False))
    monkeypatch.setattr(support, "open_database", lambda _url: database.reopen())
    clock = FixedClock()
    desk = make_desk(Sandbox.seeded(clock=clock), database, clock)
    # The command's own app reaches the same sandbox and database.
    build = functools.partial(app_module.build_app, database=database.reopen(),
                              http_transport=httpx.ASGITransport(app=desk.sandbox.app), wall_clock=clock)
    monkeypatch.setattr(app_module, "build_app", build)
    yield desk
    await desk.client.aclose()


async def ispbot(*argv: str) -> int:
    return await run_action(notices_cli.PROG, build_parser().parse_args(list(argv)))


async def test_a_dry_run_prints_who_would_get_what_and_the_status_shows_it(
    desk: Desk, capsys: pytest.CaptureFixture[str],
) -> None:
    close_outages(desk)
    chat = await desk.linked_chat(DEMO_IDENTITIES.customer)
    assert await ispbot("notices", "run", "--once", "--now", DUE_IN_THREE_DAYS, "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"{chat.chat_id:>14}  {BILL_DUE:<17}  bill:{DEMO_IDENTITIES.open_document}" in out
    assert "1 would be sent, 0 held, 0 refused (opted out)" in out

    assert await ispbot("notices", "status") == 0
    out = capsys.readouterr().out
    assert "2025-03-25 10:00" in out and "dry run" in out

    # Nothing was claimed: the real round still tells her.
    sent, _ = await run(desk, datetime.fromisoformat(DUE_IN_THREE_DAYS).replace(tzinfo=desk.clock.now.tzinfo))
    assert [n.chat_id for n in sent] == [chat.chat_id]


async def test_a_round_needs_once(desk: Desk, capsys: pytest.CaptureFixture[str]) -> None:
    assert await ispbot("notices", "run") == 2
    assert "say --once" in capsys.readouterr().err


async def test_a_moment_that_is_no_date_is_refused(desk: Desk, capsys: pytest.CaptureFixture[str]) -> None:
    assert await ispbot("notices", "run", "--once", "--now", "tomorrow") == 2
    assert "no ISO-8601 moment" in capsys.readouterr().err
