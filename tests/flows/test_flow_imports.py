"""A flow never imports the storage layer: what it needs of the database is a method of the context."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROLES = Path(__file__).resolve().parents[2] / "flows"
FLOW_FILES = sorted(p for role in ("subscriber", "technician", "staff") for p in (ROLES / role).glob("*.py"))


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", FLOW_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_flow_does_not_import_the_store(path: Path) -> None:
    assert not {name for name in imported(path) if name == "bot.store" or name.startswith("bot.store.")}
