"""A round of notices for many subscribers at the channel's ceiling while others write: the round
goes at the channel's pace and never holds their answers back.

    .venv/bin/python -m bench.notice_round [--channel telegram|whatsapp] [--subscribers 10000] [--people 50]
        [--rate 80] [--database URL]

The whole bot over the channel's fake (Telegram's 30 a second, 429 past it; or WhatsApp's ``--rate``,
130429 past it, the pair limit 131056, 131047 outside the 24-hour window, each kind's template named).
``--subscribers`` linked customers have a bill due in three days (on WhatsApp silent for 24 hours: their
reminders go as templates); ``--people`` others write ``ASKED`` every ``WRITE_EVERY`` seconds. Figures:
the round's end against the reminders ÷ the rate (``round_vs_bound``) and against every message the
channel took ÷ the rate (``round_vs_shared_bound``: replies go first); ``first_told_seconds``;
``cpu_ms_per_notice`` (bot, fake channel and sandbox ISP in one process); a person's answer p99
(``answer_p99_ms``, watched every 20 ms); the channel's refusals; the round's ISP calls.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.channels.whatsapp.sender import PAIR
from bot.runtime.processor import DEFAULT_CONCURRENCY, Processor
from bot.sandbox.seed import document_record
from bot.store import Links
from flows.notices import BILL_DUE, NoticeRound
from tests.telegram import fake_bot_api as tg
from tests.telegram.fake_bot_api import FakeBotApi, TelegramLimits
from tests.telegram.harness import running_bot
from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import running_whatsapp

from bench.outage_surge import Parked, parked_subscribers
from bench.report import dialect, emit, figure, median, percentile
from bench.telegram_surge import POLL, TELEGRAM_RATE, Watch
from bench.whatsapp_intake import people as whatsapp_numbers

WRITE_EVERY = 0.25  # seconds between two people's messages during the round
# What people write: answered without an ISP read. The sandbox ISP runs in the bot's own process and
# loop (filters evaluated over every customer): a read per person would measure it, not the bot.
ASKED = "/ajuda"
DUE_IN_DAYS = 3
FIRST_DOCUMENT = 9_000_000
TEMPLATES = Path(__file__).resolve().parent.parent / "ops" / "whatsapp-templates.yaml"
WHATSAPP_RATE = 80


@dataclass
class Bench:
    """What the measure needs of the bot on one channel: the parked subscribers, the round's
    sender, how a person writes, what the channel took and what it refused."""

    parked: Parked
    processor: Processor
    notices: NoticeRound
    rate: float
    outgoing: Any  # ``outgoing_since(index)``: the messages the channel took, each with its ``chat_id``
    write: Callable[[int], None]  # the person of this chat writes ``ASKED``
    refusals: Callable[[], dict[str, Any]]  # the channel's refusals, as figures


@contextlib.asynccontextmanager
async def telegram(url: str | None, chats: int, concurrency: int, rate: float) -> AsyncIterator[Bench]:
    del rate  # Telegram's own: 30 a second
    async with parked_subscribers(url, chats, concurrency) as parked, FakeBotApi(
        max_poll_timeout=0.25, limits=TelegramLimits(),
    ) as api, running_bot(parked.database, parked.sandbox, concurrency=concurrency, sender_limits={}, api=api) as bot:
        await bot.chat(1).say("/ajuda")  # a stranger's help: pools and templates ready, no ISP read
        assert bot.app.notices is not None

        def refusals() -> dict[str, Any]:
            too_many = dict(api.too_many_requests)
            return {"too_many_requests": sum(too_many.values()), "too_many_requests_by_limit": too_many}

        def write(chat: int) -> None:
            api.push_update(tg.text_message(chat, ASKED))

        yield Bench(parked, bot.processor, bot.app.notices, TELEGRAM_RATE, api, write, refusals)


@dataclass
class _Took:
    chat_id: int | None


@dataclass
class _CloudOutgoing:
    """The fake Cloud API's accepted messages, by chat (as ``Watch`` follows Telegram's)."""

    api: FakeCloudApi
    chat_of: dict[str, int]

    def outgoing_since(self, index: int) -> list[_Took]:
        return [_Took(self.chat_of.get(sent.to)) for sent in self.api.sent[index:]]


@contextlib.asynccontextmanager
async def whatsapp(url: str | None, chats: int, concurrency: int, rate: float) -> AsyncIterator[Bench]:
    numbers = whatsapp_numbers(chats)
    async with parked_subscribers(url, chats, concurrency, numbers=numbers) as parked:
        api = FakeCloudApi(throughput=int(rate), pair_limit=wa.META_PAIR_LIMIT, window=True)
        async with running_whatsapp(parked.database, parked.sandbox, api=api, whatsapp_rate=int(rate),
                                    whatsapp_templates=TEMPLATES, concurrency=concurrency) as bot:
            bot.channel.sender.pair = PAIR  # each person's pace as shipped (the harness relaxes it)
            await bot.chat("5511900000001").say("/ajuda")  # a stranger's help, as on Telegram
            assert bot.app.notices is not None
            number_of = dict(zip(parked.chats, numbers, strict=True))
            posts: set[asyncio.Task[Any]] = set()

            def write(chat: int) -> None:  # through the signed webhook, as Meta posts it
                task = asyncio.create_task(bot.post(wa.post(wa.text(number_of[chat], ASKED))))
                posts.add(task)
                task.add_done_callback(posts.discard)

            def refusals() -> dict[str, Any]:
                return {"errors_130429": api.errors.get(130429, 0), "errors_131056": api.errors.get(131056, 0),
                        "errors_131047": api.errors.get(131047, 0), "errors": dict(api.errors),
                        "sender_errors": dict(bot.channel.sender.errors)}

            yield Bench(parked, bot.runtime.processor, bot.app.notices, rate,
                        _CloudOutgoing(api, dict(zip(numbers, parked.chats, strict=True))), write, refusals)
            await asyncio.gather(*posts, return_exceptions=True)


CHANNELS = {"telegram": telegram, "whatsapp": whatsapp}


async def measure(
    channel: str, url: str | None, *, subscribers: int, people: int, within: float, concurrency: int, rate: float,
) -> dict[str, Any]:
    async with CHANNELS[channel](url, subscribers + people, concurrency, rate) as bench:
        sandbox = bench.parked.sandbox
        bench.parked.event.update(Status="C")  # no outage: the bills' reminders alone
        due_chats, writers = bench.parked.chats[:subscribers], bench.parked.chats[subscribers:]
        due = sandbox.clock().date() + timedelta(days=DUE_IN_DAYS)
        links = await _customers_of(bench.parked.database, due_chats)
        for n, customer in enumerate(links):
            record = sandbox.store.find("customers", Codigo=customer)
            assert record is not None
            sandbox.store.insert("documents", document_record(FIRST_DOCUMENT + n, record, [], due, 99.90, paid_on=None))
        sandbox.reset_calls()
        watch = Watch(bench.outgoing, seen=len(bench.outgoing.outgoing_since(0)))
        told: dict[int, float] = {}
        due_set = set(due_chats)
        load_before, cpu_started = os.getloadavg()[0], time.process_time()
        started = time.perf_counter()
        round_task = asyncio.create_task(bench.notices.run(send=bench.processor.send_round))
        made = 0.0  # when the round had handed every notice to the channel
        cpu, sends = 0.0, 0  # at the round's end: the process's CPU seconds, the messages the channel took
        next_write, writer = 0.0, 0
        try:
            async with asyncio.timeout(within):
                while len(told) < subscribers or watch.unanswered or not round_task.done():
                    now = time.perf_counter() - started
                    if len(told) < subscribers and writers and now >= next_write:
                        chat = writers[writer % len(writers)]
                        writer, next_write = writer + 1, now + WRITE_EVERY
                        bench.write(chat)
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
        refusals = bench.refusals()
        rate = bench.rate
    round_seconds = max(told.values(), default=0.0)
    bound = subscribers / rate
    shared_bound = sends / rate  # the replies to the people writing took slots of the rate too
    waits = watch.waits
    return figure(
        "notice_round", channel=channel, database=dialect(url), subscribers=subscribers, people=people,
        concurrency=concurrency, rate=rate, told=len(told), reminders=report.sent[BILL_DUE] if report else 0,
        first_told_seconds=round(min(told.values(), default=0.0), 1),
        round_seconds=round(round_seconds, 1), bound_seconds=round(bound, 1), made_seconds=round(made, 1),
        round_vs_bound=round(round_seconds / bound, 3) if bound else 0.0,
        sent_in_round=sends, shared_bound_seconds=round(shared_bound, 1),
        round_vs_shared_bound=round(round_seconds / shared_bound, 3) if shared_bound else 0.0,
        cpu_seconds=round(cpu, 1), cpu_ms_per_notice=round(1000 * cpu / len(told), 2) if told else 0.0,
        load_average_before=round(load_before, 2), load_average_after=round(os.getloadavg()[0], 2),
        answers=len(waits), answer_p50_ms=round(1000 * median(waits), 1),
        answer_p99_ms=round(1000 * percentile(waits, 0.99), 1), answer_max_ms=round(1000 * max(waits, default=0), 1),
        **refusals,
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
    parser.add_argument("--channel", choices=sorted(CHANNELS), default="telegram", help="the channel the round goes on")
    parser.add_argument("--subscribers", type=int, default=10_000, help="subscribers with a bill due")
    parser.add_argument("--people", type=int, default=50, help="other subscribers writing during the round")
    parser.add_argument("--database", default=None, help="default: a SQLite file in a temporary folder")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="chats the bot processes at once")
    parser.add_argument("--rate", type=int, default=WHATSAPP_RATE,
                        help="WhatsApp: the number's throughput, messages a second (Telegram's is 30)")
    parser.add_argument("--within", type=float, default=3600.0, help="give up after this many seconds")
    args = parser.parse_args()
    emit(asyncio.run(measure(args.channel, args.database, subscribers=args.subscribers, people=args.people,
                             within=args.within, concurrency=args.concurrency, rate=args.rate)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
