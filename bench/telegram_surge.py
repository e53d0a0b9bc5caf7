"""Outage surge under Telegram's ceiling: the subscribers on a failed NAS write within a minute,
the fake Bot API answers 429 past Telegram's limits (30 messages a second overall, 1 a second per
chat, 20 a minute per group), then the outage ends and the watchers are told.

    .venv/bin/python -m bench.telegram_surge [--subscribers 10000] [--seconds 60] [--paid both] [--database URL]

The whole bot runs as in ``bench.outage_surge`` (the same subscribers, linked and at the menu, on the
NAS of the seeded open failover event), with the sender at Telegram's real limits. Each subscriber
writes "sem internet" (first messages spread over the first 80% of ``--seconds``), and again a few
seconds later (all within ``--seconds``); every other one presses "tell me when it's back" on the
first answer that offers it, a second after it came. Two seconds after everybody was answered, the
event is closed, the watchers are told, and a few other subscribers write "oi" meanwhile. One JSON
line per setting of ``allow_paid_broadcast`` for the notices, off then on (``measure`` says which
figures).
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from bot.runtime.processor import DEFAULT_CONCURRENCY
from tests.telegram import fake_bot_api as tg
from tests.telegram.fake_bot_api import FakeBotApi, TelegramLimits
from tests.telegram.harness import RunningBot, running_bot

from bench.outage_surge import WATCH_LABEL, parked_subscribers
from bench.report import dialect, emit, figure, median, percentile

TELEGRAM_RATE = 30.0  # messages a second, overall
PAID_RATE = 1000.0
POLL = 0.02
PRESS_AFTER = 1.0  # seconds a person takes to press the button once the answer came
OUTAGE_ENDS_AFTER = 2.0  # seconds after the last answer: the chats' own limits are free again


@dataclass
class Watch:
    """Follows the bot's messages: when each chat wrote, when it was answered, who pressed."""

    api: FakeBotApi
    seen: int = 0
    waiting: dict[int, list[float]] = field(default_factory=dict)  # chat: its messages not answered yet
    waits: list[float] = field(default_factory=list)
    last_answer: dict[int, float] = field(default_factory=dict)
    sends: int = 0

    def wrote(self, chat: int, at: float) -> None:
        self.waiting.setdefault(chat, []).append(at)

    def follow(self, now: float) -> list[tg.Sent]:
        """The messages sent since the last look; each answers what its chat wrote before it."""
        new = self.api.outgoing_since(self.seen)
        self.seen += len(new)
        for sent in new:
            if not isinstance(sent.chat_id, int):
                continue
            self.sends += 1
            self.last_answer[sent.chat_id] = now
            for at in self.waiting.pop(sent.chat_id, []):
                self.waits.append(now - at)
        return new

    @property
    def unanswered(self) -> int:
        return sum(len(times) for times in self.waiting.values())


async def measure(
    url: str | None, subscribers: int, seconds: float, within: float, concurrency: int, *, paid: bool,
) -> dict[str, Any]:
    """The figures:

    - ``last_answer_seconds``: from the first message to the last subscriber's last answer, against
      ``bound_seconds``, what Telegram allows at best: the replies sent ÷ 30 a second (or the last
      message's time, if later); ``last_answer_vs_bound`` is their ratio.
    - ``wait_p50_ms`` / ``wait_p99_ms``: from a message reaching Telegram to the next message the bot
      sent that chat (what a person waits to hear back); watched every 20 ms.
    - ``too_many_requests``: 429s the fake answered (the bot paces itself: 0 expected).
    - ``notice_seconds`` against ``notice_bound_seconds`` (watchers ÷ 30, or ÷ 1,000 as paid
      broadcasts), and ``latecomer_wait_p99_ms``: the "oi" written while the notices go out is
      answered before them.
    - ``isp_calls_per_update``: ISP calls during the surge over the updates (messages and presses).
    """
    async with parked_subscribers(url, subscribers, concurrency) as parked, FakeBotApi(
        max_poll_timeout=0.25, limits=TelegramLimits(),
    ) as api, running_bot(
        parked.database, parked.sandbox, concurrency=concurrency, sender_limits={}, api=api, paid_broadcast=paid,
    ) as bot:
        sandbox, chats = parked.sandbox, parked.chats
        await bot.chat(1).say("/ajuda")  # a stranger's help: pools and templates ready, no ISP read
        sandbox.reset_calls()
        surge = await _surge(bot, chats, seconds, within)
        calls = dict(sandbox.calls)
        await asyncio.sleep(OUTAGE_ENDS_AFTER)
        parked.event.update(Status="C", UpTime="2025-03-10 11:15:00", Duration=795, Cause=4, Solution="NAS reiniciado")
        told = await _outage_over(bot, surge.watchers, chats[1::2][:20], within)
        too_many = dict(api.too_many_requests)
    total_calls = sum(calls.values())
    bound = max(surge.sends / TELEGRAM_RATE, surge.last_push)
    notice_bound = len(surge.watchers) / (PAID_RATE if paid else TELEGRAM_RATE)
    return figure(
        "telegram_surge", database=dialect(url), subscribers=subscribers, arrival_seconds=seconds,
        paid_broadcast=paid, updates=surge.updates, answered=len(surge.watch.waits), surge_sends=surge.sends,
        sends_per_update=round(surge.sends / surge.updates, 3) if surge.updates else 0.0,
        bound_seconds=round(bound, 1), last_answer_seconds=round(surge.last_answer, 1),
        last_answer_vs_bound=round(surge.last_answer / bound, 3) if bound else 0.0,
        wait_p50_ms=round(1000 * median(surge.watch.waits), 1),
        wait_p99_ms=round(1000 * percentile(surge.watch.waits, 0.99), 1),
        too_many_requests=sum(too_many.values()), too_many_requests_by_limit=too_many,
        watchers=len(surge.watchers), notices_sent=told.notices,
        notice_seconds=round(told.seconds, 1), notice_bound_seconds=round(notice_bound, 2),
        latecomers=len(told.waits), latecomer_wait_p99_ms=round(1000 * percentile(told.waits, 0.99), 1),
        isp_calls=total_calls, isp_calls_per_update=round(total_calls / surge.updates, 4) if surge.updates else 0.0,
        isp_calls_by_operation=dict(sorted(calls.items())),
    )


