"""``ispbot doctor`` against the seeded sandbox ISP served on loopback and the fake Bot API, on SQLite
and PostgreSQL (the ``database`` fixture): the line the operator reads for each check, and the exit
code (0 when nothing failed, 1 otherwise)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import NamedTuple
from zoneinfo import ZoneInfo

import httpx
import pytest
from bot.cli import build_parser
from bot.commands import doctor as doctor_cli
from bot.commands import support
from bot.doctor.operations import needed_operations
from bot.isp import IspClient, IspSettings
from bot.sandbox import DEMO_IDENTITIES, HOMOLOGATION_KEY, INACTIVE_KEY, PRODUCTION_KEY, RESTRICTED_KEY, Sandbox
from bot.sandbox.keys import RESTRICTED_OPERATIONS
from bot.sandbox.server import SandboxServer
from bot.store import ChatStates, Database
from bot.store.migrate import head_revision
from flows.coordinator import IspCoordinator

from tests.store.dbtools import ScratchDatabase
from tests.telegram.fake_bot_api import DEFAULT_TOKEN, FakeBotApi, Group
from tests.telegram.odd_proxy import ODD, OddProxy

STAFF_GROUP = -1001234567890
SECRET = "doctor-webhook-secret-0123456789"
OTHER_TOKEN = "987654321:AAAnotherTokenTelegramDoesNotKnow0000"


@pytest.fixture
def sandbox() -> Iterator[tuple[Sandbox, SandboxServer]]:
    """A seeded sandbox of the test's own (the homologation test counts on nobody else writing)."""
    sandbox = Sandbox.seeded()
    with SandboxServer(sandbox) as server:
        yield sandbox, server


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(max_poll_timeout=0.2) as server:
        yield server


@pytest.fixture
def configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, sandbox: tuple[Sandbox, SandboxServer], api: FakeBotApi,
) -> pytest.MonkeyPatch:
    """Everything but the database configured right: the bot polling, a staff group, the production key."""
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    for name in ("ISPBOT_MODE", "ISPBOT_WEBHOOK_URL", "ISPBOT_WEBHOOK_SECRET", "ISPBOT_ISP_TIMEZONE",
                 "ISPBOT_SUPPORT_PHONE", "ISPBOT_SUPPORT_HOURS", "ISPBOT_SALES_PHONE", "ISPBOT_SALES_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", sandbox[1].url)
    monkeypatch.setenv("ISPBOT_ISP_KEY", PRODUCTION_KEY)
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", DEFAULT_TOKEN)
    monkeypatch.setenv("ISPBOT_TELEGRAM_API_URL", api.base_url)
    monkeypatch.setenv("ISPBOT_STAFF_CHAT_ID", str(STAFF_GROUP))
    return monkeypatch


def use(env: pytest.MonkeyPatch, database: ScratchDatabase) -> pytest.MonkeyPatch:
    """The doctor reads the test's scratch database (its own schema on PostgreSQL)."""
    env.setenv("ISPBOT_DATABASE_URL", database.url.render_as_string(hide_password=False))
    env.setattr(support, "open_database", lambda _url: database.reopen())
    return env


@pytest.fixture
def env(configured: pytest.MonkeyPatch, database: ScratchDatabase) -> pytest.MonkeyPatch:
    """Everything configured right, the database migrated."""
    return use(configured, database)


async def doctor(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, list[str]]]:
    """``ispbot doctor`` inside the test's loop: its exit code and its lines by check name. The timeout is
    generous: a homologation key's probes each copy the sandbox's data set, slow on a busy machine."""
    code = await doctor_cli.execute(build_parser().parse_args(["doctor", "--timeout", "30"]))
    out = capsys.readouterr().out
    lines: dict[str, list[str]] = {}
    for line in out.splitlines():
        status, check, text = line.split(maxsplit=2)
        lines.setdefault(check, []).append(f"{status} {text}")
    return code, lines


