"""A ticket the ISP does not know (chat_messages error 16): its entries end dead, other tickets go
on; ``ispbot mirror status`` shows them (ticket and error, never what was said) and ``ispbot mirror
retry`` puts them back in line once the cause is fixed."""

from __future__ import annotations

from pathlib import Path

import pytest
from bot.cli import build_parser
from bot.commands import mirror as mirror_cli
from bot.commands import support
from bot.sandbox import DEMO_IDENTITIES

from tests.flows.harness import Desk
from tests.mirror.conftest import WorkerFactory, mirrored, outbox_rows, states, ticket_missing
from tests.mirror.test_delivery import open_ticket
from tests.store.dbtools import ScratchDatabase

MARIA = DEMO_IDENTITIES.customer



async def ispbot(*argv: str) -> int:
    return await support.run_action(mirror_cli.PROG, build_parser().parse_args(list(argv)))


async def test_a_ticket_the_isp_lost_ends_dead_is_shown_and_retried(
    desk: Desk, on: ScratchDatabase, make_worker: WorkerFactory, capsys: pytest.CaptureFixture[str],
) -> None:
    chat = await desk.linked_chat(MARIA)
    ticket = await open_ticket(chat)
    worker = make_worker(desk.database)
    delivered = await worker.deliver_once()

    await chat.say("meu CPF é 529.982.247-25, alguém pode ver?")  # noted in the ticket, which then goes missing
    with ticket_missing(desk.sandbox, ticket):
        await worker.deliver_once()
        rows = await outbox_rows(desk.database, ticket)
        dead = [row for row in rows if row.state == "dead"]
        assert dead and all("16" in (row.last_error or "") for row in dead)
        assert len(dead) == len(rows) - delivered
        assert await worker.deliver_once() == 0  # dead entries are not tried again on their own

        assert await ispbot("mirror", "status") == 0
        out = capsys.readouterr().out
        assert f"{delivered} sent, {len(dead)} dead" in out
        assert str(ticket) in out and "ticket_not_found" in out
        assert "529.982.247-25" not in out and "alguém pode ver" not in out  # never what was said

    # The ticket is back (the operator fixed the ISP side): retry only that ticket's.
    assert await ispbot("mirror", "retry", "--ticket", str(ticket + 1000)) == 0
    assert "No dead entry" in capsys.readouterr().out
    assert await ispbot("mirror", "retry", "--ticket", str(ticket)) == 0
    assert f"{len(dead)} dead entr" in capsys.readouterr().out
    assert set(await states(desk.database, ticket)) == {"sent", "pending"}
    assert await worker.deliver_once() == len(dead)
    recorded = mirrored(desk.sandbox, ticket)
    assert recorded == [(row.origin, row.content) for row in await outbox_rows(desk.database, ticket)]
    assert ("C", "meu CPF é 529.982.247-25, alguém pode ver?") in recorded

    assert await ispbot("mirror", "status") == 0
    out = capsys.readouterr().out
    assert ", 0 dead." in out and "Dead entries" not in out


async def test_retry_without_a_ticket_requeues_every_dead_entry(
    desk: Desk, on: ScratchDatabase, make_worker: WorkerFactory, capsys: pytest.CaptureFixture[str],
) -> None:
    chat = await desk.linked_chat(MARIA)
    ticket = await open_ticket(chat)
    worker = make_worker(desk.database)
    with ticket_missing(desk.sandbox, ticket):
        await worker.deliver_once()
    count = len(await outbox_rows(desk.database, ticket))
    assert set(await states(desk.database)) == {"dead"}
    assert await ispbot("mirror", "retry") == 0
    assert f"{count} dead entr" in capsys.readouterr().out
    assert await worker.deliver_once() == count
    assert len(mirrored(desk.sandbox, ticket)) == count


async def test_status_of_a_database_behind_its_migrations_is_refused(
    blank_database: ScratchDatabase, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ISPBOT_DATABASE_URL", blank_database.url.render_as_string(hide_password=False))
    monkeypatch.setattr(support, "open_database", lambda _url: blank_database.reopen())
    assert await ispbot("mirror", "status") == 1
    assert "ispbot mirror:" in capsys.readouterr().err
