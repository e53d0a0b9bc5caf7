"""``ispbot --help`` and each command's ``--help``: how long an operator at a terminal waits for them.

    .venv/bin/python -m bench.cli_help [--runs 9]

One ``cli_help`` JSON line per command (``command`` is ``""`` for ``ispbot --help`` itself): the
median, fastest and slowest wall-clock milliseconds of ``--runs`` runs of
``python -m bot.cli [COMMAND] --help``, each in a process of its own as a terminal starts it, and
``python_ms``, the median start of the interpreter alone (``python -c pass``): the floor under every
help. ``bound_ms`` is the issue's bound on the median. Registering the commands must load only light
modules for this to hold (``tests/app/test_cli.py`` checks which).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bot.cli import build_parser

from bench.report import emit, figure

ROOT = Path(__file__).resolve().parents[1]
BOUND_MS = 300.0


def commands() -> list[str]:
    """Every command the parser knows, in its order (``invite`` and ``technicians`` are two)."""
    found = [""]
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += list(action.choices)
    return found


def wall_ms(arguments: list[str], runs: int) -> list[float]:
    """The wall-clock milliseconds of each run of ``python ARGUMENTS`` in the repository's root."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(  # noqa: S603 - this interpreter, with arguments written here
            [sys.executable, *arguments], cwd=ROOT, env=environment, check=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each help (the median is reported)")
    args = parser.parse_args()
    floor = round(statistics.median(wall_ms(["-c", "pass"], args.runs)), 1)
    for command in commands():
        times = wall_ms(["-m", "bot.cli", *([command] if command else []), "--help"], args.runs)
        emit(figure(
            "cli_help", command=command, runs=args.runs, median_ms=round(statistics.median(times), 1),
            fastest_ms=round(min(times), 1), slowest_ms=round(max(times), 1), python_ms=floor, bound_ms=BOUND_MS,
        ))


if __name__ == "__main__":
    main()
