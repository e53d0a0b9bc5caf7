"""The WhatsApp webhook: Meta's verification, signatures over the raw body, the inbox before the 200,
one answer per ``wamid`` however often Meta posts it, and the statuses of what the bot sent."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest
from bot.sandbox import Sandbox
from bot.store import Database
from bot.store.channels import WHATSAPP, ChannelIds
from bot.store.dead_letters import DeadLetters
from bot.store.models import ChannelUpdateRow, InboxRow
from sqlalchemy import func, select

from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.harness import MARIA_WA_ID, running_whatsapp

pytestmark = pytest.mark.asyncio


async def _count(database: Database, model: type) -> int:
    async with database.session() as session:
        return int((await session.execute(select(func.count()).select_from(model))).scalar_one())


async def test_meta_verifies_the_webhook_with_the_verify_token(database: Database, sandbox: Sandbox) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        assert bot.web is not None
        params = {"hub.mode": "subscribe", "hub.verify_token": wa.VERIFY_TOKEN, "hub.challenge": "1158201444"}
        answer = await bot.web.get("/whatsapp/webhook", params=params)
        assert (answer.status_code, answer.text) == (200, "1158201444")
        wrong = await bot.web.get("/whatsapp/webhook", params={**params, "hub.verify_token": "guess"})
        assert wrong.status_code == 403 and "1158201444" not in wrong.text


@pytest.mark.parametrize("signature", ["", "sha256=" + "0" * 64, wa.sign(b"another body"),
                                       wa.sign(b"x", "another-app-secret")])
async def test_a_post_without_the_app_secrets_signature_is_refused_and_nothing_is_stored(
    database: Database, sandbox: Sandbox, signature: str, caplog: pytest.LogCaptureFixture,
) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        answer = await bot.post(wa.post(wa.text(MARIA_WA_ID, "oi")), signature=signature)
        assert answer.status_code == 403
        await asyncio.sleep(0.1)
        assert await _count(database, InboxRow) == 0
        assert await _count(database, ChannelUpdateRow) == 0
        assert bot.api.sent == []
    # The line says what it saw: no signature, or one that is not the app secret's (a wrong secret).
    [line] = [r.getMessage() for r in caplog.records if r.getMessage().startswith("whatsapp webhook: a post")]
    if signature:
        assert "does not match" in line and "ISPBOT_WHATSAPP_APP_SECRET" in line
    else:
        assert "no X-Hub-Signature-256" in line


async def test_a_message_posted_again_is_answered_once(database: Database, sandbox: Sandbox) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        message = wa.text(MARIA_WA_ID, "oi")
        for _ in range(3):  # Meta retries until it sees a 200, and sometimes after
            assert (await bot.post(wa.post(message))).status_code == 200
        await bot.handled(message["id"])
        await asyncio.sleep(0.2)
        assert len(bot.api.to(MARIA_WA_ID)) == 1
        assert bot.api.read == [message["id"]]  # marked read once, with its answer
        assert await _count(database, InboxRow) == 1


async def test_posts_arriving_together_are_each_kept_once_and_each_answered_once(
    database: Database, sandbox: Sandbox,
) -> None:
    """In a surge the posts that wait while others are stored go in together; a message Meta posts
    again among them still counts once, and a post for another number stores nothing."""
    async with running_whatsapp(database, sandbox) as bot:
        bot.runtime.processor.wake = lambda: None  # type: ignore[method-assign]  # nothing processes them yet
        messages = [wa.text(f"55119{n:08d}", "sem internet") for n in range(30)]
        bodies = [wa.post(message) for message in messages]
        bodies += [wa.post(messages[3]), wa.post(*messages[5:8]), wa.post(wa.text(MARIA_WA_ID, "oi"),
                                                                           phone_number_id="999999999")]
        answers = await asyncio.gather(*(bot.post(body) for body in bodies))
        assert [answer.status_code for answer in answers] == [200] * len(bodies)
        assert await _count(database, InboxRow) == 30
        async with database.session() as session:
            rows = (await session.execute(select(InboxRow))).scalars().all()
        assert sorted(row.payload["message"]["id"] for row in rows) == sorted(m["id"] for m in messages)


async def test_a_post_is_stored_before_it_is_acknowledged(database: Database, sandbox: Sandbox) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        bot.runtime.processor.wake = lambda: None  # type: ignore[method-assign]  # nothing processes it yet
        message = wa.text(MARIA_WA_ID, "oi")
        assert (await bot.post(wa.post(message))).status_code == 200
        async with database.session() as session:
            row = (await session.execute(select(InboxRow))).scalar_one()
        assert row.channel == WHATSAPP and row.payload["message"]["text"]["body"] == "oi"
        assert row.chat_id is not None and row.chat_id >= 1 << 53  # above every Telegram id


async def test_a_database_that_cannot_take_the_post_answers_503_so_meta_sends_it_again(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        async def down(_: object) -> int:
            raise ConnectionError("database down")

        bot.channel.store_posted = down  # type: ignore[method-assign]
        web_app = bot.runtime.web_app()  # built again: it takes the channel's store_posted when built
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=web_app), base_url="http://bot.test") as web:
            raw = wa.encoded(wa.post(wa.text(MARIA_WA_ID, "oi")))
            answer = await web.post("/whatsapp/webhook", content=raw, headers={"X-Hub-Signature-256": wa.sign(raw)})
        assert answer.status_code == 503


async def test_statuses_are_recorded_and_a_failed_one_is_a_dead_letter_with_its_reason(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        chat = bot.chat(MARIA_WA_ID)
        (answer,) = await chat.say("oi")
        for state in ("sent", "delivered", "read"):
            body = wa.post(statuses=[wa.status(answer.wamid, MARIA_WA_ID, state)])
            assert (await bot.post(body)).status_code == 200
        async with database.session() as session:
            assert await ChannelIds().status(session, WHATSAPP, answer.wamid) == ("read", None)
        lost = "wamid.OUTLOST"
        failed = wa.status(lost, MARIA_WA_ID, "failed", code=131026, title="Message undeliverable")
        assert (await bot.post(wa.post(statuses=[failed]))).status_code == 200
        async with database.session() as session:
            kept = await ChannelIds().status(session, WHATSAPP, lost)
            (letter,) = await DeadLetters().all(session)
        assert kept is not None and kept[0] == "failed" and "131026" in str(kept[1])
        assert letter.method == "whatsapp.failed" and "Message undeliverable" in letter.error
        assert letter.params == {"wamid": lost}
        assert await _count(database, InboxRow) == 1  # statuses are no updates for the engine


async def test_another_numbers_messages_are_not_this_bots(database: Database, sandbox: Sandbox) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        body = wa.post(wa.text(MARIA_WA_ID, "oi"), phone_number_id="999999999")
        assert (await bot.post(body)).status_code == 200
        assert await _count(database, InboxRow) == 0


async def test_ids_longer_than_their_columns_are_answered_200_and_kept_or_dropped_on_purpose(
    database: Database, sandbox: Sandbox, caplog: pytest.LogCaptureFixture,
) -> None:
    """PostgreSQL refuses a value longer than its column: a post carrying one must not be answered
    503 for as long as Meta retries it. A long message id is kept by its digest (answered once
    however often it comes); a sender id too long to keep, and a status of a message id the bot could
    not have sent, are dropped with one line each."""
    async with running_whatsapp(database, sandbox) as bot:
        long_id = wa.text(MARIA_WA_ID, "oi", wamid="wamid." + "A" * 300)
        long_sender = wa.text("5" * 300, "oi")
        long_status = wa.status("wamid." + "B" * 300, MARIA_WA_ID, "delivered")
        for _ in range(2):  # and again, as Meta posts what it is not sure was taken
            for body in (wa.post(long_id), wa.post(long_sender), wa.post(statuses=[long_status])):
                assert (await bot.post(body)).status_code == 200
        async with asyncio.timeout(10):
            await bot.api.wait_for_sent(MARIA_WA_ID, 1)
        await bot.channel.drain(5)
        await asyncio.sleep(0.2)
        assert len(bot.api.to(MARIA_WA_ID)) == 1  # answered once
        assert bot.api.to("5" * 300) == []
        assert await _count(database, InboxRow) == 1
        dropped = [r.getMessage() for r in caplog.records if "was dropped" in r.getMessage()]
        assert len(dropped) == 4 and "5" * 20 not in caplog.text  # one line a post, without the id


async def test_posts_refused_while_the_database_is_down_are_logged_once_for_the_outage(
    database: Database, sandbox: Sandbox, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Meta retries every post it had no 200 for: during an outage each is refused (503, kept by Meta)
    and the log says so once, then once more when a post is stored again."""
    async with running_whatsapp(database, sandbox) as bot:
        caplog.set_level(logging.INFO, logger="bot.web")
        stored = bot.channel._store

        async def down(bodies: list[dict[str, object]]) -> list[int]:
            raise ConnectionRefusedError("the database is down")

        monkeypatch.setattr(bot.channel, "_store", down)
        messages = [wa.text(MARIA_WA_ID, f"oi {n}") for n in range(10)]
        for message in messages:
            assert (await bot.post(wa.post(message))).status_code == 503
        monkeypatch.setattr(bot.channel, "_store", stored)
        assert (await bot.post(wa.post(messages[0]))).status_code == 200
        await bot.handled(messages[0]["id"])
        lines = [(r.levelno, r.getMessage()) for r in caplog.records
                 if r.name == "bot.web" and r.levelno >= logging.INFO]
        assert [level for level, _ in lines] == [logging.ERROR, logging.INFO], lines
        assert "ConnectionRefusedError" in lines[0][1] and "10 posts refused" in lines[1][1]
