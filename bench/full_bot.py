"""The whole bot as a contender of the overhead benchmark, in a process of its own: python-telegram-bot's
``Bot`` polling the given Bot API, the engine with state in a scratch database, templates, and the
sandbox ISP in-process (with ``--isp-latency`` before each of its answers).

    python -m bench.full_bot --api http://127.0.0.1:PORT --token T [--database URL] [--isp-latency 0.05]

Runs until SIGTERM, then prints ``{"updates": n, "update_p50_ms": x, "update_p99_ms": y}``: percentiles
of the time from starting an update to its answer being queued for Telegram (what
``ispbot_update_seconds`` observes, kept value by value here: its buckets are too coarse to quote),
that is the bot's own time per update without the wait in the inbox.
Telegram's send limits are lifted: the fake server has none. Logs are JSON lines on stderr, as in
production (one per update).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import tempfile
from pathlib import Path

import httpx
from bot import logs, metrics
from bot.channels.telegram.settings import TelegramSettings
from bot.isp import IspSettings
from bot.runtime.app import Settings, build_app
from bot.runtime.processor import DEFAULT_CONCURRENCY
from bot.runtime.run import settle_startup
from bot.sandbox import PRODUCTION_KEY, FixedClock, Sandbox
from bot.settings import BotSettings
from bot.store.db import pool_size_for
from tests.store.dbtools import make_database
from tests.telegram.harness import fast_sender_limits

from bench.report import percentile


async def run(api: str, token: str, url: str, isp_latency: float, concurrency: int) -> dict[str, object]:
    # As in production: JSON lines on stderr (the driver keeps them in a file), one per update.
    logs.configure(logging.INFO, "json", secrets=[token])
    kept = _keep_update_seconds()
    database = await make_database(url, pool_size=pool_size_for(concurrency))  # as ``ispbot run`` sizes it
    sandbox = Sandbox.seeded(clock=FixedClock())
    if isp_latency > 0:
        sandbox.faults.add_latency(isp_latency)
    telegram_settings = TelegramSettings(telegram_token=token, telegram_api_url=api, concurrency=concurrency)
    isp_settings = IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0)
    app = await build_app(
        Settings(isp_settings, BotSettings(), telegram_settings), database=database,
        http_transport=httpx.ASGITransport(app=sandbox.app), wall_clock=sandbox.clock,
        sender_limits=fast_sender_limits(),
    )
    assert app.runtime is not None
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await app.runtime.start()
        await app.runtime.run_polling(stop, poll_timeout=1)
        await app.runtime.stop()
    finally:
        await app.aclose()
        await database.destroy()
    return {"updates": _answered(), **_percentiles_ms(kept)}


def _answered() -> int:
    return int(sum(
        sample.value for family in metrics.UPDATES.collect() for sample in family.samples
        if sample.name.endswith("_total") and sample.labels.get("outcome") == "answered"
    ))


def _keep_update_seconds() -> list[float]:
    """Every value ``ispbot_update_seconds`` observes from now on, as well as observing it."""
    kept: list[float] = []
    observe = metrics.UPDATE_SECONDS.observe

    def observe_and_keep(amount: float, exemplar: dict[str, str] | None = None) -> None:
        kept.append(amount)
        observe(amount, exemplar)

    metrics.UPDATE_SECONDS.observe = observe_and_keep  # type: ignore[method-assign]
    return kept


def _percentiles_ms(seconds: list[float]) -> dict[str, float | None]:
    if not seconds:
        return {"update_p50_ms": None, "update_p99_ms": None}
    return {"update_p50_ms": round(1000 * percentile(seconds, 0.5), 1),
            "update_p99_ms": round(1000 * percentile(seconds, 0.99), 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--database", default=None, help="default: a SQLite file in a temporary folder")
    parser.add_argument("--isp-latency", type=float, default=0.0)
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    args = parser.parse_args()
    settle_startup(None)  # as ``ispbot run`` does, with the shipped texts
    with tempfile.TemporaryDirectory() as folder:
        url = args.database or f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"
        result = asyncio.run(run(args.api, args.token, url, args.isp_latency, args.concurrency))
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
