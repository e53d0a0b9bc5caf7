"""What the bot reads at run time ships in the package, where ``importlib.resources`` finds it, and
``ISPBOT_LOCALES_DIR`` replaces the shipped texts. (``.ci/wheel-smoke`` proves it on a real wheel.)"""

from __future__ import annotations

import os
import shutil
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import bot
import pytest
from bot import cli
from bot.commands.support import Refused, load
from bot.i18n import LOCALES_DIR, Translations, default_translations, locales_dir, use_locales_dir
from bot.isp import IspSettings
from bot.runtime.app import Settings, build_app
from bot.sandbox import PRODUCTION_KEY
from bot.settings import BotSettings
from bot.store import Database
from flows.intents import default_intents

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("ISPBOT_") and name != "ISPBOT_TEST_DATABASE_URL":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def shipped(package: str, relative: str) -> bool:
    """Whether the wheel carries ``relative`` (a path inside ``package``): pyproject's package-data."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    return relative.endswith(".py") or any(fnmatch(relative, p) for p in patterns["package-data"].get(package, []))


def test_the_texts_are_inside_the_package_and_are_the_checkouts_locales() -> None:
    assert LOCALES_DIR.parent == Path(bot.__file__).parent
    assert (LOCALES_DIR / "pt_BR" / "common.yaml").is_file()
    assert LOCALES_DIR.resolve() == (ROOT / "locales").resolve()  # one folder, edited in one place
    assert locales_dir() == LOCALES_DIR


def test_every_file_the_bot_reads_at_run_time_is_package_data() -> None:
    missing = []
    for package in ("bot", "flows"):
        for path in (ROOT / package).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                relative = path.relative_to(ROOT / package).as_posix()
                if not shipped(package, relative):
                    missing.append(f"{package}/{relative}")
    assert missing == [], "files the wheel would not carry: add them to [tool.setuptools.package-data]"
    assert any(path.suffix == ".yaml" for path in (ROOT / "bot" / "_locales" / "intents").iterdir())


async def test_the_locales_dir_setting_replaces_the_shipped_texts(tmp_path: Path, database: Database) -> None:
    own = tmp_path / "our-texts"
    shutil.copytree(LOCALES_DIR, own)
    common = own / "pt_BR" / "common.yaml"
    common.write_text(
        common.read_text(encoding="utf-8").replace("Ops, algo deu errado", "Eita, algo deu errado"), encoding="utf-8",
    )
    (own / "intents" / "pt_BR.yaml").write_text("bills:\n  - papagaio\n", encoding="utf-8")
    (tmp_path / ".env").write_text(f"ISPBOT_LOCALES_DIR={own}\n", encoding="utf-8")  # read like every setting
    isp_settings = IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY)
    # the app passes the setting down
    app = await build_app(Settings(isp_settings, load(BotSettings)), database=database)
    try:
        assert locales_dir() == own
        assert app.engine.translations.render("pt_BR", "common.internal_error").startswith("Eita, algo deu errado")
        assert default_translations().render("pt_BR", "common.internal_error").startswith("Eita, algo deu errado")
        assert default_intents().match("pt_BR", "papagaio") == "bills"
    finally:
        await app.aclose()
        use_locales_dir(None)
    assert default_intents().match("pt_BR", "papagaio") is None


def test_a_locales_dir_without_texts_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ISPBOT_LOCALES_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(Refused) as caught:
        load(BotSettings)
    assert str(caught.value).startswith(f"configuration: ISPBOT_LOCALES_DIR: {tmp_path / 'nowhere'} has no pt_BR/")


def test_the_demo_names_a_wrong_setting_before_it_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ISPBOT_LOCALES_DIR", str(tmp_path))
    assert cli.main(["demo"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("ispbot demo: configuration: ISPBOT_LOCALES_DIR: ") and len(err.splitlines()) == 1


def test_the_demo_says_where_it_found_no_texts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "pt_BR").mkdir()
    monkeypatch.setenv("ISPBOT_LOCALES_DIR", str(tmp_path))
    try:
        assert cli.main(["demo"]) == 1
    finally:
        use_locales_dir(None)  # the demo chose the broken folder for this process
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"ispbot demo: no texts in {tmp_path / 'pt_BR'}: reinstall ispbot or fix ISPBOT_LOCALES_DIR"
    )


def test_texts_that_are_not_there_stop_the_bot_at_start(tmp_path: Path) -> None:
    (tmp_path / "pt_BR").mkdir()
    with pytest.raises(FileNotFoundError, match="no texts in"):
        Translations(tmp_path)  # rather than an error answer to every update later
