"""Webhook mode end to end: Telegram posts updates to ``bot.web``, which stores each one before it
answers 200, and the processor answers the subscriber through the fake Bot API."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from bot.sandbox import Sandbox
from bot.store import Database, InboxState
from bot.store.models import InboxRow
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import WEBHOOK_SECRET, RunningBot, running_bot

WELCOME = "titular do cadastro"  # what /start says to someone not linked yet


def numbered(update_id: int, update: dict[str, Any]) -> dict[str, Any]:
    """An update as Telegram posts it: with its ``update_id``."""
    return {"update_id": update_id, **update}


async def inbox_row(database: Database, update_id: int) -> InboxRow | None:
    async with database.session() as session:
        return await session.get(InboxRow, update_id, populate_existing=True)


async def inbox_size(database: Database) -> int:
    async with database.session() as session:
        return int((await session.execute(select(func.count()).select_from(InboxRow))).scalar_one())


@contextlib.asynccontextmanager
async def webhook_bot(database: Database, sandbox: Sandbox) -> AsyncIterator[RunningBot]:
    """``running_bot`` in webhook mode, stopped without the processor's idle second."""
    async with running_bot(database, sandbox, mode="webhook") as bot:
        try:
            yield bot
        finally:
            # The processor waits up to a second for work before it looks at ``stop``: wake it.
            bot.stop.set()
            async with asyncio.timeout(10):
                while bot.task is not None and not bot.task.done():
                    bot.processor.wake()
                    await asyncio.sleep(0.01)


@contextlib.contextmanager
def processor_paused(bot: RunningBot, monkeypatch: pytest.MonkeyPatch) -> Iterator[asyncio.Event]:
    """Hold the processor before it claims anything until the event is set (call it right after
    ``webhook_bot`` started, before any ``await``, so it has claimed nothing yet)."""
    processor = bot.processor
    gate = asyncio.Event()
    claim = processor.step

    async def gated_step() -> int:
        await gate.wait()
        return await claim()

    monkeypatch.setattr(processor, "step", gated_step)
    try:
        yield gate
    finally:
        gate.set()  # the bot must be able to stop


@contextlib.asynccontextmanager
async def unreachable(database: Database) -> AsyncIterator[None]:
    """The database server stops answering: every new connection is refused, as after a crash of
    the server or a network split (the driver's own errors, nothing faked above it)."""
    if database.is_sqlite:
        url = "sqlite+aiosqlite:////nonexistent-ispbot-directory/ispbot.sqlite3"
    else:
        url = "postgresql+asyncpg://postgres@127.0.0.1:1/ispbot"  # nothing listens on port 1
    broken = create_async_engine(url)
    sessions = database.sessions
    database.sessions = async_sessionmaker(broken, expire_on_commit=False)
    try:
        yield
    finally:
        database.sessions = sessions
        await broken.dispose()


