"""Settings name the variable that is wrong; the app refuses a database behind its migrations."""

from __future__ import annotations

from datetime import timedelta

import pytest
from bot.app import build_app
from bot.isp import IspSettings
from bot.sandbox import PRODUCTION_KEY
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


async def test_the_app_refuses_a_database_that_was_never_migrated(blank_database: ScratchDatabase) -> None:
    settings = IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY)
    with pytest.raises(DatabaseBehindError, match="ispbot migrate"):
        await build_app(blank_database, settings, BotSettings(_env_file=None))  # type: ignore[call-arg]