def only(lines: dict[str, list[str]], check: str) -> str:
    assert len(lines.get(check, [])) == 1, lines
    return lines[check][0]


async def set_webhook(api: FakeBotApi, url: str) -> None:
    async with httpx.AsyncClient() as client:
        answer = await client.post(f"{api.base_url}/bot{api.token}/setWebhook", json={"url": url})
    assert answer.json()["ok"] is True


async def ticket_opened_with(key: str, url: str, database: Database) -> int:
    """A ticket the bot opens for Maria with ``key``, recorded as her conversation's ticket."""
    settings = IspSettings(base_url=url, key=key)
    async with IspClient(settings) as client:
        coordinator = IspCoordinator(client, zone=ZoneInfo("America/Sao_Paulo"))
        topic = (await coordinator.subscriber_topics())[0]
        ticket = await coordinator.open_ticket(
            customer=DEMO_IDENTITIES.customer, contract=DEMO_IDENTITIES.contract, topic=topic,
            subject="Sem conexão", description="", mode=DEMO_IDENTITIES.telegram_mode, user=None,
        )
    states = ChatStates()
    async with database.transaction() as session:
        state = await states.load(session, 555)
        state.current_ticket = ticket
        await states.save(session, state)
    return ticket


# ---- all well ----------------------------------------------------------------------------------
async def test_all_well_every_check_passes_and_no_secret_is_printed(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], database: ScratchDatabase,
) -> None:
    code, lines = await doctor(capsys)

    assert code == 0
    assert only(lines, "database") == f"ok {database.dialect}, migrated to {head_revision()}"
    assert only(lines, "telegram").startswith("ok token accepted: @ispbot_test_bot")
    assert only(lines, "webhook").startswith("ok none set, as polling needs; 0 updates waiting")
    assert only(lines, "staff-group").startswith(f"ok chat {STAFF_GROUP} is a forum supergroup")
    assert only(lines, "reach") == "ok people not linked to a customer, and prospects, are handed to the staff group"
    assert "the key is accepted" in only(lines, "isp")
    assert only(lines, "isp-operations").startswith(f"ok the key may call all {len(needed_operations())} operations")
    assert only(lines, "isp-environment").startswith("warn UNKNOWN: the web service cannot say")
    printed = "\n".join(line for check in lines.values() for line in check)
    assert DEFAULT_TOKEN not in printed and DEFAULT_TOKEN.split(":")[1] not in printed
    assert PRODUCTION_KEY not in printed


async def test_the_probes_change_nothing_in_the_isp_system(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], sandbox: tuple[Sandbox, SandboxServer],
) -> None:
    before = sandbox[0].export()
    code, _ = await doctor(capsys)
    assert code == 0
    assert sandbox[0].export() == before
    assert sandbox[0].call_count("ticket_update") == 1 and sandbox[0].call_count("AtendimentoCadastro") == 1


async def test_the_operations_checked_are_read_from_the_code() -> None:
    used = {need.name: need.used_in for need in needed_operations()}
    assert used["chat_messages"] == ("bot/mirror/worker.py",)
    assert used["ticket_assign"] == ("flows/coordinator.py",)  # the one door (tests/flows/test_one_door.py)
    assert "flows/coordinator.py" in used["AtendimentoCadastro"]
    assert not any(name.startswith("contract_insert") for name in used)  # the bot never creates contracts


