"""Outage surge: many subscribers on a NAS that went down write "sem internet" within a minute, while
the ISP's failover event for that NAS is open.

    .venv/bin/python -m bench.outage_surge [--subscribers 10000] [--seconds 60] [--database URL]

The whole bot runs as in ``bench.full_bot`` (python-telegram-bot polling the fake Bot API over
loopback HTTP, the engine with state in the database, the sandbox ISP in-process). The sandbox gets
``--subscribers`` more customers, each with a PPPoE authentication on the NAS of the seeded open
failover event (10.0.2.1) and no session (offline); each is linked to its own chat, waiting at the
menu. Each chat then writes "sem internet" once, arrivals paced evenly over ``--seconds`` (0: all at
once), and the bot answers with the outage and "tell me when it's back". ``measure`` says which
figures it prints (one JSON line). Bounded: gives up after ``--within`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from bot.runtime.processor import DEFAULT_CONCURRENCY
from bot.sandbox import FixedClock, Sandbox
from bot.sandbox.store import Record
from bot.store.channels import WHATSAPP, ChannelIds
from bot.store.db import pool_size_for
from bot.store.types import utcnow
from flows.chat import FLOW_DATA
from flows.subscriber.menu import GREETING
from tests.store.dbtools import ScratchDatabase
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, running_bot

from bench.report import dialect, emit, figure, median, percentile
from bench.scratch import add_offline_customers, link_chats, park_chats, scratch_database

FAILED_NAS = "10.0.2.1"  # the NAS of the seeded open failover event
FIRST_CUSTOMER = 1_000_000
FIRST_CHAT = 5_000_000
WATCH_LABEL = "Me avise quando voltar"  # the outage answer's button (locales/pt_BR/outages.yaml)
POLL = 0.02


@dataclass(frozen=True)
class Parked:
    """The seeded sandbox, its open failover event, and the chats of the subscribers behind it, each
    linked and parked at the menu in ``database``."""

    sandbox: Sandbox
    event: Record
    chats: list[int]
    database: ScratchDatabase


@contextlib.asynccontextmanager
async def parked_subscribers(
    url: str | None, subscribers: int, concurrency: int, *, numbers: list[str] | None = None,
) -> AsyncIterator[Parked]:
    """``subscribers`` customers behind the failed NAS, in a scratch database sized for ``concurrency``;
    on Telegram, or on WhatsApp with these ``numbers`` (one a subscriber: their chats as the webhook
    allocates them)."""
    sandbox = Sandbox.seeded(clock=FixedClock())
    event = sandbox.store.find("failover", Status="O")
    if event is None or event["Host"] != FAILED_NAS:
        raise RuntimeError("the seeded data set no longer has an open failover event on " + FAILED_NAS)
    customers = add_offline_customers(sandbox, subscribers, FAILED_NAS, FIRST_CUSTOMER)
    async with scratch_database(url, pool_size=pool_size_for(concurrency)) as database:
        chats = [FIRST_CHAT + n for n in range(subscribers)]
        if numbers is not None:
            async with database.transaction() as session:
                ids = await ChannelIds().chat_ids(session, WHATSAPP, numbers, utcnow())
            chats = [ids[number] for number in numbers]
        await link_chats(database, list(zip(chats, customers, strict=True)))
        # At the menu, as the menu left them: its greeting (the customer's name; no contract) in its data.
        names = {chat: f"Assinante {code}" for chat, code in zip(chats, customers, strict=True)}
        greeted = {chat: {FLOW_DATA: {GREETING: [name, ""]}} for chat, name in names.items()}
        await park_chats(database, chats, "menu", "choose", data_of=greeted.__getitem__)
        yield Parked(sandbox, event, chats, database)


async def measure(url: str | None, subscribers: int, seconds: float, within: float, concurrency: int) -> dict[str, Any]:
    """Replies per second (subscribers over the time from the first message to the last reply),
    latency from a message's push to its reply reaching the fake Telegram (p50/p99/max; the replies
    are watched every 20 ms, so that is the resolution), how many replies told the outage, and the ISP
    calls per update with the calls by operation (the sandbox's own call counter; the warm-up's calls
    are not counted)."""
    async with parked_subscribers(url, subscribers, concurrency) as parked, running_bot(
        parked.database, parked.sandbox, concurrency=concurrency,
    ) as bot:
        sandbox, chats = parked.sandbox, parked.chats
        await bot.chat(1).say("/ajuda")  # a stranger's help: pools and templates ready, no ISP read
        sandbox.reset_calls()
        pushed, replied, elapsed = await _surge(bot, chats, seconds, within)
        calls = dict(sandbox.calls)
        told = sum(1 for sent in bot.api.outgoing() if sent.chat_id in pushed and _offers_watch(sent))
    latencies = [replied[chat] - pushed[chat] for chat in replied]
    total_calls = sum(calls.values())
    return figure(
        "outage_surge", database=dialect(url), subscribers=subscribers, arrival_seconds=seconds,
        concurrency=concurrency, replied=len(replied), told_the_outage=told,
        replies_per_second=round(len(replied) / elapsed, 1) if elapsed else 0.0,
        latency_p50_ms=round(1000 * median(latencies), 1),
        latency_p99_ms=round(1000 * percentile(latencies, 0.99), 1),
        latency_max_ms=round(1000 * max(latencies, default=0.0), 1),
        isp_calls=total_calls, isp_calls_per_update=round(total_calls / subscribers, 4),
        isp_calls_by_operation=dict(sorted(calls.items())),
    )


async def _surge(
    bot: RunningBot, chats: list[int], seconds: float, within: float,
) -> tuple[dict[int, float], dict[int, float], float]:
    """Push one "sem internet" per chat, paced; when each was pushed and first answered (perf_counter)."""
    pushed: dict[int, float] = {}
    replied: dict[int, float] = {}
    seen = len(bot.api.outgoing())
    started = time.perf_counter()
    pace = seconds / len(chats) if chats else 0.0

    async def push() -> None:
        for n, chat in enumerate(chats):
            delay = started + n * pace - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            bot.api.push_update(tg.text_message(chat, "sem internet"))
            pushed[chat] = time.perf_counter()

    pusher = asyncio.create_task(push())
    try:
        async with asyncio.timeout(within):
            while len(replied) < len(chats):
                await asyncio.sleep(POLL)
                outgoing = bot.api.outgoing()
                now = time.perf_counter()
                for sent in outgoing[seen:]:
                    if isinstance(sent.chat_id, int) and sent.chat_id in pushed:
                        replied.setdefault(sent.chat_id, now)
                seen = len(outgoing)
    except TimeoutError:
        print(f"outage_surge: gave up after {within:.0f} s with {len(replied)} replies", file=sys.stderr)
    finally:
        pusher.cancel()
    last = max(replied.values(), default=started)
    return pushed, replied, last - started


def _offers_watch(sent: tg.Sent) -> bool:
    """Whether the message is the outage answer (it has the "tell me when it's back" button)."""
    return any(WATCH_LABEL in str(button.get("text")) for row in sent.button_rows() for button in row)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscribers", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=60.0, help="arrivals paced over this long (0: all at once)")
    parser.add_argument("--database", default=None, help="default: a SQLite file in a temporary folder")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="chats the bot processes at once")
    parser.add_argument("--within", type=float, default=600.0, help="give up after this many seconds")
    args = parser.parse_args()
    emit(asyncio.run(measure(args.database, args.subscribers, args.seconds, args.within, args.concurrency)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
