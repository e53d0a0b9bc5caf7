"""Two real ``ispbot run`` processes in webhook mode on one PostgreSQL, as behind a reverse proxy
that spreads Telegram's posts over them.

A stream of updates from many chats is posted to one process or the other: a chat's updates go to
both, interleaved, and some updates are posted twice (to the same process and to the other, at
once and later, as Telegram does when it misses a 200), and flood control holds back an answer in
some chats. Every update must be processed once and answered once, each chat's answers must come in
the order of its updates (also when its next update went to the other process), and every message of the
conversations that have a ticket must reach the ISP's ``chat_messages`` once and in order, whichever
process's mirror worker delivered it.

The processes see the fake Bot API and the sandbox ISP over loopback HTTP, both served by this test;
the database is a fresh one created on the PostgreSQL of ``ISPBOT_TEST_DATABASE_URL`` (a process
cannot be told a schema through its URL) and dropped at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from bot.channels.telegram.settings import TelegramSettings
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, FixedClock, Sandbox
from bot.sandbox.server import SandboxServer, free_port
from bot.store import Database, InboxState, OutboxState
from bot.store.models import InboxRow, OutboxRow
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select

from tests.store.dbtools import ENV_URL, postgresql_url, separate_database
from tests.telegram import fake_bot_api as tg
from tests.telegram.fake_bot_api import FakeBotApi
from tests.telegram.harness import WEBHOOK_SECRET

pytestmark = pytest.mark.skipif(
    postgresql_url() is None,
    reason=f"several processes share one PostgreSQL: set {ENV_URL} to run this test",
)

PROCESSES = 2
TICKET_CHATS = 8  # linked to the demo customer, each with a ticket of its own: their messages are mirrored
PLAIN_CHATS = 22  # not linked: answered, nothing mirrored
UPDATES_PER_CHAT = 10
REPOSTED = 0.2  # share of updates Telegram posts a second time
WITHIN = 180.0  # seconds any one wait may take (Telegram's real send limits apply: 1 a second per chat)

MENU = "Olá"  # the first words of the menu (or, to a stranger, the welcome) that "/menu" answers
LANGUAGE = "Em qual idioma"  # the question "/idioma" answers


# ---- the world the processes run in ---------------------------------------------------------------
@contextlib.asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
    """A new database on the test PostgreSQL, migrated with ``ispbot migrate``; its URL. Dropped after."""
    base = postgresql_url()
    assert base is not None
    async with separate_database(base) as url:
        migrated = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "bot.cli", "migrate"], env=bot_env({"ISPBOT_DATABASE_URL": url}),
            capture_output=True, text=True, timeout=120, check=False,
        )
        assert migrated.returncode == 0, migrated.stderr
        yield url


def bot_env(settings: dict[str, str]) -> dict[str, str]:
    """This environment without the caller's ``ISPBOT_*`` (a developer's own settings stay out), plus ``settings``."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("ISPBOT_")}, **settings}


@dataclass
class BotProcess:
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


@contextlib.contextmanager
def bot_processes(database_url: str, api: FakeBotApi, isp_url: str, workdir: Path) -> Iterator[list[BotProcess]]:
    """``PROCESSES`` × ``ispbot run`` in webhook mode, same settings but the port; SIGTERM (then SIGKILL) at the end."""
    started: list[BotProcess] = []
    try:
        for number in range(PROCESSES):
            port = free_port()
            log = workdir / f"bot-{number}.log"
            env = bot_env({
                "ISPBOT_DATABASE_URL": database_url,
                "ISPBOT_TELEGRAM_TOKEN": api.token,
                "ISPBOT_TELEGRAM_API_URL": api.base_url,
                "ISPBOT_MODE": "webhook",
                "ISPBOT_WEBHOOK_URL": "https://bot.example.net",
                "ISPBOT_WEBHOOK_SECRET": WEBHOOK_SECRET,
                "ISPBOT_LISTEN_PORT": str(port),
                "ISPBOT_ISP_BASE_URL": isp_url,
                "ISPBOT_ISP_KEY": PRODUCTION_KEY,
            })
            with log.open("wb") as sink:
                process = subprocess.Popen(
                    [sys.executable, "-m", "bot.cli", "run"], env=env, cwd=workdir, stdout=sink,
                    stderr=subprocess.STDOUT,
                )
            started.append(BotProcess(port, process, log))
        yield started
    finally:
        for bot in started:
            bot.process.terminate()
        for bot in started:
            try:
                bot.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                bot.process.kill()
                bot.process.wait(timeout=10)