async def test_without_a_staff_group_the_desk_is_said_off(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    env.delenv("ISPBOT_STAFF_CHAT_ID")
    code, lines = await doctor(capsys)
    assert code == 0
    assert only(lines, "staff-group").startswith("ok ISPBOT_STAFF_CHAT_ID not set")
    # Nor a support phone: someone not linked to a customer has nobody to reach, said as a warning.
    assert only(lines, "reach").startswith("warn neither ISPBOT_STAFF_CHAT_ID nor ISPBOT_SUPPORT_PHONE is set")


async def test_cancelling_in_the_chat_names_the_isp_ids_it_still_needs(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], database: ScratchDatabase,
) -> None:
    code, lines = await doctor(capsys)
    assert code == 0
    assert only(lines, "cancel").startswith(
        "warn ISPBOT_CANCEL_REVERSAL_REASON, ISPBOT_CANCEL_FINE_ACCOUNT, ISPBOT_CANCEL_FINE_HISTORY not set: "
        "cancels are handed to a person")
    for name in ("ISPBOT_CANCEL_REVERSAL_REASON", "ISPBOT_CANCEL_FINE_ACCOUNT", "ISPBOT_CANCEL_FINE_HISTORY"):
        env.setenv(name, "2")
    code, lines = await doctor(capsys)
    assert only(lines, "cancel") == "ok subscribers cancel in the chat (contract_cancel), with no retention offer"


