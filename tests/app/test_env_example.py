"""``.env.example`` at the root is what ``python -m bot.env_example`` writes from the settings classes,
lists every one of them, and is a working ``.env`` once its required lines are filled in."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from pathlib import Path

import pytest
from bot.channels.telegram.settings import TelegramSettings
from bot.env_example import SECTIONS, env_example
from bot.isp import IspSettings
from bot.settings import BotSettings
from pydantic_settings import BaseSettings

ROOT = Path(__file__).resolve().parents[2]
FILLED = {
    "ISPBOT_TELEGRAM_TOKEN": "7412589630:AAHd-Xq3rJ_9vNc2LmPz8TyKe5WuBg1sQoF",
    "ISPBOT_ISP_BASE_URL": "https://erp.example.net",
    "ISPBOT_ISP_KEY": "the-integration-key",
    "POSTGRES_PASSWORD": "s3cret",
}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("ISPBOT_") and name != "ISPBOT_TEST_DATABASE_URL":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_the_file_is_what_the_settings_say() -> None:
    compose = ROOT / "compose.yaml"
    expected = env_example(compose.read_text(encoding="utf-8") if compose.is_file() else None)
    found = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert found == expected, "stale .env.example: run `python -m bot.env_example > .env.example` at the root"


def test_every_settings_class_of_the_bot_has_its_section() -> None:
    for package in ("bot", "flows"):
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, prefix=f"{package}."):
            if ".migrations" not in info.name:  # Alembic's scripts run only inside Alembic
                importlib.import_module(info.name)
    ours = {kind for kind in BaseSettings.__subclasses__() if kind.__module__.split(".")[0] in ("bot", "flows")}
    listed = {kind for _, kind in SECTIONS}
    assert listed <= ours
    # A class without a section of its own reads only variables another section lists (ServerSettings:
    # the web server's, under Telegram's, which carries them too).
    for kind in ours - listed:
        assert set(kind.model_fields) <= {name for other in listed for name in other.model_fields}, kind


def test_filled_in_it_is_a_working_dotenv_and_its_defaults_are_the_settings_defaults(tmp_path: Path) -> None:
    lines = []
    for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        assignment = re.fullmatch(r"(?:# )?([A-Z][A-Z0-9_]*)=(.*)", line)
        if assignment:  # every line, the commented defaults too: each must be a value the bot accepts
            name, value = assignment.groups()
            lines.append(f"{name}={FILLED.get(name, value)}")
    (tmp_path / ".env").write_text("\n".join(lines) + "\n", encoding="utf-8")
    telegram, isp, bot_settings = TelegramSettings(), IspSettings(), BotSettings()
    assert telegram.telegram_token.get_secret_value() == FILLED["ISPBOT_TELEGRAM_TOKEN"]
    assert isp.base_url == FILLED["ISPBOT_ISP_BASE_URL"]
    assert bot_settings == BotSettings(_env_file=None)  # nothing shown differs from a default
    assert telegram.model_dump(exclude={"telegram_token"}) == TelegramSettings(
        telegram_token=FILLED["ISPBOT_TELEGRAM_TOKEN"], _env_file=None,
    ).model_dump(exclude={"telegram_token"})
    assert isp.model_dump(exclude={"base_url", "key"}) == IspSettings(
        base_url=FILLED["ISPBOT_ISP_BASE_URL"], key="k", _env_file=None,
    ).model_dump(exclude={"base_url", "key"})


def test_a_required_setting_is_an_uncommented_empty_line_and_an_optional_one_a_commented_default() -> None:
    text = env_example()
    assert "\nISPBOT_TELEGRAM_TOKEN=\n" in text and "\nISPBOT_ISP_KEY=\n" in text
    assert "\n# ISPBOT_MODE=polling\n" in text and "\n# ISPBOT_UNBLOCK_ENABLED=true\n" in text
    assert "compose.yaml" not in text.split("\n\n", 1)[1]  # no compose section without a compose.yaml


def test_the_variables_compose_takes_from_dotenv_are_listed() -> None:
    compose = (
        "x: ${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in .env}\ny: ${PUBLISH_PORT:-8080} ${PUBLISH_PORT:-8080}\n"
        "z: ${ISPBOT_MODE:-}\n"
    )
    section = env_example(compose).split("# --- compose.yaml", 1)[1]
    assert "\n# set POSTGRES_PASSWORD in .env (required)\nPOSTGRES_PASSWORD=\n" in section
    assert section.count("# PUBLISH_PORT=8080\n") == 1
    assert "ISPBOT_MODE" not in section  # a setting compose hands to the bot is in its own section above
