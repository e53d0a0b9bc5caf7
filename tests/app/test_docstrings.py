"""A module docstring fits on a screen: what the module is for and why it is shaped so. Details go
beside the code they describe, measured figures to bench/RESULTS.md, a command's help to a constant."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("bot", "flows", "bench")
MAX_LINES = 15

def too_long() -> dict[str, int]:
    """Each module whose docstring is longer than ``MAX_LINES``, with its length in lines."""
    found = {}
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*.py")):
            docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
            lines = len(docstring.strip("\n").splitlines()) if docstring else 0
            if lines > MAX_LINES:
                found[path.relative_to(ROOT).as_posix()] = lines
    return found


def test_module_docstrings_fit_on_a_screen() -> None:
    long = sorted(f"{path}: {lines} lines" for path, lines in too_long().items())
    assert long == [], f"module docstrings over {MAX_LINES} lines:\n" + "\n".join(long)