async def test_without_a_staff_group_the_support_phone_is_how_people_not_linked_reach_a_person(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    env.delenv("ISPBOT_STAFF_CHAT_ID")
    env.setenv("ISPBOT_SUPPORT_PHONE", "0800 123 4567")
    code, lines = await doctor(capsys)
    assert code == 0
    reach = only(lines, "reach")
    assert reach.startswith("ok no staff group: people not linked are told ISPBOT_SUPPORT_PHONE without hours")
    assert "no ISPBOT_SALES_PHONE nor ISPBOT_SALES_ADDRESS" in reach and "0800" not in reach


# ---- the database --------------------------------------------------------------------------------
@pytest.fixture
async def unmigrated(configured: pytest.MonkeyPatch, blank_database: ScratchDatabase) -> ScratchDatabase:
    async with blank_database.engine.connect():
        pass  # an empty SQLite file, or an empty schema on PostgreSQL
    use(configured, blank_database)
    return blank_database


async def test_an_unmigrated_database_fails_and_the_other_checks_still_run(
    unmigrated: ScratchDatabase, capsys: pytest.CaptureFixture[str],
) -> None:
    code, lines = await doctor(capsys)
    assert code == 1
    assert only(lines, "database") == (
        f"FAIL {unmigrated.dialect}: the database has no ispbot schema yet (needs revision {head_revision()}): "
        "run `ispbot migrate`"
    )
    assert only(lines, "telegram").startswith("ok ") and only(lines, "isp-operations").startswith("ok ")
    assert "database could not be read" in only(lines, "isp-environment")


async def test_a_missing_sqlite_file_is_reported_not_created(
    configured: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    configured.setenv("ISPBOT_DATABASE_URL", "sqlite:///nowhere/ispbot.sqlite3")
    code, lines = await doctor(capsys)
    assert code == 1
    assert only(lines, "database") == (
        f"FAIL sqlite: no file nowhere/ispbot.sqlite3 (in the working directory {tmp_path}): check "
        "ISPBOT_DATABASE_URL, or create it with `ispbot migrate`"
    )
    assert not (tmp_path / "nowhere").exists()


async def test_a_database_that_does_not_answer_fails_without_printing_its_url(
    configured: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    configured.setenv("ISPBOT_DATABASE_URL", "postgresql://ispbot:s3cr3t-pw@127.0.0.1:1/ispbot")
    code, lines = await doctor(capsys)
    assert code == 1
    line = only(lines, "database")
    assert line.startswith("FAIL postgresql: cannot connect (")
    assert line.endswith("check ISPBOT_DATABASE_URL and that the database server is up")
    assert "s3cr3t-pw" not in str(lines)


# ---- one thing wrong: its check fails naming the fix, what depends on it is not asked, the rest runs --
WEB_SERVICES = "Company > Parameters > Web Services"
REFUSED_KEY = (
    "FAIL the web service refused the integration key (code 97: invalid or inactive): set ISPBOT_ISP_KEY to an "
    f"active key of {WEB_SERVICES}"
)


class Wrong(NamedTuple):
    variable: str
    value: str
    check: str  # the one check that fails
    expected: str  # how its line starts
    not_asked: tuple[str, ...] = ()  # checks it makes meaningless


TELEGRAM_DEPENDS = ("webhook", "staff-group")
ISP_DEPENDS = ("isp-operations", "isp-environment")


@pytest.mark.parametrize("wrong", [
    Wrong("ISPBOT_DATABASE_URL", "mysql://db/ispbot", "settings",
          "FAIL configuration: ISPBOT_DATABASE_URL: not a database URL the bot can use", ("database",)),
    Wrong("ISPBOT_SUPPORT_HOURS", "seg a sex", "settings",  # the bot tells when the desk opens: a schedule
          "FAIL configuration: ISPBOT_SUPPORT_HOURS: no hours in 'seg a sex': write the days, then the hours, "
          "e.g. 'seg-sex 08:00-18:00; sáb 08:00-12:00'", ("database",)),
    Wrong("ISPBOT_TELEGRAM_TOKEN", "not-a-token", "telegram",
          "FAIL configuration: ISPBOT_TELEGRAM_TOKEN: does not look like a bot token", TELEGRAM_DEPENDS),
    Wrong("ISPBOT_TELEGRAM_TOKEN", OTHER_TOKEN, "telegram",
          "FAIL token refused by Telegram (401 Unauthorized): set ISPBOT_TELEGRAM_TOKEN to the token @BotFather "
          "gave this bot", TELEGRAM_DEPENDS),
    Wrong("ISPBOT_ISP_BASE_URL", "http://erp.example.net", "isp",
          "FAIL configuration: ISPBOT_ISP_BASE_URL: must use https:// (plain http is accepted only for loopback "
          "hosts)", ISP_DEPENDS),
    Wrong("ISPBOT_ISP_KEY", INACTIVE_KEY, "isp", REFUSED_KEY, ISP_DEPENDS),
    Wrong("ISPBOT_ISP_KEY", "a-key-nobody-issued", "isp", REFUSED_KEY, ISP_DEPENDS),
], ids=lambda wrong: f"{wrong.variable}={wrong.value[:12]}")
async def test_one_wrong_setting_fails_its_check_and_only_what_depends_on_it(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], wrong: Wrong,
) -> None:
    env.setenv(wrong.variable, wrong.value)
    code, lines = await doctor(capsys)
    assert code == 1
    assert only(lines, wrong.check).startswith(wrong.expected)
    assert not set(wrong.not_asked) & set(lines)
    failed = {name for name, found in lines.items() if any(line.startswith("FAIL") for line in found)}
    assert failed == {wrong.check}
    if wrong.variable in ("ISPBOT_TELEGRAM_TOKEN", "ISPBOT_ISP_KEY"):
        assert wrong.value.rsplit(":", maxsplit=1)[-1] not in str(lines)  # never printed


async def test_every_wrong_or_missing_setting_has_its_own_line(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("ISPBOT_TELEGRAM_TOKEN", "ISPBOT_ISP_BASE_URL", "ISPBOT_ISP_KEY"):
        env.delenv(name)
    env.setenv("ISPBOT_CONCURRENCY", "0")
    code, lines = await doctor(capsys)
    assert code == 1
    assert [line.split(": ")[1] for line in lines["telegram"]] == ["ISPBOT_TELEGRAM_TOKEN", "ISPBOT_CONCURRENCY"]
    assert lines["isp"] == [
        "FAIL configuration: ISPBOT_ISP_BASE_URL: not set (Root of the installation, e.g. https://erp.example.net)",
        "FAIL configuration: ISPBOT_ISP_KEY: not set (Integration key of the web-service instance)",
    ]


# ---- Telegram ------------------------------------------------------------------------------------
async def test_a_polling_bot_with_a_webhook_set_fails(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], api: FakeBotApi,
) -> None:
    await set_webhook(api, "https://old-server.example.net/telegram/0123abcd")
    code, lines = await doctor(capsys)
    assert code == 1
    line = only(lines, "webhook")
    assert line.startswith("FAIL a webhook is set (https://old-server.example.net) but ISPBOT_MODE=polling")
    assert "set ISPBOT_MODE=webhook" in line and "0123abcd" not in line


@pytest.fixture
def webhook_mode(env: pytest.MonkeyPatch) -> str:
    env.setenv("ISPBOT_MODE", "webhook")
    env.setenv("ISPBOT_WEBHOOK_URL", "https://bot.example.net")
    env.setenv("ISPBOT_WEBHOOK_SECRET", SECRET)
    from bot.channels.telegram.settings import TelegramSettings  # noqa: PLC0415 - after the environment is set

    settings = TelegramSettings()
    return f"{settings.webhook_url}{settings.webhook_path}"


async def test_webhook_mode_with_its_own_webhook_passes(
    webhook_mode: str, capsys: pytest.CaptureFixture[str], api: FakeBotApi,
) -> None:
    await set_webhook(api, webhook_mode)
    code, lines = await doctor(capsys)
    assert code == 0
    assert only(lines, "webhook").startswith("ok Telegram posts to https://bot.example.net as ISPBOT_WEBHOOK_URL says")


async def test_webhook_mode_with_another_address_and_a_delivery_error(
    webhook_mode: str, capsys: pytest.CaptureFixture[str], api: FakeBotApi,
) -> None:
    await set_webhook(api, "https://elsewhere.example.net/telegram/ffff")
    api.webhook_delivery_failed("Connection refused", at=1_790_000_000)
    code, lines = await doctor(capsys)
    assert code == 1
    moved, error = lines["webhook"]
    assert moved.startswith("FAIL Telegram posts this bot's updates to https://elsewhere.example.net, not to "
                            "ISPBOT_WEBHOOK_URL (https://bot.example.net)")
    assert error == (
        "warn Telegram's last delivery failed at 2026-09-21 14:13 UTC: Connection refused; check that "
        "https://elsewhere.example.net reaches this server through the reverse proxy"
    )
    assert SECRET not in str(lines)


async def test_webhook_mode_before_the_first_run_is_a_warning(
    webhook_mode: str, capsys: pytest.CaptureFixture[str],
) -> None:
    code, lines = await doctor(capsys)
    assert code == 0
    assert only(lines, "webhook").startswith("warn none registered yet: `ispbot run` registers https://bot.example.net")


@pytest.mark.parametrize(("group", "expected"), [
    (None, f"FAIL chat {STAFF_GROUP} cannot be reached by the bot (BadRequest: Chat not found): add the bot"),
    (Group(bot_status="kicked"), f"FAIL chat {STAFF_GROUP} cannot be reached by the bot (Forbidden: bot was "
                                 "kicked from the supergroup chat)"),
    (Group(is_forum=False), f"FAIL chat {STAFF_GROUP} is a supergroup without topics, not a forum: turn Topics on"),
    (Group(bot_status="member"), f"FAIL the bot is 'member' in chat {STAFF_GROUP}, not an administrator"),
    (Group(can_manage_topics=False), f"FAIL the bot is an administrator of chat {STAFF_GROUP} without "
                                     "'Manage topics'"),
])
async def test_a_staff_group_the_bot_cannot_work_in_fails(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], api: FakeBotApi, group: Group | None,
    expected: str,
) -> None:
    api.set_group(STAFF_GROUP, group)
    code, lines = await doctor(capsys)
    assert code == 1
    assert only(lines, "staff-group").startswith(expected)


# ---- the ISP -------------------------------------------------------------------------------------
async def test_an_isp_that_does_not_answer_fails_naming_the_address(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], sandbox: tuple[Sandbox, SandboxServer],
) -> None:
    sandbox[1].go_down()
    code, lines = await doctor(capsys)
    assert code == 1
    line = only(lines, "isp")
    assert line.startswith(f"FAIL generation 1.0 at {sandbox[1].url}/ws/server_json.php: ")
    assert "check ISPBOT_ISP_BASE_URL, ISPBOT_ISP_V1_PATH and the network" in line


