"""Outage surge on WhatsApp: the subscribers on a failed NAS each write "sem internet" through the
signed webhook, and the bot answers all of them under the number's throughput.

    .venv/bin/python -m bench.whatsapp_surge [--subscribers 10000] [--rate 80] [--database URL]

The whole bot runs on WhatsApp as in the tests (the webhook's ASGI app, the processor, the sender,
the fake Cloud API enforcing ``--rate`` messages a second with 130429 past it, the sandbox ISP
in-process); the subscribers are linked and parked at the menu as in ``bench.outage_surge``. Every
message is posted at once, as Meta does in a surge (one message per post). Figures, one JSON line:
``intake_per_second`` (posts stored and acknowledged a second: the webhook's intake), the time from
the first post to the last answer against the bound the throughput sets (``subscribers / rate``),
their ratio (the issue's bar: at most 1.1), and how many 130429 Meta answered (the bar: none).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from bot.sandbox import FixedClock, Sandbox
from bot.store.channels import WHATSAPP, ChannelIds
from bot.store.db import pool_size_for
from bot.store.types import utcnow
from flows.context import FLOW_DATA
from flows.subscriber.menu import GREETING
from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import running_whatsapp

from bench.outage_surge import FAILED_NAS, FIRST_CUSTOMER
from bench.report import dialect, emit, figure
from bench.scratch import add_offline_customers, link_chats, park_chats, scratch_database

POLL = 0.05


async def measure(url: str | None, subscribers: int, rate: int, within: float) -> dict[str, Any]:
    sandbox = Sandbox.seeded(clock=FixedClock())
    customers = add_offline_customers(sandbox, subscribers, FAILED_NAS, FIRST_CUSTOMER)
    people = [f"5599{n:09d}" for n in range(subscribers)]
    async with scratch_database(url, pool_size=pool_size_for(12)) as database:
        async with database.transaction() as session:
            ids = await ChannelIds().chat_ids(session, WHATSAPP, people, utcnow())
        chats = [ids[person] for person in people]
        await link_chats(database, list(zip(chats, customers, strict=True)))
        pairs = list(zip(chats, customers, strict=True))
        greeted = {chat: {FLOW_DATA: {GREETING: [f"Assinante {code}", ""]}} for chat, code in pairs}
        await park_chats(database, chats, "menu", "choose", data_of=greeted.__getitem__)
        api = FakeCloudApi(throughput=rate)
        async with running_whatsapp(database, sandbox, api=api, whatsapp_rate=rate) as bot:
            started = time.monotonic()
            posts = [bot.post(wa.post(wa.text(person, "sem internet"))) for person in people]
            answers = await asyncio.gather(*posts)
            stored = time.monotonic()
            refused = sum(1 for answer in answers if answer.status_code != 200)
            deadline = started + within
            answered: set[str] = set()
            while len(answered) < subscribers and time.monotonic() < deadline:
                answered.update(sent.to for sent in api.sent)
                await asyncio.sleep(POLL)
            last = max((sent.at for sent in api.sent), default=time.monotonic())
            outage = sum(1 for sent in api.sent if "Identificamos" in sent.text or "fora do ar" in sent.text.lower())
    bound = subscribers / rate
    took = last - started
    return figure(
        "whatsapp_surge", database=dialect(url), subscribers=subscribers, rate=rate,
        intake_per_second=round(subscribers / (stored - started), 1), posts_refused=refused,
        answered=len(answered), outage_answers=outage, last_answer_seconds=round(took, 2),
        throughput_bound_seconds=round(bound, 2), ratio_to_bound=round(took / bound, 3),
        errors_130429=api.errors.get(130429, 0), errors=dict(api.errors),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.whatsapp_surge", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subscribers", type=int, default=10_000)
    parser.add_argument("--rate", type=int, default=80, help="the number's throughput, messages a second")
    parser.add_argument("--database", default=None, help="a PostgreSQL URL (default: a scratch SQLite file)")
    parser.add_argument("--within", type=float, default=None, help="give up after this many seconds")
    args = parser.parse_args(argv)
    within = args.within or args.subscribers / args.rate * 3 + 60
    line = asyncio.run(measure(args.database, args.subscribers, args.rate, within))
    emit(line)
    return 0  # a figure, not a test: ratio_to_bound and errors_130429 say how it went


if __name__ == "__main__":
    sys.exit(main())
