"""A round of notices for many subscribers under Telegram's ceiling while others write: the round
must go at the channel's pace and never hold their answers back.

    .venv/bin/python -m bench.notice_round [--subscribers 10000] [--people 50] [--database URL]

The whole bot runs over the fake Bot API (429 past Telegram's limits). ``--subscribers`` linked
customers each have a bill due in three days; ``--people`` others write ``ASKED`` one after another
every ``WRITE_EVERY`` seconds. Figures: ``round_seconds``, from the round's start to the last reminder
at Telegram, against the reminders ÷ 30 a second (``round_vs_bound``; the issue's bound 1.1) and
every message Telegram took meanwhile ÷ 30 (``round_vs_shared_bound``: replies go first);
``made_seconds``, when every notice was handed to the channel; ``cpu_ms_per_notice``, the process's
CPU (bot, fake Bot API, sandbox ISP) per reminder, whence the pace of an idle core, beside the load
averages; ``answer_p99_ms``, a person's message at Telegram to the bot's next message to that chat
(bound 1 s; watched every 20 ms); ``too_many_requests`` (0 expected); the round's ISP calls.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from datetime import timedelta
from typing import Any

from bot.runtime.processor import DEFAULT_CONCURRENCY
from bot.sandbox.seed import document_record
from bot.store import Links
from flows.notices import BILL_DUE
from tests.telegram import fake_bot_api as tg
from tests.telegram.fake_bot_api import FakeBotApi, TelegramLimits
from tests.telegram.harness import running_bot

from bench.outage_surge import parked_subscribers
from bench.report import dialect, emit, figure, median, percentile
from bench.telegram_surge import POLL, TELEGRAM_RATE, Watch

WRITE_EVERY = 0.25  # seconds between two people's messages during the round
# What people write: answered without an ISP read. The sandbox ISP runs in the bot's own process and
# loop (filters evaluated over every customer): a read per person would measure it, not the bot.
ASKED = "/ajuda"
DUE_IN_DAYS = 3
FIRST_DOCUMENT = 9_000_000


async def measure(url: str | None, subscribers: int, people: int, within: float, concurrency: int) -> dict[str, Any]:
    async with parked_subscribers(url, subscribers + people, concurrency) as parked, FakeBotApi(
        max_poll_timeout=0.25, limits=TelegramLimits(),
    ) as api, running_bot(parked.database, parked.sandbox, concurrency=concurrency, sender_limits={}, api=api) as bot:
        sandbox = parked.sandbox
        parked.event.update(Status="C")  # no outage: the bills' reminders alone
        due_chats, writers = parked.chats[:subscribers], parked.chats[subscribers:]
        due = sandbox.clock().date() + timedelta(days=DUE_IN_DAYS)
        links = await _customers_of(parked.database, due_chats)
        for n, customer in enumerate(links):
            record = sandbox.store.find("customers", Codigo=customer)
            assert record is not None
            sandbox.store.insert("documents", document_record(FIRST_DOCUMENT + n, record, [], due, 99.90, paid_on=None))
        await bot.chat(1).say("/ajuda")  # a stranger's help: pools and templates ready, no ISP read
        sandbox.reset_calls()
        notices = bot.app.notices
        assert notices is not None
        watch = Watch(bot.api, seen=len(bot.api.outgoing()))
        told: dict[int, float] = {}
        due_set = set(due_chats)
        load_before, cpu_started = os.getloadavg()[0], time.process_time()
        started = time.perf_counter()
        round_task = asyncio.create_task(notices.run(send=bot.processor.send_round))
        made = 0.0  # when the round had handed every notice to the channel
        cpu, sends = 0.0, 0  # at the round's end: the process's CPU seconds, the messages Telegram took
        next_write, writer = 0.0, 0
        try:
            async with asyncio.timeout(within):
                while len(told) < subscribers or watch.unanswered or not round_task.done():
                    now = time.perf_counter() - started
                    if len(told) < subscribers and writers and now >= next_write:
                        chat = writers[writer % len(writers)]
                        writer, next_write = writer + 1, now + WRITE_EVERY
                        bot.api.push_update(tg.text_message(chat, ASKED))
                        watch.wrote(chat, now)
                    if round_task.done() and not made:
                        made = time.perf_counter() - started
                    for sent in watch.follow(time.perf_counter() - started):
                        if sent.chat_id in due_set and sent.chat_id not in told:
                            told[int(sent.chat_id)] = time.perf_counter() - started
                            if len(told) == subscribers:  # the round's end: what it cost, what went meanwhile
                                cpu, sends = time.process_time() - cpu_started, watch.sends
                    await asyncio.sleep(POLL)
        except TimeoutError:
            print(f"notice_round: gave up after {within:.0f} s with {subscribers - len(told)} not told",
                  file=sys.stderr)
        if len(told) < subscribers:  # given up: what it cost and sent until then
            cpu, sends = time.process_time() - cpu_started, watch.sends
        report = round_task.result() if round_task.done() and not round_task.cancelled() else None
        calls = dict(sandbox.calls)
        too_many = dict(api.too_many_requests)
    round_seconds = max(told.values(), default=0.0)
    bound = subscribers / TELEGRAM_RATE
    shared_bound = sends / TELEGRAM_RATE  # the replies to the people writing took slots of the 30 too
    waits = watch.waits
    return figure(
        "notice_round", database=dialect(url), subscribers=subscribers, people=people, concurrency=concurrency,
        told=len(told), reminders=report.sent[BILL_DUE] if report else 0,
        round_seconds=round(round_seconds, 1), bound_seconds=round(bound, 1), made_seconds=round(made, 1),
        round_vs_bound=round(round_seconds / bound, 3) if bound else 0.0,
        sent_in_round=sends, shared_bound_seconds=round(shared_bound, 1),
        round_vs_shared_bound=round(round_seconds / shared_bound, 3) if shared_bound else 0.0,
        cpu_seconds=round(cpu, 1), cpu_ms_per_notice=round(1000 * cpu / len(told), 2) if told else 0.0,
        load_average_before=round(load_before, 2), load_average_after=round(os.getloadavg()[0], 2),
        answers=len(waits), answer_p50_ms=round(1000 * median(waits), 1),
        answer_p99_ms=round(1000 * percentile(waits, 0.99), 1), answer_max_ms=round(1000 * max(waits, default=0), 1),
        too_many_requests=sum(too_many.values()), too_many_requests_by_limit=too_many,
        isp_calls=sum(calls.values()), isp_calls_per_subscriber=round(sum(calls.values()) / subscribers, 4),
        isp_calls_by_operation=dict(sorted(calls.items())),
    )


async def _customers_of(database: Any, chats: list[int]) -> list[int]:
    found = []
    async with database.transaction() as session:
        for chat in chats:
            link = await Links().active(session, chat)
            assert link is not None and link.customer_code is not None
            found.append(link.customer_code)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscribers", type=int, default=10_000, help="subscribers with a bill due")
    parser.add_argument("--people", type=int, default=50, help="other subscribers writing during the round")
    parser.add_argument("--database", default=None, help="default: a SQLite file in a temporary folder")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="chats the bot processes at once")
    parser.add_argument("--within", type=float, default=3600.0, help="give up after this many seconds")
    args = parser.parse_args()
    emit(asyncio.run(measure(args.database, args.subscribers, args.people, args.within, args.concurrency)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