async def test_a_restricted_key_names_the_operations_it_may_not_call(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    env.setenv("ISPBOT_ISP_KEY", RESTRICTED_KEY)
    code, lines = await doctor(capsys)
    assert code == 1
    assert only(lines, "isp").startswith("ok ")
    line = only(lines, "isp-operations")
    refused = [need for need in needed_operations() if need.name not in RESTRICTED_OPERATIONS]
    assert line.startswith(f"FAIL the key may not call {len(refused)} of the {len(needed_operations())} operations ")
    assert "ticket_assign (flows/coordinator.py)" in line
    assert "chat_messages (bot/mirror/worker.py)" in line
    assert "ConsultaClientes" not in line  # the restricted key may read customers
    assert line.endswith("permit them for this key in Company > Parameters > Web Services")


async def test_a_homologation_key_is_said_loudly(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], sandbox: tuple[Sandbox, SandboxServer],
    database: ScratchDatabase,
) -> None:
    env.setenv("ISPBOT_ISP_KEY", HOMOLOGATION_KEY)
    await ticket_opened_with(HOMOLOGATION_KEY, sandbox[1].url, database)
    code, lines = await doctor(capsys)
    assert code == 0  # the configuration works; the operator is told what it means
    line = only(lines, "isp-environment")
    assert line.startswith("warn HOMOLOGATION KEY: NOTHING IS PERSISTED. None of the 1 tickets the bot recorded")
    assert "set ISPBOT_ISP_KEY to the production key" in line


