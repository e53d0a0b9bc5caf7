"""``ispbot locks``: the staff see which chats and people are locked out of linking, without the
tax ids or logins in clear, and clear a lock by chat, tax id or login; linking is open again at once.
On SQLite and PostgreSQL (the ``database`` fixture)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot.cli import build_parser
from bot.commands import locks as locks_cli
from bot.commands import support
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, FixedClock, Sandbox
from flows.identity import target_key
from flows.policy import Policy

from tests.flows.harness import Desk, make_desk
from tests.flows.harness import TestChat as Chat
from tests.store.conftest import database, database_url  # noqa: F401
from tests.store.dbtools import ScratchDatabase

D = DEMO_IDENTITIES
LOCKED = "tentativas de identificação estão pausadas"


@pytest.fixture
async def desk(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, database: ScratchDatabase,  # noqa: F811
) -> AsyncIterator[Desk]:
    """The bot and the command share the database, the limits and the key (the ISP key's)."""
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", "http://127.0.0.1:9")  # never called: only the key is read
    monkeypatch.setenv("ISPBOT_ISP_KEY", PRODUCTION_KEY)
    monkeypatch.setenv("ISPBOT_LINK_TARGET_MAX_FAILURES", "5")
    monkeypatch.setenv("ISPBOT_DATABASE_URL", database.url.render_as_string(hide_password=False))
    monkeypatch.setattr(support, "open_database", lambda _url: database.reopen())
    clock = FixedClock()
    policy = Policy(link_target_max_failures=5, link_target_key=target_key(PRODUCTION_KEY))
    desk = make_desk(Sandbox.seeded(clock=clock), database, clock, policy)
    yield desk
    await desk.client.aclose()


async def ispbot(*argv: str) -> int:
    args = build_parser().parse_args(list(argv))
    return await support.run_action(locks_cli.PROG, args)


async def fail_five_times(chat: Chat, *, by_login: bool) -> None:
    await chat.start()
    for _ in range(5):
        if by_login:
            await chat.tap("PPPoE")
            await chat.say(D.pppoe_login)
            await chat.say("wrong-password")
        else:
            await chat.tap("CPF/CNPJ")
            await chat.say(D.customer_cpf)
            await chat.share_contact("+5511912345678")
    assert LOCKED in chat.text


async def test_staff_see_locks_without_the_people_in_clear_and_clearing_opens_linking(
    desk: Desk, capsys: pytest.CaptureFixture[str],
) -> None:
    assert await ispbot("locks") == 0
    assert "No chat and no person is locked" in capsys.readouterr().out
    by_login, by_tax_id = desk.chat(), desk.chat()
    await fail_five_times(by_login, by_login=True)
    await fail_five_times(by_tax_id, by_login=False)

    assert await ispbot("locks") == 0
    listing = capsys.readouterr().out
    assert f"chat {by_login.chat_id}" in listing and f"chat {by_tax_id.chat_id}" in listing
    assert "login " in listing and "tax id " in listing
    assert listing.count("(America/Sao_Paulo)") == 4  # when each opens again, in the ISP's zone
    for secret in (D.pppoe_login, D.customer_cpf, "529.982.247-25"):
        assert secret not in listing

    assert await ispbot("locks", "clear", "--tax-id", "529.982.247-25") == 0
    assert "Forgot 5 failed link attempt(s)" in capsys.readouterr().out
    assert await ispbot("locks") == 0
    listing = capsys.readouterr().out
    assert f"chat {by_tax_id.chat_id}" not in listing and "tax id " not in listing
    assert f"chat {by_login.chat_id}" in listing

    assert await ispbot("locks", "clear", "--login", D.pppoe_login.upper()) == 0  # logins are case-blind
    capsys.readouterr()
    await by_login.start()
    await by_login.tap("PPPoE")
    await by_login.say(D.pppoe_login)
    await by_login.say(D.pppoe_password)
    assert "cadastro confirmado" in by_login.text


async def test_clear_by_chat_and_all_and_bad_arguments(desk: Desk, capsys: pytest.CaptureFixture[str]) -> None:
    chat = desk.chat()
    await fail_five_times(chat, by_login=True)
    assert await ispbot("locks", "clear", "--chat", str(chat.chat_id + 1)) == 1  # nothing there
    assert "no failed link attempt" in capsys.readouterr().err
    assert await ispbot("locks", "clear", "--tax-id", "529.982.247-26") == 2
    assert "not a valid CPF or CNPJ" in capsys.readouterr().err
    assert await ispbot("locks", "clear", "--chat", str(chat.chat_id)) == 0
    capsys.readouterr()
    await chat.start()
    assert LOCKED not in chat.text
    await fail_five_times(chat, by_login=False)
    assert await ispbot("locks", "clear", "--all") == 0
    assert await ispbot("locks") == 0
    assert "No chat and no person is locked" in capsys.readouterr().out