@dataclass
class Surge:
    watch: Watch
    updates: int
    sends: int
    last_push: float
    last_answer: float
    watchers: set[int]


async def _surge(bot: RunningBot, chats: list[int], seconds: float, within: float) -> Surge:
    """Each chat writes twice within ``seconds``; every other one presses the watch button once."""
    first_spread, count = 0.8 * seconds, len(chats)
    plan: list[tuple[float, int, str]] = []  # (when, chat, text) from the start
    for n, chat in enumerate(chats):
        first = first_spread * n / count
        plan.append((first, chat, "sem internet"))
        plan.append((first + (seconds - first_spread) * (1 + n % 5) / 5, chat, "sem internet"))
    heapq.heapify(plan)
    presses: list[tuple[float, int, str]] = []  # (when, chat, callback data)
    pressers = set(chats[::2])
    watchers: set[int] = set()
    watch = Watch(bot.api, seen=len(bot.api.outgoing()))
    started = time.perf_counter()
    updates, last_push = 0, 0.0
    try:
        async with asyncio.timeout(within):
            while plan or presses or watch.unanswered:
                now = time.perf_counter() - started
                for queue in (plan, presses):
                    while queue and queue[0][0] <= now:
                        _, chat, what = heapq.heappop(queue)
                        update = tg.text_message(chat, what) if queue is plan else tg.callback_query(chat, what)
                        bot.api.push_update(update)
                        watch.wrote(chat, time.perf_counter() - started)
                        updates, last_push = updates + 1, now
                for sent in watch.follow(time.perf_counter() - started):
                    if sent.chat_id in pressers and sent.chat_id not in watchers and (data := _watch_button(sent)):
                        watchers.add(int(sent.chat_id))
                        heapq.heappush(presses, (now + PRESS_AFTER, int(sent.chat_id), data))
                await asyncio.sleep(POLL)
            await bot.channel.sender.drain()  # what answers a press may still be on its way
            watch.follow(time.perf_counter() - started)
    except TimeoutError:
        print(f"telegram_surge: gave up after {within:.0f} s with {watch.unanswered} unanswered", file=sys.stderr)
    last = max(watch.last_answer.values(), default=0.0)
    return Surge(watch, updates, watch.sends, last_push, last, watchers)


@dataclass
class Told:
    notices: int
    seconds: float
    waits: list[float]


async def _outage_over(bot: RunningBot, watchers: set[int], latecomers: list[int], within: float) -> Told:
    """Tell the watchers the outage is over, while a few others write "oi"; how long each took."""
    latecomers = [chat for chat in latecomers if chat not in watchers]
    watch = Watch(bot.api, seen=len(bot.api.outgoing()))
    started = time.perf_counter()
    await bot.processor.send_notices(await bot.app.notifier.check())
    for chat in latecomers:
        bot.api.push_update(tg.text_message(chat, "oi"))
        watch.wrote(chat, time.perf_counter() - started)
    told: set[int] = set()
    last = 0.0
    try:
        async with asyncio.timeout(within):
            while watch.unanswered or len(told) < len(watchers):
                await asyncio.sleep(POLL)
                now = time.perf_counter() - started
                for sent in watch.follow(now):
                    if sent.chat_id in watchers:
                        told.add(int(sent.chat_id))
                        last = now
    except TimeoutError:
        print(f"telegram_surge: gave up with {len(watchers) - len(told)} watchers not told", file=sys.stderr)
    return Told(len(told), last, watch.waits)


def _watch_button(sent: tg.Sent) -> str | None:
    for row in sent.button_rows():
        for button in row:
            if WATCH_LABEL in str(button.get("text")) and "callback_data" in button:
                return str(button["callback_data"])
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscribers", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=60.0, help="every subscriber's messages within this long")
    parser.add_argument("--paid", choices=("off", "on", "both"), default="both", help="notices as paid broadcasts")
    parser.add_argument("--database", default=None, help="default: a SQLite file in a temporary folder")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="chats the bot processes at once")
    parser.add_argument("--within", type=float, default=3600.0, help="give up on a phase after this many seconds")
    args = parser.parse_args()
    for paid in {"off": [False], "on": [True], "both": [False, True]}[args.paid]:
        emit(asyncio.run(measure(
            args.database, args.subscribers, args.seconds, args.within, args.concurrency, paid=paid,
        )))
    return 0


if __name__ == "__main__":
    sys.exit(main())