async def test_a_production_key_is_said_once_its_tickets_are_found(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], sandbox: tuple[Sandbox, SandboxServer],
    database: ScratchDatabase,
) -> None:
    await ticket_opened_with(PRODUCTION_KEY, sandbox[1].url, database)
    code, lines = await doctor(capsys)
    assert code == 0
    assert only(lines, "isp-environment") == (
        "ok PRODUCTION: 1 of the 1 tickets the bot recorded most recently are in the ISP system"
    )


@pytest.mark.parametrize(("odd", "said"), [
    ("404", "answered getMe with Not Found: check ISPBOT_TELEGRAM_API_URL (the Bot API's root"),
    ("html 200", "gave getMe an answer that is not the Bot API's JSON (a page or a truncated body): check "
                 "ISPBOT_TELEGRAM_API_URL"),
])
async def test_what_is_not_the_bot_api_fails_in_the_words_ispbot_run_stops_with(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], api: FakeBotApi, odd: str, said: str,
) -> None:
    async with OddProxy(api.base_url) as proxy, proxy.answering(ODD[odd]):
        env.setenv("ISPBOT_TELEGRAM_API_URL", proxy.base_url)
        code, lines = await doctor(capsys)
    assert code == 1
    line = only(lines, "telegram")
    assert line.startswith(f"FAIL the Bot API at {proxy.base_url} ") and said in line
    assert not set(TELEGRAM_DEPENDS) & set(lines)


# ---- bounded -------------------------------------------------------------------------------------
async def test_a_check_that_hangs_is_cut_at_the_timeout(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], api: FakeBotApi,
) -> None:
    api.latency = 4.0
    code = await doctor_cli.execute(build_parser().parse_args(["doctor", "--timeout", "1.5"]))
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    telegram = next(line for line in out if line.split()[1] == "telegram")
    assert telegram.startswith("FAIL  telegram") and "check ISPBOT_TELEGRAM_API_URL and the network" in telegram
    assert any(line.startswith("ok    database ") for line in out)  # the other checks went on
