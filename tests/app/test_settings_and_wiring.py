"""Settings name the variable that is wrong; the app refuses a database behind its migrations."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from bot.channels.telegram.settings import TelegramSettings
from bot.isp import IspSettings
from bot.runtime.app import DeskSettingsError, Settings, build_app, staff_desk
from bot.sandbox import PRODUCTION_KEY, Sandbox
from bot.settings import BotSettings
from bot.store import DatabaseBehindError
from pydantic import ValidationError

from tests.store.dbtools import ScratchDatabase


def test_settings_come_from_the_environment_and_make_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISPBOT_TICKET_MODE", "12")
    monkeypatch.setenv("ISPBOT_UNBLOCK_EVERY_DAYS", "15")
    monkeypatch.setenv("ISPBOT_LINK_WINDOW_MINUTES", "30")
    policy = BotSettings(_env_file=None).policy()  # type: ignore[call-arg]
    assert policy.ticket_mode == "12"
    assert policy.unblock_every == timedelta(days=15)
    assert policy.link_window == timedelta(minutes=30)


@pytest.mark.parametrize(
    ("variable", "value"),
    [("ISPBOT_DATABASE_URL", "mysql://x/y"), ("ISPBOT_ISP_USER", "two words"), ("ISPBOT_LINK_MAX_FAILURES", "0")],
)
def test_a_wrong_setting_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as caught:
        BotSettings(_env_file=None)  # type: ignore[call-arg]
    assert variable.removeprefix("ISPBOT_").lower() in str(caught.value)


def test_the_stock_file_is_the_technicians_catalog(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stock = tmp_path / "stock.yaml"
    Sandbox.seeded().write_stock_file(stock)  # as ispbot sandbox --stock-file writes it
    monkeypatch.setenv("ISPBOT_STOCK_FILE", str(stock))
    catalog = BotSettings(_env_file=None).policy().stock  # type: ignore[call-arg]
    drop = catalog.product(2001)
    assert drop is not None and (drop.id, drop.name, drop.serial) == (3, "Drop óptico (metro)", False)
    assert [p.code for p in catalog.search("onu huawei")] == [1001]
    location = catalog.location(1)
    assert location is not None and location.name == "Almoxarifado central"


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("products: [{code: 2001, id: 3, name: Drop}]", "expected exactly the keys code, id, name, serial"),
        ("products: [{code: 0, id: 3, name: Drop, serial: false}]", "products[0]: code must be a whole number"),
        ("locations: [{id: 1, name: A}, {id: 1, name: B}]", "location id 1 is listed twice"),
        ("products: [", "cannot read the stock catalog"),
    ],
)
def test_a_wrong_stock_file_is_refused_saying_what_to_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, content: str, says: str,
) -> None:
    stock = tmp_path / "stock.yaml"
    stock.write_text(content, encoding="utf-8")
    monkeypatch.setenv("ISPBOT_STOCK_FILE", str(stock))
    with pytest.raises(ValidationError) as caught:
        BotSettings(_env_file=None)  # type: ignore[call-arg]
    assert "stock_file" in str(caught.value) and says in str(caught.value)


async def test_the_app_refuses_a_database_that_was_never_migrated(blank_database: ScratchDatabase) -> None:
    settings = IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY)
    with pytest.raises(DatabaseBehindError, match="ispbot migrate"):
        await build_app(Settings(settings, BotSettings(_env_file=None)), database=blank_database)  # type: ignore[call-arg]


def _desk_settings(monkeypatch: pytest.MonkeyPatch, desk: str | None, group: int | None) -> Settings:
    if desk is not None:
        monkeypatch.setenv("ISPBOT_STAFF_DESK", desk)
    token = "123456:ABCdefGhIJKlmnOPQrstUVwxyz0123456789"
    telegram = TelegramSettings(telegram_token=token, staff_chat_id=group, _env_file=None)  # type: ignore[call-arg]
    isp = IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY)
    return Settings(isp, BotSettings(_env_file=None), telegram)  # type: ignore[call-arg]


def test_the_staff_desk_is_telegrams_when_a_staff_group_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    assert staff_desk(_desk_settings(monkeypatch, None, -1001234567890)) == "telegram"
    assert staff_desk(_desk_settings(monkeypatch, None, None)) is None
    assert staff_desk(_desk_settings(monkeypatch, "telegram", -1001234567890)) == "telegram"


@pytest.mark.parametrize(("desk", "group", "fix"), [
    ("telegram", None, "ISPBOT_STAFF_DESK=telegram needs ISPBOT_STAFF_CHAT_ID"),
    ("chatwoot", None, "ISPBOT_STAFF_DESK=chatwoot needs ISPBOT_CHATWOOT_URL, ISPBOT_CHATWOOT_ACCOUNT_ID, "
                       "ISPBOT_CHATWOOT_INBOX_ID, ISPBOT_CHATWOOT_API_TOKEN, ISPBOT_CHATWOOT_WEBHOOK_SECRET"),
])
def test_a_staff_desk_that_cannot_run_is_refused_saying_what_to_set(
    monkeypatch: pytest.MonkeyPatch, desk: str, group: int | None, fix: str,
) -> None:
    with pytest.raises(DeskSettingsError, match=fix):
        staff_desk(_desk_settings(monkeypatch, desk, group))


def test_an_unknown_staff_desk_is_refused_naming_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISPBOT_STAFF_DESK", "zendesk")
    with pytest.raises(ValidationError, match="staff_desk"):
        BotSettings(_env_file=None)  # type: ignore[call-arg]
