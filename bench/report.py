"""What every benchmark prints: one JSON line per figure, with the machine and versions it ran on.

    emit(figure("outage_surge", database="sqlite", replies_per_second=412.5))

prints ``{"figure": "outage_surge", "database": "sqlite", "replies_per_second": 412.5, "machine": …,
"cpus": …, "python": …, "versions": {…}}`` on one line. Figures are comparable only with the same
machine and versions, so those travel with each line rather than in a header a reader may cut off.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
from functools import lru_cache
from importlib import metadata
from typing import Any

# The libraries whose speed the figures depend on.
LIBRARIES = (
    "python-telegram-bot", "aiohttp", "aiogram", "httpx", "sqlalchemy", "aiosqlite", "asyncpg", "pydantic", "uvicorn",
    "starlette",
)


@lru_cache(maxsize=1)
def environment() -> dict[str, Any]:
    """The machine, the Python and the installed versions of the libraries that matter."""
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "machine": f"{platform.machine()} {platform.system()} {platform.release()}",
        "processor": _cpu_model(),
        "cpus": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "versions": versions,
    }


def figure(name: str, **values: Any) -> dict[str, Any]:
    """One figure: its name, its values, then the machine and versions."""
    return {"figure": name, **values, **environment()}


def emit(line: dict[str, Any]) -> None:
    """Print the figure as one JSON line (flushed: a long benchmark shows each figure as it comes)."""
    print(json.dumps(line, ensure_ascii=False), flush=True)


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank; 0.0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def dialect(url: str | None) -> str:
    """The database's kind, as the figures name it."""
    return "sqlite" if url is None or url.startswith("sqlite") else url.split("+", 1)[0].split(":", 1)[0]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or sys.platform
