"""Throughput of the whole bot on Telegram: python-telegram-bot's Bot polling the fake Bot API over
loopback HTTP, the engine with state in the database, templates, the sandbox ISP in-process.

    .venv/bin/python -m bench.bot_throughput [--updates 5000] [--chats 500] [--database URL]

Prints one JSON line: updates per second from the first push to the last answer accepted, and the
p50/p99 time from an update's arrival in the inbox to its processing (inbox timestamps; with every
update pushed at once this is mostly queueing, which is the point: how long a burst waits). The sender's
Telegram rate limits are lifted (the fake server has none, and 30 messages a second overall would
measure Telegram's policy, not the bot). Bounded: stops after ``--within`` seconds in any case.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bot.sandbox import FixedClock, Sandbox
from bot.store import InboxState
from bot.store.models import InboxRow
from sqlalchemy import func, select
from tests.store.dbtools import make_database
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import running_bot

import telegram


async def measure(url: str, updates: int, chats: int, within: float, concurrency: int = 32) -> dict[str, object]:
    database = await make_database(url)  # on PostgreSQL: a schema of its own, dropped at the end
    sandbox = Sandbox.seeded(clock=FixedClock())
    async with running_bot(database, sandbox, concurrency=concurrency) as bot:
        # Warm up one chat so that connection pools and templates are ready.
        await bot.chat(1).say("/ajuda")
        started = time.perf_counter()
        for n in range(updates):
            bot.api.push_update(tg.text_message(10_000 + n % chats, "/ajuda"))
        async with asyncio.timeout(within):
            while True:
                async with database.session() as session:
                    finished = (await session.execute(
                        select(func.count()).select_from(InboxRow).where(
                            InboxRow.state != InboxState.PENDING.value, InboxRow.answer.is_(None))
                    )).scalar_one()
                if finished >= updates + 1:  # and the warm-up's
                    break
                await asyncio.sleep(0.05)
        elapsed = time.perf_counter() - started
        async with database.session() as session:
            rows = (await session.execute(
                select(InboxRow.received_at, InboxRow.processed_at).where(InboxRow.update_id > 1)
            )).all()
    waits = sorted((done - received).total_seconds() for received, done in rows if done is not None)
    await database.destroy()
    return {
        "figure": "bot_throughput", "database": database.dialect, "updates": updates, "chats": chats,
        "updates_per_second": round(updates / elapsed, 1),
        "received_to_processed_p50_ms": round(1000 * statistics.median(waits), 1),
        "received_to_processed_p99_ms": round(1000 * waits[int(len(waits) * 0.99) - 1], 1),
        "python": platform.python_version(), "python_telegram_bot": telegram.__version__,
        "machine": f"{platform.machine()} {platform.system()}",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=5000)
    parser.add_argument("--chats", type=int, default=500)
    parser.add_argument("--database", default=None, help="default: a SQLite file in a temporary folder")
    parser.add_argument("--within", type=float, default=300.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database or f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"
        print(json.dumps(asyncio.run(measure(url, args.updates, args.chats, args.within))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
