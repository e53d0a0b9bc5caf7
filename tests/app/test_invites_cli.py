"""``ispbot invite`` and ``ispbot technicians`` against the seeded sandbox served on loopback: the
printed link makes a chat the technician's through the engine; refusals create nothing; codes are
shown once; links are listed and removed. On SQLite and PostgreSQL (the ``database`` fixture)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from bot.cli import build_parser, main
from bot.commands import invites as invites_cli
from bot.commands import support
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, FixedClock, Sandbox
from bot.sandbox.server import SandboxServer, free_port
from bot.store import Database, Invites, Links, Role

from tests.flows.harness import Desk, make_desk
from tests.store.dbtools import ScratchDatabase
from tests.telegram.fake_bot_api import BOT_USERNAME, DEFAULT_TOKEN, FakeBotApi

D = DEMO_IDENTITIES
CODE = r"[A-Za-z0-9_-]{22}"


@pytest.fixture(scope="module")
def isp_url() -> Iterator[str]:
    """The seeded sandbox over real HTTP; these commands only read its users."""
    with SandboxServer(Sandbox.seeded()) as server:
        yield server.url


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, isp_url: str) -> pytest.MonkeyPatch:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    for name in ("ISPBOT_TELEGRAM_TOKEN", "ISPBOT_TELEGRAM_API_URL", "ISPBOT_MODE", "ISPBOT_ISP_TIMEZONE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", isp_url)
    monkeypatch.setenv("ISPBOT_ISP_KEY", PRODUCTION_KEY)
    return monkeypatch


@pytest.fixture
def on(env: pytest.MonkeyPatch, database: ScratchDatabase) -> ScratchDatabase:
    """The commands use the test's scratch database (its own schema on PostgreSQL)."""
    env.setenv("ISPBOT_DATABASE_URL", database.url.render_as_string(hide_password=False))
    env.setattr(support, "open_database", lambda _url: database.reopen())
    return database


@pytest.fixture
async def desk(on: ScratchDatabase) -> AsyncIterator[Desk]:
    clock = FixedClock()
    desk = make_desk(Sandbox.seeded(clock=clock), on, clock)
    yield desk
    await desk.client.aclose()


async def ispbot(*argv: str) -> int:
    """``ispbot ARGV`` inside the test's event loop (``main`` runs its own)."""
    return await invites_cli.execute(build_parser().parse_args(list(argv)))


async def active_invites(database: Database) -> list[str]:
    async with database.transaction() as session:
        return [invite.system_user for invite in await Invites().list_active(session)]


async def role_of(database: Database, chat_id: int) -> Role | None:
    async with database.transaction() as session:
        link = await Links().active(session, chat_id)
    return link.role if link else None


async def test_the_printed_link_makes_the_chat_the_technicians(
    desk: Desk, capsys: pytest.CaptureFixture[str],
) -> None:
    assert await ispbot("invite", "technician", D.technician, "--bot-username", "@MeuProvedorBot") == 0
    out = capsys.readouterr().out
    found = re.search(rf"https://t\.me/MeuProvedorBot\?start=({CODE})(?=\s)", out)
    assert found, out
    assert "tecnico.joao" in out and "America/Sao_Paulo" in out
    chat = desk.chat()
    await chat.start(found.group(1))
    assert "tecnico.joao" in chat.text
    assert any("Chamado em mãos" in label for label in chat.buttons)  # the technician's menu
    assert await role_of(desk.database, chat.chat_id) is Role.TECHNICIAN


async def test_a_staff_invite_makes_the_chat_a_staff_members(desk: Desk, capsys: pytest.CaptureFixture[str]) -> None:
    assert await ispbot("invite", "staff", "atendente.carla", "--bot-username", "MeuProvedorBot") == 0
    out = capsys.readouterr().out
    found = re.search(rf"\?start=({CODE})(?=\s)", out)
    assert found, out
    assert "staff member atendente.carla" in out
    chat = desk.chat()
    await chat.start(found.group(1))
    assert "tópicos do grupo da equipe" in chat.text
    assert await role_of(desk.database, chat.chat_id) is Role.STAFF


