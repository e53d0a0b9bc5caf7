"""``ispbot contacts``: an operator finds a contact by the protocol the person was told, exports a
customer's whole history as JSON for a data request, lists the deadlines running and settles one.
On SQLite and PostgreSQL (the ``database`` fixture)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot.cli import build_parser
from bot.commands import contacts as contacts_cli
from bot.commands import support
from bot.commands.support import run_action
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, FixedClock, Sandbox

from tests.flows.harness import Desk, make_desk
from tests.flows.test_contacts import protocol_in
from tests.flows.test_new_ticket import quiet_customer
from tests.store.conftest import database, database_url  # noqa: F401
from tests.store.dbtools import ScratchDatabase


@pytest.fixture
async def desk(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, database: ScratchDatabase,  # noqa: F811
) -> AsyncIterator[Desk]:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.setenv("ISPBOT_ISP_KEY", PRODUCTION_KEY)
    monkeypatch.setenv("ISPBOT_DATABASE_URL", database.url.render_as_string(hide_password=False))
    monkeypatch.setattr(support, "open_database", lambda _url: database.reopen())
    clock = FixedClock()
    desk = make_desk(Sandbox.seeded(clock=clock), database, clock)
    yield desk
    await desk.client.aclose()


async def ispbot(*argv: str) -> int:
    args = build_parser().parse_args(list(argv))
    return await run_action(contacts_cli.PROG, args)


async def open_a_ticket(desk: Desk) -> tuple[str, int]:
    """A contact in which a slowness ticket was opened: its protocol and the customer."""
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    protocol = protocol_in(chat.text)
    assert protocol is not None
    await chat.command("ticket")
    await chat.tap("Lentidão")
    await chat.say("Lenta toda noite")
    await chat.tap("Abrir chamado")
    return protocol, customer


async def test_show_finds_a_contact_by_its_protocol(desk: Desk, capsys: pytest.CaptureFixture[str]) -> None:
    protocol, customer = await open_a_ticket(desk)
    assert await ispbot("contacts", "show", protocol) == 0
    out = capsys.readouterr().out
    assert f"contact   {protocol}" in out and "began     2025-03-10 09:30" in out
    assert f"customer  {customer}" in out and "subjects  new_ticket" in out
    opened = r"new_ticket: ticket_opened \(ticket #\d+; complaint due 2025-03-17 09:30, running\)"
    assert re.search(opened, out)

    assert await ispbot("contacts", "show", "20250310999999") == 1
    assert "no contact with protocol 20250310999999" in capsys.readouterr().err
    assert await ispbot("contacts", "show", "abc") == 2


async def test_export_writes_the_customers_whole_history_as_json(
    desk: Desk, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    first, customer = await open_a_ticket(desk)
    desk.clock.advance(days=40)
    chat = await desk.linked_chat(customer)
    second = protocol_in(chat.text)
    await desk.linked_chat()  # another customer's contact stays out
    output = tmp_path / "history.json"
    assert await ispbot("contacts", "export", "--customer", str(customer), "--output", str(output)) == 0
    assert "Wrote 2 contact(s) and 2 link(s)" in capsys.readouterr().out
    document = json.loads(output.read_text(encoding="utf-8"))
    assert document["customer"] == customer and document["kept_for_years"] == 3
    assert [c["protocol"] for c in document["contacts"]] == [first, second]  # oldest first
    opened = document["contacts"][0]["outcomes"][0]
    assert opened["outcome"] == "ticket_opened" and opened["deadline"] == "complaint"
    assert opened["due_at"].startswith("2025-03-17T09:30:00-03:00")
    assert [link["proof"] for link in document["links"]] == ["contact_phone", "contact_phone"]

    assert await ispbot("contacts", "export", "--customer", "999999") == 1
    assert "no contact and no link of customer 999999" in capsys.readouterr().err


async def test_due_lists_the_running_deadlines_and_settle_answers_them(
    desk: Desk, capsys: pytest.CaptureFixture[str],
) -> None:
    assert await ispbot("contacts", "due") == 0
    assert "No complaint, request or contested charge waits" in capsys.readouterr().out
    protocol, _ = await open_a_ticket(desk)
    assert await ispbot("contacts", "due") == 0
    out = capsys.readouterr().out
    assert protocol in out and "complaint" in out
    assert await ispbot("contacts", "settle", protocol) == 0
    assert "Settled 1 deadline(s)" in capsys.readouterr().out
    assert await ispbot("contacts", "due") == 0
    assert "No complaint" in capsys.readouterr().out
    assert await ispbot("contacts", "settle", protocol) == 1
    assert DEMO_IDENTITIES.customer_cpf not in capsys.readouterr().err