async def until_healthy(http: httpx.AsyncClient, bots: list[BotProcess]) -> None:
    async with asyncio.timeout(60):
        for bot in bots:
            while True:
                assert bot.process.poll() is None, f"ispbot run on port {bot.port} exited:\n{bot.output()}"
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get(f"http://127.0.0.1:{bot.port}/healthz")).status_code == 200:
                        break
                await asyncio.sleep(0.1)


async def answered_by(http: httpx.AsyncClient, bot: BotProcess) -> int:
    """How many updates the process answered, from its ``/metrics``."""
    exposition = (await http.get(f"http://127.0.0.1:{bot.port}/metrics")).text
    return int(sum(
        sample.value for family in text_string_to_metric_families(exposition) for sample in family.samples
        if sample.name == "ispbot_updates_total" and sample.labels.get("outcome") == "answered"
    ))


# ---- Telegram's side: posting updates ---------------------------------------------------------------
@dataclass
class Telegram:
    """Posts updates to the processes' webhooks, as Telegram does, with increasing ``update_id``s."""

    http: httpx.AsyncClient
    bots: list[BotProcess]
    database: Database
    path: str = TelegramSettings(
        telegram_token=tg.DEFAULT_TOKEN, mode="webhook", webhook_url="https://bot.example.net",
        webhook_secret=WEBHOOK_SECRET,
    ).webhook_path
    next_id: int = 1000
    posts: Counter[int] = field(default_factory=Counter)  # posts per update_id

    def number(self, update: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        return {"update_id": self.next_id, **update}

    async def post(self, bot: int, update: dict[str, Any]) -> None:
        response = await self.http.post(
            f"http://127.0.0.1:{self.bots[bot].port}{self.path}", json=update,
            headers={"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET},
        )
        assert response.status_code == 200, response.text
        self.posts[update["update_id"]] += 1

    async def handled(self, update_id: int) -> None:
        """Until the update was processed and Telegram accepted its answer."""
        async with asyncio.timeout(WITHIN):
            while True:
                async with self.database.session() as session:
                    row = await session.get(InboxRow, update_id, populate_existing=True)
                if row is not None and row.state == InboxState.DONE.value and row.answer is None:
                    return
                await asyncio.sleep(0.05)


async def link_and_open_ticket(telegram: Telegram, api: FakeBotApi, chat_id: int) -> None:
    """The chat links to the demo customer (tax id and her own phone) and asks for a person: the
    conversation gets a ticket. Each step goes to the other process than the one before."""
    steps = 0

    async def send(update: dict[str, Any]) -> None:
        nonlocal steps
        numbered = telegram.number(update)
        await telegram.post(steps % PROCESSES, numbered)
        steps += 1
        await telegram.handled(numbered["update_id"])

    await send(tg.start(chat_id))
    buttons = [button for sent in api.sent(chat_id) for row in sent.button_rows() for button in row]
    tax_id_button = next(str(b["callback_data"]) for b in reversed(buttons) if "CPF/CNPJ" in str(b.get("text")))
    await send(tg.callback_query(chat_id, tax_id_button))
    await send(tg.text_message(chat_id, DEMO_IDENTITIES.customer_cpf))
    await send(tg.contact_message(chat_id, "+55 11 98765-4321", contact_user_id=chat_id))
    assert any("cadastro confirmado" in (sent.text or "") for sent in api.sent(chat_id))
    before = len(api.sent(chat_id))
    await send(tg.text_message(chat_id, "/atendente"))
    assert any("chamado nº" in (sent.text or "") for sent in api.sent(chat_id)[before:])


# ---- the test -----------------------------------------------------------------------------------------
async def test_two_processes_answer_every_update_once_in_each_chats_order_and_mirror_it_once(
    tmp_path: Path,
) -> None:
    sandbox = Sandbox.seeded(clock=FixedClock())
    ticket_chats = [8_100_001 + n for n in range(TICKET_CHATS)]
    plain_chats = [8_200_001 + n for n in range(PLAIN_CHATS)]
    with SandboxServer(sandbox) as isp:
        async with fresh_database() as url, FakeBotApi() as api, httpx.AsyncClient(timeout=30) as http:
            database = Database(url)
            try:
                with bot_processes(url, api, isp.url, tmp_path) as bots:
                    try:
                        await until_healthy(http, bots)
                        telegram = Telegram(http, bots, database)
                        await asyncio.gather(*(link_and_open_ticket(telegram, api, chat) for chat in ticket_chats))
                        await check_the_stream(telegram, api, sandbox, ticket_chats, plain_chats)
                        for bot in bots:
                            assert "Traceback" not in bot.log.read_text(errors="replace")
                    except BaseException:
                        for bot in bots:
                            print(f"---- ispbot run on port {bot.port} ----\n{bot.output()}")
                        raise
            finally:
                await database.dispose()


async def post_the_stream(telegram: Telegram, chats: list[int]) -> dict[int, list[str]]:
    """Each chat's updates, in order, each to one process or the other; some posted twice. What each chat said."""
    said: dict[int, list[str]] = {chat: [] for chat in chats}
    reposts: list[tuple[int, dict[str, Any]]] = []  # (process, update) posted again at the end

    async def one_chat(chat: int) -> None:
        choose = random.Random(chat)
        for n in range(UPDATES_PER_CHAT):
            words = f"{choose.choice(['/menu', '/idioma'])} {n}"
            update = telegram.number(tg.text_message(chat, words))
            said[chat].append(words)
            bot = choose.randrange(PROCESSES)
            roll = choose.random()
            if roll < REPOSTED / 2:  # Telegram did not see the 200 and posts it at once, maybe elsewhere
                await asyncio.gather(telegram.post(bot, update), telegram.post(choose.randrange(PROCESSES), update))
            else:
                await telegram.post(bot, update)
                if roll < REPOSTED:
                    reposts.append((choose.randrange(PROCESSES), update))
            await asyncio.sleep(0)  # let the other chats' posts interleave

    await asyncio.gather(*(one_chat(chat) for chat in chats))
    await asyncio.gather(*(telegram.post(bot, update) for bot, update in reposts))  # late redeliveries
    return said


async def check_the_stream(
    telegram: Telegram, api: FakeBotApi, sandbox: Sandbox, ticket_chats: list[int], plain_chats: list[int],
) -> None:
    database = telegram.database
    chats = ticket_chats + plain_chats
    answered_before = {chat: len(api.sent(chat)) for chat in chats}
    for chat in chats[::3]:  # flood control holds back one answer of these chats in the process that sends it
        api.fail_next("sendMessage", 429, retry_after=2, chat_id=chat)
    first_id = telegram.next_id + 1
    said = await post_the_stream(telegram, chats)
    stream = range(first_id, telegram.next_id + 1)
    assert len(stream) == len(chats) * UPDATES_PER_CHAT
    assert sum(1 for update_id in stream if telegram.posts[update_id] > 1) > len(stream) * REPOSTED / 2

    for update_id in stream:
        await telegram.handled(update_id)
    async with database.session() as session:
        rows = list((await session.execute(select(InboxRow).where(InboxRow.update_id.in_(stream)))).scalars())
    assert sorted(row.update_id for row in rows) == list(stream)
    assert all(row.state == InboxState.DONE.value and row.attempts == 1 for row in rows)

    # Both processes did part of the work, and together each update once (an update taken from a
    # process whose lease ran out would count as "taken", not "answered").
    answered = [await answered_by(telegram.http, bot) for bot in telegram.bots]
    assert all(count > 0 for count in answered)
    assert sum(answered) == len(telegram.posts)

    # One answer per update, in the order of the chat's updates (answers waiting behind the chat's
    # 1-a-second limit go joined in one message).
    answer = re.compile(f"{re.escape(MENU)}|{re.escape(LANGUAGE)}")
    for chat in chats:
        sent = api.sent(chat)[answered_before[chat]:]
        answers = [found for message in sent for found in answer.findall(message.text or "")]
        expected = [LANGUAGE if words.startswith("/idioma") else MENU for words in said[chat]]
        assert answers == expected

    # Every mirrored message reached its ticket once and in order (the subscriber's words, then the
    # bot's answer), whichever process delivered it; the stream's part in the order of the chat's updates.
    async def outbox() -> list[OutboxRow]:
        async with database.session() as session:
            return list((await session.execute(select(OutboxRow).order_by(OutboxRow.id))).scalars())

    async with asyncio.timeout(WITHIN):
        while True:
            entries = await outbox()
            if all(row.state == OutboxState.SENT.value for row in entries):
                break
            await asyncio.sleep(0.1)
    tickets = sorted({row.ticket_id for row in entries})
    assert len(tickets) == len(ticket_chats)
    for ticket in tickets:
        queued = [(row.origin, row.content) for row in entries if row.ticket_id == ticket]
        assert [(m["origin"], m["content"]) for m in sandbox.chat_messages(ticket)] == queued
        customer_said = [content for origin, content in queued if origin == "C"]
        assert customer_said[-UPDATES_PER_CHAT:] in [said[chat] for chat in ticket_chats]
