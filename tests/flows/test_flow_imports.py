"""A flow never imports the storage layer: what it needs of the database is a method of the context."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from flows.flow import discover

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


def test_a_flow_module_its_package_does_not_import_is_named_not_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    package = tmp_path / "forgetful_role"
    package.mkdir()
    (package / "__init__.py").write_text("from forgetful_role import kept  # noqa: F401\n", encoding="utf-8")
    (package / "kept.py").write_text("", encoding="utf-8")
    (package / "forgotten.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        import forgetful_role  # noqa: PLC0415 - made just above

        with pytest.raises(ValueError, match=r"forgetful_role\.forgotten is not imported by forgetful_role"):
            discover(forgetful_role)
    finally:
        for name in ("forgetful_role", "forgetful_role.kept"):
            sys.modules.pop(name, None)
