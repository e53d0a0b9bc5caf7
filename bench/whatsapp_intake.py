"""Intake: how many incoming messages a second the bot keeps in its inbox, WhatsApp's webhook against
Telegram's polling, side by side in one run.

    .venv/bin/python -m bench.whatsapp_intake [--messages 20000] [--per-post 10] [--connections 64] [--database URL]

Only the intake runs (nothing is processed, so the inbox only grows). WhatsApp: the bot's own web app
served by uvicorn on 127.0.0.1, as ``ispbot run`` serves it; a load generator in a process of its own
posts Meta's signed bodies over loopback from ``--connections`` connections at once, first one
message a post, then ``--per-post`` messages a post, and posts every tenth post a second time (Meta
sends again what it doubts arrived); each post is checked (signature), deduplicated by ``wamid`` and
stored before its 200. Telegram: the fake Bot API in a process of its own (``bench.fake_telegram``)
holds the same number of messages, and the bot's poller takes them with ``getUpdates`` (100 a call)
into the inbox, its pause on a backlog lifted. Both from senders known already, five messages each.
One JSON line per intake (``messages_per_second``: messages stored over the time from the first post
or poll to the last stored), then one with each WhatsApp rate's ratio to Telegram's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import uvicorn
from bot.channels.telegram.polling import Poller
from bot.channels.telegram.settings import TelegramSettings
from bot.isp import IspSettings
from bot.runtime.app import App, Settings, build_app
from bot.sandbox import PRODUCTION_KEY, FixedClock, Sandbox
from bot.settings import BotSettings, ServerSettings
from bot.store.channels import WHATSAPP, ChannelIds
from bot.store.models import InboxRow
from bot.store.types import utcnow
from sqlalchemy import func, select
from starlette.applications import Starlette
from tests.store.dbtools import ScratchDatabase
from tests.telegram.fake_bot_api import DEFAULT_TOKEN
from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.harness import whatsapp_settings

from bench.report import dialect, emit, figure
from bench.scratch import scratch_database

PER_SENDER = 5  # messages from each person: well under a chat's backlog of 20
RESENT_EVERY = 10  # every tenth post comes twice,
RESENT_AFTER = 5  # five posts later
POLL = 0.005


async def measure_all(url: str | None, messages: int, per_post: int, connections: int, within: float) -> None:
    telegram = await polling_intake(url, messages, within)
    emit(telegram)
    rates = {}
    for batch in (1, per_post):
        line = await webhook_intake(url, messages, batch, connections, within)
        emit(line)
        rates[f"whatsapp_{batch}_per_post_vs_telegram"] = _ratio(line, telegram)
    emit(figure("intake_ratios", database=dialect(url), messages=messages, **rates))


def _ratio(line: dict[str, Any], telegram: dict[str, Any]) -> float | None:
    if not telegram["messages_per_second"]:
        return None
    return round(float(line["messages_per_second"]) / float(telegram["messages_per_second"]), 3)


# ---- Telegram: getUpdates into the inbox -----------------------------------------------------------

async def polling_intake(url: str | None, messages: int, within: float) -> dict[str, Any]:
    chats = max(1, messages // PER_SENDER)
    command = [sys.executable, "-m", "bench.fake_telegram", "--updates", str(messages), "--chats", str(chats),
               "--expect-sends", "0", "--within", str(within)]
    with _process(command) as server:
        assert server.stdout is not None
        api = f"http://127.0.0.1:{json.loads(server.stdout.readline())['port']}"
        settings = TelegramSettings(telegram_token=DEFAULT_TOKEN, telegram_api_url=api)
        async with scratch_database(url) as database, _app(Settings(_isp(), BotSettings(), settings), database) as app:
            assert app.runtime is not None
            channel = app.runtime.channel
            assert channel.intake is not None
            poller = Poller(channel.bot, channel.intake, timeout=1, max_backlog=messages + 1)
            stop = asyncio.Event()
            started = time.monotonic()
            polling = asyncio.create_task(poller.run(stop))
            stored = await _stored_within(database, "telegram", messages, started + within)
            took = time.monotonic() - started
            stop.set()
            await asyncio.wait_for(polling, 15)
    return figure("intake", channel="telegram", how="getUpdates, 100 a call", database=dialect(url),
                  messages=messages, stored=stored, seconds=round(took, 2),
                  messages_per_second=round(stored / took, 1))


async def _stored_within(database: ScratchDatabase, channel: str, expected: int, deadline: float) -> int:
    stored = 0
    while time.monotonic() < deadline:
        stored = await _stored(database, channel)
        if stored >= expected:
            break
        await asyncio.sleep(POLL)
    return stored


async def _stored(database: ScratchDatabase, channel: str) -> int:
    async with database.session() as session:
        return int(await session.scalar(
            select(func.count()).select_from(InboxRow).where(InboxRow.channel == channel)) or 0)


# ---- WhatsApp: signed posts to the webhook -----------------------------------------------------------

async def webhook_intake(url: str | None, messages: int, per_post: int, connections: int,
                         within: float) -> dict[str, Any]:
    api = wa.FakeCloudApi()
    settings = Settings(_isp(), BotSettings(), whatsapp_settings=whatsapp_settings(api),
                        server_settings=ServerSettings(_env_file=None))
    async with scratch_database(url) as database:
        async with database.transaction() as session:  # subscribers who wrote before, as in a surge
            await ChannelIds().chat_ids(session, WHATSAPP, people(messages // PER_SENDER), utcnow())
        async with _app(settings, database, api) as app:
            assert app.runtime is not None
            async with serving(app.runtime.web_app()) as root:
                done = await post_from_another_process(
                    f"{root}/whatsapp/webhook", messages, per_post, connections, within,
                    senders=messages // PER_SENDER, resent_every=RESENT_EVERY)
            stored = await _stored(database, WHATSAPP)
    took = done["last_answer"] - done["first_post"]
    return figure("intake", channel="whatsapp", how=f"webhook, {per_post} a post", database=dialect(url),
                  messages=messages, posts=done["posts"], posts_again=done["posts_again"],
                  refused=done["refused"], stored=stored, seconds=round(took, 2),
                  messages_per_second=round(stored / took, 1), posts_per_second=round(done["posts"] / took, 1),
                  connections=connections)


def people(count: int) -> list[str]:
    """The WhatsApp numbers of ``count`` subscribers."""
    return [f"5598{n:09d}" for n in range(max(1, count))]


async def post_from_another_process(
    url: str, messages: int, per_post: int, connections: int, within: float, *, senders: int, resent_every: int,
) -> dict[str, Any]:
    """Meta's posts of ``messages`` texts from ``people(senders)``, by the load generator; what it
    saw: ``first_post`` and ``last_answer`` (monotonic seconds, the same clock as this process's),
    ``posts``, ``posts_again``, ``refused`` (any answer but 200)."""
    command = [sys.executable, "-m", "bench.whatsapp_intake", "--post-to", url, "--messages", str(messages),
               "--per-post", str(per_post), "--connections", str(connections), "--senders", str(senders),
               "--resent-every", str(resent_every)]
    with _process(command) as poster:
        assert poster.stdout is not None and poster.stdin is not None
        await asyncio.to_thread(poster.stdout.readline)  # its bodies are made and signed
        poster.stdin.write("go\n")
        poster.stdin.flush()
        line = await asyncio.wait_for(asyncio.to_thread(poster.stdout.readline), within)
    found: dict[str, Any] = json.loads(line)
    return found


@contextlib.asynccontextmanager
async def _app(settings: Settings, database: ScratchDatabase, api: wa.FakeCloudApi | None = None) -> AsyncIterator[App]:
    sandbox = Sandbox.seeded(clock=FixedClock())
    app = await build_app(
        settings, database=database, http_transport=httpx.ASGITransport(app=sandbox.app), wall_clock=sandbox.clock,
        whatsapp_transport=httpx.ASGITransport(app=api.app) if api is not None else None,
    )
    assert app.runtime is not None
    await app.runtime.start()
    try:
        yield app
    finally:
        await app.runtime.stop()
        await app.aclose()


@contextlib.asynccontextmanager
async def serving(web_app: Starlette) -> AsyncIterator[str]:
    """The bot's web app on 127.0.0.1, as ``bot.web.serve`` runs it (uvicorn), with its root."""
    server = uvicorn.Server(uvicorn.Config(web_app, host="127.0.0.1", port=0, log_level="warning",
                                           access_log=False, lifespan="off"))
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                raise RuntimeError("the bot's web app did not start")
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        await task


def _isp() -> IspSettings:
    return IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0)


