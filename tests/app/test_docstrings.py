"""A module docstring fits on a screen: what the module is for and why it is shaped so. Details go
beside the code they describe, measured figures to bench/RESULTS.md, a command's help to a constant.

A measured figure goes stale the day the code around it changes, and nobody measures it again from a
docstring or a comment: in ``bot/`` and ``flows/`` neither carries one. What counts is a figure as a
benchmark prints it (a range or decimals of ms or µs, a percentage, "3x faster", a rate per second
with decimals or as updates/s, a percentile's value, decimals of MiB); a setting or a limit written
as a round number ("a 5 s timeout", "every 20 ms", "Telegram's 30 messages a second") is not one.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("bot", "flows", "bench")
MAX_LINES = 15
_NUMBER = r"\d+(?:\.\d+)?"
MEASURED = re.compile("|".join([
    rf"{_NUMBER}\s*[-–]\s*{_NUMBER}\s*(?:ms|µs|us|ns)\b",  # a range of times: 27-41 ms
    r"\d+\.\d+\s*(?:ms|µs|us|ns)\b",  # a time with decimals: 13.5 µs
    rf"{_NUMBER}\s*%",  # 8-14% of the CPU
    rf"{_NUMBER}\s*(?:x|×|times)\s+(?:faster|slower|more|fewer|less|as\s+(?:fast|slow|many|much))\b",
    r"\d[\d,]*\.\d+\s*(?:[a-z]+\s*)?(?:/s\b|per second|a second)",  # 1,028.1 updates a second
    r"\d[\d,.]*\s*(?:updates|replies|entries|calls|requests|sends|messages)/s\b",  # 52 entries/s
    r"\bp(?:50|90|95|99)\b[^.\n]{0,20}?\d",  # p99 of 41 ms
    r"\d+\.\d+\s*(?:MiB|MB|KiB|kB|GiB|GB)\b",  # 120.5 MiB
]), re.IGNORECASE)
# "path: the figure as written" for a figure that must stay, with the reason beside it.
MEASURED_ALLOWED: dict[str, str] = {}


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


def measured(text: str) -> list[str]:
    """Every measured figure in ``text``, as written."""
    return [match.group(0) for match in MEASURED.finditer(text)]


def figures_in(path: Path) -> list[str]:
    """The measured figures in a file's docstrings (module, classes, functions) and comments."""
    text = path.read_text(encoding="utf-8")
    said = [ast.get_docstring(node, clean=False) or "" for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)]
    said += [token.string for token in tokenize.generate_tokens(io.StringIO(text).readline)
             if token.type == tokenize.COMMENT]
    return [figure for each in said for figure in measured(each)]


def test_no_measured_figure_in_a_docstring_or_a_comment() -> None:
    found = [f"{path.relative_to(ROOT).as_posix()}: {figure}"
             for source in ("bot", "flows") for path in sorted((ROOT / source).rglob("*.py"))
             for figure in figures_in(path)]
    stray = [each for each in found if each not in MEASURED_ALLOWED]
    assert stray == [], "measured figures belong in bench/RESULTS.md (point there instead):\n" + "\n".join(stray)


@pytest.mark.parametrize("text", [
    "the 99th percentile of a turn's own time was 27-41 ms at 12",
    "a /ajuda answer's body made in 13.5 µs instead of 56",
    "aiohttp's request path is 8-14% of the process",
    "the JSON body is 3.2x faster than the form",
    "the whole bot answered 1,028.1 updates a second",
    "1.0 call per entry, 52 entries/s",
    "p99 at 41 ms inside the bot",
    "the peak was 120.5 MiB",
])
def test_a_measured_figure_is_caught(text: str) -> None:
    assert measured(text) != []


@pytest.mark.parametrize("text", [
    "each check is bounded by a 5 s timeout (default 10 s)",
    "not again within 20 ms of a claim smaller than its slots",
    "under Telegram's ~30 messages a second, 1 a second per chat and 20 a minute per group",
    "the busy handler sleeps in growing steps (1, 2, 5 … 100 ms)",
    "retried for up to 24 hours, then a dead letter",
    "at most 1-20 entries per call, 2 tickets at once",
])
def test_a_setting_or_a_limit_is_not_a_measured_figure(text: str) -> None:
    assert measured(text) == []
