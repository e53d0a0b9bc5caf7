"""Outage surge on WhatsApp: the subscribers on a failed NAS each write "sem internet" through the
signed webhook, and the bot answers all of them under the number's throughput.

    .venv/bin/python -m bench.whatsapp_surge [--subscribers 10000] [--rate 80] [--connections 64] [--database URL]

The whole bot runs on WhatsApp as in the tests (the processor, the sender with Meta's per-person pace
as shipped, the sandbox ISP in-process), its web app served on 127.0.0.1 as ``ispbot run`` serves it;
the fake Cloud API keeps Meta's limits (``--rate`` messages in any second, 130429 past it; the pair
limit, 131056). The subscribers are linked and parked at the menu as in ``bench.outage_surge``. A
load generator in a process of its own (``bench.whatsapp_intake``'s) posts every message at once,
one a post, over ``--connections`` connections. Figures, one JSON line: the time from the first post
to the last answer the fake accepted against the bound the throughput sets (``subscribers / rate``),
their ratio (the issue's bar: at most 1.1), the first answer, the sending rate from the first answer
to the last, the webhook's intake a second, and how many 130429 and 131056 Meta answered (none).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from bot.channels.whatsapp.sender import PAIR
from bot.sandbox import FixedClock, Sandbox
from bot.store.channels import WHATSAPP, ChannelIds
from bot.store.db import pool_size_for
from bot.store.types import utcnow
from flows.chat import FLOW_DATA
from flows.subscriber.menu import GREETING
from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import running_whatsapp

from bench.outage_surge import FAILED_NAS, FIRST_CUSTOMER
from bench.report import dialect, emit, figure
from bench.scratch import add_offline_customers, link_chats, park_chats, scratch_database
from bench.whatsapp_intake import people, post_from_another_process, serving

POLL = 0.05


async def measure(url: str | None, subscribers: int, rate: int, connections: int, within: float) -> dict[str, Any]:
    sandbox = Sandbox.seeded(clock=FixedClock())
    customers = add_offline_customers(sandbox, subscribers, FAILED_NAS, FIRST_CUSTOMER)
    numbers = people(subscribers)
    async with scratch_database(url, pool_size=pool_size_for(12)) as database:
        async with database.transaction() as session:
            ids = await ChannelIds().chat_ids(session, WHATSAPP, numbers, utcnow())
        chats = [ids[number] for number in numbers]
        await link_chats(database, list(zip(chats, customers, strict=True)))
        pairs = list(zip(chats, customers, strict=True))
        greeted = {chat: {FLOW_DATA: {GREETING: [f"Assinante {code}", ""]}} for chat, code in pairs}
        await park_chats(database, chats, "menu", "choose", data_of=greeted.__getitem__)
        api = FakeCloudApi(throughput=rate, pair_limit=wa.META_PAIR_LIMIT)
        async with running_whatsapp(database, sandbox, api=api, whatsapp_rate=rate) as bot:
            bot.channel.sender.pair = PAIR  # each person's pace as shipped (the harness relaxes it)
            async with serving(bot.runtime.web_app()) as root:
                done = await post_from_another_process(
                    f"{root}/whatsapp/webhook", subscribers, 1, connections, within, senders=subscribers,
                    resent_every=0)
                started = done["first_post"]
                deadline = started + within
                answered: set[str] = set()
                while len(answered) < subscribers and time.monotonic() < deadline:
                    answered.update(sent.to for sent in api.sent)
                    await asyncio.sleep(POLL)
            times = [sent.at for sent in api.sent]
            outage = sum(1 for sent in api.sent if "Identificamos" in sent.text or "fora do ar" in sent.text.lower())
    bound = subscribers / rate
    first, last = (min(times), max(times)) if times else (started, time.monotonic())
    took = last - started
    return figure(
        "whatsapp_surge", database=dialect(url), subscribers=subscribers, rate=rate, connections=connections,
        intake_per_second=round(subscribers / (done["last_answer"] - started), 1), posts_refused=done["refused"],
        answered=len(answered), outage_answers=outage, first_answer_seconds=round(first - started, 2),
        sends_per_second_after_the_first=round((len(times) - 1) / (last - first), 1) if last > first else None,
        last_answer_seconds=round(took, 2), throughput_bound_seconds=round(bound, 2),
        ratio_to_bound=round(took / bound, 3), errors_130429=api.errors.get(130429, 0),
        errors_131056=api.errors.get(131056, 0), errors=dict(api.errors),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.whatsapp_surge", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subscribers", type=int, default=10_000)
    parser.add_argument("--rate", type=int, default=80, help="the number's throughput, messages a second")
    parser.add_argument("--connections", type=int, default=64, help="posts in flight at once")
    parser.add_argument("--database", default=None, help="a PostgreSQL URL (default: a scratch SQLite file)")
    parser.add_argument("--within", type=float, default=None, help="give up after this many seconds")
    args = parser.parse_args(argv)
    within = args.within or args.subscribers / args.rate * 3 + 60
    line = asyncio.run(measure(args.database, args.subscribers, args.rate, args.connections, within))
    emit(line)
    return 0  # a figure, not a test: ratio_to_bound and errors_130429 say how it went


if __name__ == "__main__":
    sys.exit(main())