@contextlib.contextmanager
def _process(command: list[str]) -> Iterator[subprocess.Popen[str]]:
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # noqa: S603
    try:
        yield child
    finally:
        if child.stdin is not None:
            child.stdin.close()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


# ---- the load generator (a process of its own) -------------------------------------------------------

def bodies(messages: int, per_post: int, senders: int, resent_every: int) -> list[bytes]:
    """Meta's posts for ``messages`` texts, ``per_post`` a post, from ``people(senders)`` in turn;
    with ``resent_every``, every so many posts come again a few posts later."""
    numbers = people(senders)
    texts = [wa.text(numbers[n % len(numbers)], "sem internet") for n in range(messages)]
    posts = [wa.encoded(wa.post(*texts[n:n + per_post])) for n in range(0, messages, per_post)]
    if not resent_every:
        return posts
    order: list[bytes] = []
    again: dict[int, list[bytes]] = {}
    for n, raw in enumerate(posts):
        order.append(raw)
        if n % resent_every == 0:
            again.setdefault(n + RESENT_AFTER, []).append(raw)
        order += again.pop(n, [])
    return order + [raw for rest in again.values() for raw in rest]


async def post_all(url: str, posts: list[bytes], connections: int) -> dict[str, Any]:
    import aiohttp  # noqa: PLC0415 - the generator's client, in its own process

    pending = iter(posts)
    refused = 0
    first = last = 0.0

    async def connection(session: aiohttp.ClientSession) -> None:
        nonlocal refused, last
        for raw in pending:
            headers = {"Content-Type": "application/json", "X-Hub-Signature-256": wa.sign(raw)}
            async with session.post(url, data=raw, headers=headers) as answer:
                await answer.read()
                refused += answer.status != 200
            last = time.monotonic()

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=connections)) as session:
        first = time.monotonic()
        await asyncio.gather(*(connection(session) for _ in range(connections)))
    return {"first_post": first, "last_answer": last, "refused": refused}


def poster(args: argparse.Namespace) -> int:
    messages, per_post = args.messages, args.per_post
    posts = bodies(messages, per_post, args.senders, args.resent_every)
    print(json.dumps({"ready": len(posts)}), flush=True)
    sys.stdin.readline()
    done = asyncio.run(post_all(args.post_to, posts, args.connections))
    unique = -(-messages // per_post)
    print(json.dumps({**done, "posts": len(posts), "posts_again": len(posts) - unique}), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.whatsapp_intake", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--per-post", type=int, default=10, help="messages in each post of the batched run")
    parser.add_argument("--connections", type=int, default=64, help="posts in flight at once")
    parser.add_argument("--database", default=None, help="a PostgreSQL URL (default: a scratch SQLite file)")
    parser.add_argument("--within", type=float, default=300.0, help="give up on an intake after this many seconds")
    # The load generator's own run (``post_from_another_process``).
    parser.add_argument("--post-to", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--senders", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--resent-every", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.post_to:
        return poster(args)
    asyncio.run(measure_all(args.database, args.messages, args.per_post, args.connections, args.within))
    return 0


if __name__ == "__main__":
    sys.exit(main())