async def test_telegram_is_given_the_secret_and_a_post_without_it_is_refused_and_not_stored(
    database: Database, sandbox: Sandbox,
) -> None:
    async with webhook_bot(database, sandbox) as bot:
        assert bot.web is not None
        await bot.api.wait_until(lambda: bot.api.webhook_url != "")
        path = bot.settings.webhook_path
        assert bot.api.webhook_url == f"https://bot.example.net{path}"
        assert path.startswith("/telegram/") and len(path) > len("/telegram/") + 16
        assert WEBHOOK_SECRET not in bot.api.webhook_url  # the path does not give the secret away
        assert bot.api.webhook_secret == WEBHOOK_SECRET

        update = numbered(100, tg.start(7101))
        no_header = await bot.web.post(bot.settings.webhook_path, json=update)
        assert no_header.status_code == 403
        for wrong in ["", "nope", WEBHOOK_SECRET[:-1], WEBHOOK_SECRET + "x", WEBHOOK_SECRET.upper()]:
            response = await bot.post(update, secret=wrong)
            assert response.status_code == 403, wrong
        # The right secret on another path is nobody's webhook.
        elsewhere = await bot.web.post(
            "/telegram/0123456789abcdef0123456789abcdef", json=update,
            headers={"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET},
        )
        assert elsewhere.status_code == 404
        assert await inbox_size(database) == 0
        # A right one afterwards goes through: the refusals left no trace that blocks it.
        assert (await bot.post(update)).status_code == 200
        await bot.handled(100)
        assert WELCOME in (bot.api.sent(7101)[0].text or "")
        assert len(bot.api.sent(7101)) == 1


async def test_an_update_is_stored_before_the_200_and_then_answered(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with webhook_bot(database, sandbox) as bot:
        with processor_paused(bot, monkeypatch) as processing:
            response = await bot.post(numbered(200, tg.start(7201)))
            assert response.status_code == 200
            # The 200 means "kept": the update is in the inbox though nobody has processed it yet.
            row = await inbox_row(database, 200)
            assert row is not None
            assert row.state == InboxState.PENDING.value and row.chat_id == 7201
            assert row.payload["message"]["text"] == "/start"
            assert bot.api.sent(7201) == []
            processing.set()
            await bot.handled(200)
        (answer,) = bot.api.sent(7201)
        assert WELCOME in (answer.text or "")
        assert answer.parse_mode == "HTML"


async def test_an_update_posted_again_is_answered_once(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with webhook_bot(database, sandbox) as bot:
        with processor_paused(bot, monkeypatch) as processing:
            # Chat 7301 is the control: /start, then "oi", each posted once.
            assert (await bot.post(numbered(300, tg.start(7301)))).status_code == 200
            # Chat 7302: the same /start posted twice before it is processed (Telegram missed the 200)...
            start = numbered(301, tg.start(7302))
            assert (await bot.post(start)).status_code == 200
            assert (await bot.post(start)).status_code == 200
            processing.set()
            await bot.handled(300)
            await bot.handled(301)
        # ... and once more after it was answered.
        assert (await bot.post(start)).status_code == 200
        assert (await bot.post(numbered(302, tg.text_message(7301, "oi")))).status_code == 200
        assert (await bot.post(numbered(303, tg.text_message(7302, "oi")))).status_code == 200
        # A chat's updates are processed in order: once "oi" is answered, a duplicate /start before
        # it would have been too.
        await bot.handled(302)
        await bot.handled(303)
        # The same answers, each chat's contact with its own protocol number.
        control = [_protocol_aside(sent.text) for sent in bot.api.sent(7301)]
        assert [_protocol_aside(sent.text) for sent in bot.api.sent(7302)] == control
        assert WELCOME in (control[0] or "")


async def test_a_body_that_is_not_a_json_object_is_refused_and_one_that_is_no_update_is_dropped(
    database: Database, sandbox: Sandbox,
) -> None:
    deep = b'{"update_id": 9, "message": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"  # past the parser's recursion
    async with webhook_bot(database, sandbox) as bot:
        assert bot.web is not None
        headers = {"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET, "Content-Type": "application/json"}
        for body in [b"", b"{not json", b'{"update_id": 1', b"\xff\xfe\x00garbage", b'{"a": "\xc3("}', deep,
                     b"[]", b'"text"', b"7", b"null"]:
            response = await bot.web.post(bot.settings.webhook_path, content=body, headers=headers)
            assert response.status_code == 400, body[:40]
        # An object without an update_id cannot be deduplicated: accepted (so Telegram stops sending it), not kept.
        for body in [b'{"message": {"text": "oi"}}', b'{"update_id": "7"}']:
            response = await bot.web.post(bot.settings.webhook_path, content=body, headers=headers)
            assert response.status_code == 200, body
        assert await inbox_size(database) == 0


async def test_while_the_database_is_down_the_webhook_answers_503_and_the_redelivery_is_answered(
    database: Database, sandbox: Sandbox,
) -> None:
    async with webhook_bot(database, sandbox) as bot:
        update = numbered(400, tg.start(7401))
        async with unreachable(database):
            response = await bot.post(update)
            assert response.status_code == 503  # Telegram keeps the update and posts it again
        assert await inbox_row(database, 400) is None
        assert bot.api.sent(7401) == []
        # Telegram's redelivery, once the database is back.
        assert (await bot.post(update)).status_code == 200
        await bot.handled(400)
        (answer,) = bot.api.sent(7401)
        assert WELCOME in (answer.text or "")


def _protocol_aside(text: str | None) -> str:
    return re.sub(r"<b>\d{14}</b>", "<b>PROTOCOL</b>", text or "")
