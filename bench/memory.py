"""Memory: the bot process's resident memory with many linked chats and conversations in progress.

    .venv/bin/python -m bench.memory [--chats 100000] [--conversations 10000] [--sample 1000]
                                     [--database URL]

This process seeds a throw-away database with ``--chats`` linked subscriber chats (spread over the
sandbox's customers) of which ``--conversations`` are in the middle of opening a ticket (a state row
waiting for the problem's description). Then a fresh child process, so that none of the seeding's
memory is counted, runs the whole bot (python-telegram-bot polling the fake Bot API over loopback,
the engine, the sandbox ISP in-process) on that database and reports its memory (``measure`` says
which figures). The fake Telegram server runs in the same process and keeps every message it was
sent: that is part of the growth, a small one. Bounded: the child gives up after ``--within`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import resource
import subprocess
import sys
from typing import Any

from bot.sandbox import FixedClock, Sandbox
from flows.chat import CHOICES, FLOW_DATA, MISSES, PROMPT
from tests.store.dbtools import ScratchDatabase
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import running_bot

from bench.report import dialect, emit, figure
from bench.scratch import link_chats, park_chats, scratch_database, until

FIRST_CHAT = 7_000_000
DESCRIBING = {  # a conversation in progress: the ticket's topic chosen, its description awaited
    FLOW_DATA: {"topic": 1, "subject": "Sem conexão"}, PROMPT: None, CHOICES: {}, MISSES: 0,
}


def rss_kib(field: str = "VmRSS") -> int:
    """A line of /proc/self/status, in KiB (VmRSS: resident now; VmHWM: the highest so far)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


async def seed(database: ScratchDatabase, sandbox: Sandbox, chats: int, conversations: int) -> None:
    codes = [c["Codigo"] for c in sandbox.store.rows("customers")]
    await link_chats(database, [(FIRST_CHAT + n, codes[n % len(codes)]) for n in range(chats)])
    await park_chats(database, range(FIRST_CHAT, FIRST_CHAT + conversations), "new_ticket", "describe", DESCRIBING)


async def measure_in_child(url: str, schema: str | None, sample: int, within: float) -> dict[str, Any]:
    """In the child: start the bot on the seeded database, let a sample of conversations go on."""
    database = ScratchDatabase(url, schema)
    sandbox = Sandbox.seeded(clock=FixedClock())
    try:
        async with running_bot(database, sandbox) as bot:
            await bot.chat(FIRST_CHAT).say("A internet cai toda noite.")  # warm-up: every part used once
            gc.collect()
            idle = rss_kib()
            chats = range(FIRST_CHAT + 1, FIRST_CHAT + 1 + sample)
            before = len(bot.api.outgoing())
            for chat in chats:
                bot.api.push_update(tg.text_message(chat, "A internet cai toda noite desde ontem."))

            async def answered() -> bool:
                return len({sent.chat_id for sent in bot.api.outgoing()[before:]}) >= sample

            await until(answered, every=0.1, within=within)
            gc.collect()
            after = rss_kib()
    finally:
        await database.dispose()
    return {
        "rss_idle_mib": round(idle / 1024, 1), "rss_after_mib": round(after / 1024, 1),
        "rss_growth_per_chat_kib": round((after - idle) / sample, 2) if sample else 0.0,
        # ru_maxrss is the kernel's high-water mark, which can trail the VmRSS read a moment before by
        # a page or two: the peak is at least every figure measured.
        "peak_rss_mib": round(max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, idle, after) / 1024, 1),
    }


async def measure(url: str | None, chats: int, conversations: int, sample: int, within: float) -> dict[str, Any]:
    """The figures:

    - ``rss_idle_mib``: VmRSS once the bot is started and has answered one update (the baseline);
    - ``rss_after_mib``: VmRSS after ``sample`` of the conversations in progress each sent their
      description and were answered (a garbage collection first, so what is counted is kept memory);
    - ``rss_growth_per_chat_kib``: (after - idle) / sample: what one more active chat costs;
    - ``peak_rss_mib``: the child's highest resident memory (``getrusage`` ru_maxrss).
    """
    if not 0 < sample < conversations <= chats:
        raise ValueError("needs 0 < sample < conversations <= chats")
    async with scratch_database(url) as database:
        await seed(database, Sandbox.seeded(clock=FixedClock()), chats, conversations)
        await database.dispose()
        command = [
            sys.executable, "-m", "bench.memory", "--child", database.url.render_as_string(hide_password=False),
            "--sample", str(sample), "--within", str(within),
        ]
        if database.schema is not None:
            command += ["--schema", database.schema]
        child = await asyncio.to_thread(
            subprocess.run, command, capture_output=True, text=True, timeout=within + 60, check=False,
        )
        if child.returncode != 0:
            raise RuntimeError(f"the measuring process failed:\n{child.stderr[-2000:]}")
        measured = json.loads(child.stdout.strip().splitlines()[-1])
    return figure(
        "memory", database=dialect(url), linked_chats=chats, conversations_in_progress=conversations,
        sample_answered=sample, **measured,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=100_000, help="linked subscriber chats in the database")
    parser.add_argument("--conversations", type=int, default=10_000, help="of those, mid-flow")
    parser.add_argument("--sample", type=int, default=1_000, help="conversations that send an update")
    parser.add_argument("--database", default=None, help="default: a SQLite file in a temporary folder")
    parser.add_argument("--within", type=float, default=600.0, help="give up after this many seconds")
    parser.add_argument("--child", metavar="URL", help=argparse.SUPPRESS)  # the measuring process
    parser.add_argument("--schema", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(measure_in_child(args.child, args.schema, args.sample, args.within))))
        return 0
    emit(asyncio.run(measure(args.database, args.chats, args.conversations, args.sample, args.within)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
