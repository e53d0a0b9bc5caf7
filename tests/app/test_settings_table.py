"""The settings tables of docs/operator-guide.md name every ``ISPBOT_*`` variable the bot reads,
each with a default and an example, and nothing the bot does not read.

What the bot reads is found in the code, not listed here: every pydantic-settings class in ``bot``
and ``flows`` (its fields under its ``env_prefix``, or their aliases) and every ``ISPBOT_*`` name the
code looks up in ``os.environ`` directly. A new setting without its row fails this test.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

from pydantic import AliasChoices
from pydantic_settings import BaseSettings

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "flows")
HEADER = ["variable", "default", "example", "meaning"]
_DIRECT_LOOKUP = re.compile(r"""(?:environ\.get|environ\[|getenv)\(?\s*["'](ISPBOT_[A-Z0-9_]+)["']""")


def every_module() -> list[ModuleType]:
    modules = []
    for name in PACKAGES:
        package = importlib.import_module(name)
        modules.append(package)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            if ".migrations" not in info.name:  # Alembic's scripts run only inside Alembic
                modules.append(importlib.import_module(info.name))
    return modules


def settings_classes() -> set[type[BaseSettings]]:
    every_module()  # a settings class exists once its module was imported
    found: set[type[BaseSettings]] = set()
    todo: list[type[BaseSettings]] = [BaseSettings]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.split(".")[0] in PACKAGES:
                found.add(sub)
    return found


def variables_of(kind: type[BaseSettings]) -> set[str]:
    prefix = str(kind.model_config.get("env_prefix", ""))
    names: set[str] = set()
    for field, info in kind.model_fields.items():
        alias = info.validation_alias or info.alias
        if isinstance(alias, str):
            names.add(alias.upper())
        elif isinstance(alias, AliasChoices):
            names.update(str(choice).upper() for choice in alias.choices)
        else:
            names.add(f"{prefix}{field}".upper())
    return names


def variables_in_code() -> set[str]:
    names = {name for kind in settings_classes() for name in variables_of(kind)}
    for package in PACKAGES:
        for source in (ROOT / package).rglob("*.py"):
            names.update(_DIRECT_LOOKUP.findall(source.read_text(encoding="utf-8")))
    return {name for name in names if name.startswith("ISPBOT_")}


def guide_rows() -> list[list[str]]:
    """The rows of every table whose header is ``variable | default | example | meaning``."""
    rows: list[list[str]] = []
    in_table = False
    for line in (ROOT / "docs" / "operator-guide.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells == HEADER:
            in_table = True
        elif in_table and not set("".join(cells)) <= set("-: "):
            rows.append(cells)
    return rows


def test_the_settings_are_found_in_the_code() -> None:
    names = {kind.__name__ for kind in settings_classes()}
    assert {"BotSettings", "IspSettings", "TelegramSettings"} <= names
    some = {"ISPBOT_DATABASE_URL", "ISPBOT_ISP_KEY", "ISPBOT_TELEGRAM_TOKEN", "ISPBOT_LOCALES_DIR"}
    assert some <= variables_in_code()


def test_the_guide_has_one_row_with_a_default_and_an_example_for_every_variable_and_no_other() -> None:
    rows = guide_rows()
    assert all(len(row) == len(HEADER) for row in rows), [row for row in rows if len(row) != len(HEADER)]
    listed = [row[0].strip("`") for row in rows]
    assert all(re.fullmatch(r"ISPBOT_[A-Z0-9_]+", name) for name in listed), listed
    assert len(listed) == len(set(listed)), "a variable has two rows"
    known = variables_in_code()
    assert sorted(known - set(listed)) == [], "variables the bot reads but the guide does not list"
    assert sorted(set(listed) - known) == [], "guide rows for variables the bot does not read"
    for name, default, example, meaning in rows:
        assert default and example and meaning, f"{name}: each row needs a default, an example and a meaning"