async def test_without_a_bot_username_the_code_and_the_link_pattern_are_printed(
    on: ScratchDatabase, capsys: pytest.CaptureFixture[str],
) -> None:
    assert await ispbot("invite", "technician", D.technician, "--hours", "2") == 0
    out = capsys.readouterr().out
    assert re.search(rf"Code: {CODE}\n", out)
    assert re.search(rf"https://t\.me/<bot username>\?start={CODE}", out)
    assert "ISPBOT_TELEGRAM_TOKEN" in out and "--bot-username" in out
    assert await active_invites(on) == [D.technician]


async def test_the_bot_username_is_asked_from_telegram_when_a_token_is_set(
    on: ScratchDatabase, env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    async with FakeBotApi() as api:
        env.setenv("ISPBOT_TELEGRAM_TOKEN", DEFAULT_TOKEN)
        env.setenv("ISPBOT_TELEGRAM_API_URL", api.base_url)
        assert await ispbot("invite", "technician", D.technician) == 0
        assert api.calls["getMe"] == 1
    out = capsys.readouterr().out
    assert re.search(rf"https://t\.me/{BOT_USERNAME}\?start={CODE}(?=\s)", out), out
    assert DEFAULT_TOKEN not in out


async def test_a_refused_token_or_an_unreachable_telegram_creates_nothing(
    on: ScratchDatabase, env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    async with FakeBotApi(token="42:AAnotTheTokenTheBotIsConfiguredWithXYZ") as api:
        env.setenv("ISPBOT_TELEGRAM_TOKEN", DEFAULT_TOKEN)
        env.setenv("ISPBOT_TELEGRAM_API_URL", api.base_url)
        assert await ispbot("invite", "technician", D.technician) == 2
    assert "ISPBOT_TELEGRAM_TOKEN" in one_line(capsys.readouterr().err)
    env.setenv("ISPBOT_TELEGRAM_API_URL", f"http://127.0.0.1:{free_port()}")  # nobody listens there
    assert await ispbot("invite", "technician", D.technician) == 3
    assert "--bot-username" in one_line(capsys.readouterr().err)
    assert await active_invites(on) == []


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(("user", "word"), [
    ("tecnico.pedro", "blocked"), ("tecnico.ana", "inactive"), ("ninguem.aqui", "not a system user"),
])
async def test_a_blocked_inactive_or_unknown_user_is_refused_and_nothing_is_created(
    on: ScratchDatabase, capsys: pytest.CaptureFixture[str], user: str, word: str,
) -> None:
    assert await ispbot("invite", "technician", user, "--bot-username", "MeuProvedorBot") == 1
    captured = capsys.readouterr()
    err = one_line(captured.err)
    assert err.startswith("ispbot invite: ") and user in err and word in err
    assert "t.me" not in captured.out
    assert await active_invites(on) == []


async def test_an_unreachable_isp_exits_3_and_creates_nothing(
    on: ScratchDatabase, env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    env.setenv("ISPBOT_ISP_BASE_URL", f"http://127.0.0.1:{free_port()}")
    env.setenv("ISPBOT_ISP_RETRIES", "0")
    assert await ispbot("invite", "technician", D.technician) == 3
    assert "ConsultaUsuarios" in one_line(capsys.readouterr().err)
    assert await active_invites(on) == []


async def test_list_never_prints_codes_and_revoke_kills_the_link(
    desk: Desk, capsys: pytest.CaptureFixture[str],
) -> None:
    assert await ispbot("invite", "technician", D.technician) == 0
    assert await ispbot("invite", "technician", "tecnico.maria") == 0
    codes = re.findall(rf"Code: ({CODE})", capsys.readouterr().out)
    assert len(codes) == 2

    assert await ispbot("invite", "list") == 0
    listing = capsys.readouterr().out
    assert D.technician in listing and "tecnico.maria" in listing and "technician" in listing
    assert not any(code in listing for code in codes)
    first_id = re.search(rf"^\s*(\d+)\s+technician\s+{re.escape(D.technician)}", listing, re.MULTILINE)
    assert first_id, listing

    assert await ispbot("invite", "revoke", first_id.group(1)) == 0
    assert "revoked" in capsys.readouterr().out
    assert await active_invites(desk.database) == ["tecnico.maria"]
    chat = desk.chat()
    await chat.start(codes[0])
    assert "não vale" in chat.text  # the revoked link no longer works
    assert await role_of(desk.database, chat.chat_id) is None

    assert await ispbot("invite", "revoke", first_id.group(1)) == 1  # twice: nothing left to revoke
    assert "no usable invite" in one_line(capsys.readouterr().err)
    assert await ispbot("invite", "revoke", "999999") == 1
    capsys.readouterr()


async def test_technicians_lists_linked_chats_and_remove_unlinks_them(
    desk: Desk, capsys: pytest.CaptureFixture[str],
) -> None:
    assert await ispbot("technicians") == 0
    assert "No chat is linked" in capsys.readouterr().out
    joao, maria = await desk.technician_chat(), await desk.technician_chat("tecnico.maria")

    assert await ispbot("technicians") == 0
    listing = capsys.readouterr().out
    assert re.search(rf"{re.escape(D.technician)}\s+{joao.chat_id}\b", listing), listing
    assert re.search(rf"tecnico\.maria\s+{maria.chat_id}\b", listing), listing

    assert await ispbot("technicians", "--remove", D.technician) == 0
    assert str(joao.chat_id) in capsys.readouterr().out
    assert await role_of(desk.database, joao.chat_id) is None
    await joao.command("menu")  # the removed technician meets a stranger's greeting, not their menu
    assert "titular do cadastro" in joao.text
    assert not any("Chamado em mãos" in label for label in joao.buttons)

    assert await ispbot("technicians", "--remove", str(maria.chat_id)) == 0  # by chat id
    assert await role_of(desk.database, maria.chat_id) is None
    capsys.readouterr()
    assert await ispbot("technicians", "--remove", D.technician) == 1
    assert "no technician chat" in one_line(capsys.readouterr().err)
    assert await ispbot("technicians") == 0
    assert "No chat is linked" in capsys.readouterr().out


async def test_a_database_behind_its_migrations_is_refused_like_the_other_commands(
    env: pytest.MonkeyPatch, blank_database: ScratchDatabase, capsys: pytest.CaptureFixture[str],
) -> None:
    env.setattr(support, "open_database", lambda _url: blank_database.reopen())
    for argv in (("invite", "technician", D.technician), ("invite", "list"), ("technicians",)):
        assert await ispbot(*argv) == 1
        err = one_line(capsys.readouterr().err)
        assert "ispbot migrate" in err and "no ispbot schema" in err


def test_ispbot_main_runs_the_command_and_refuses_bad_arguments_with_exit_2(
    env: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    env.setenv("ISPBOT_DATABASE_URL", f"sqlite:///{tmp_path / 'never-migrated.sqlite3'}")
    assert main(["invite", "technician", D.technician, "--hours", "0"]) == 2
    assert "--hours" in one_line(capsys.readouterr().err)
    assert main(["invite", "technician", D.technician, "--bot-username", "not a name"]) == 2
    assert "--bot-username" in one_line(capsys.readouterr().err)
    assert main(["invite", "list"]) == 1
    assert "ispbot migrate" in one_line(capsys.readouterr().err)
    env.delenv("ISPBOT_ISP_KEY")
    assert main(["invite", "technician", D.technician]) == 2
    assert "ISPBOT_ISP_KEY" in one_line(capsys.readouterr().err)
