"""``POST /chatwoot/webhook`` on the bot's web server, posted to by the fake Chatwoot: only genuine,
fresh posts are kept, once, in the subscriber's chat, before the 200; private notes and the bot's own
echoes are never kept."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, cast

import pytest
from bot.desks.chatwoot.client import ChatwootClient
from bot.desks.chatwoot.intake import PATH, REPLIES, STATUSES, ChatwootIntake, from_payload, web_hook
from bot.desks.chatwoot.webhook import CHAT_ATTRIBUTE, Command, Reply, StatusChange, read, refusal, signature
from bot.store import Database, Inbox, InboxItem
from bot.web import Health, create_web_app, serve
from flows.coordinator import IspCoordinator

from tests.chatwoot.conftest import settings_for
from tests.chatwoot.fake_chatwoot import AGENT_ID, WEBHOOK_SECRET, FakeChatwoot

CHAT = 4242


@dataclass
class Bot:
    database: Database
    inbox: Inbox
    stored: list[int]

    async def kept(self) -> list[InboxItem]:
        async with self.database.transaction() as session:
            return await self.inbox.claim_pending(session, 100)


@pytest.fixture
async def bot(database: Database, chatwoot: FakeChatwoot, free_tcp_port: int) -> AsyncIterator[Bot]:
    inbox, woken = Inbox(), []
    settings = settings_for(chatwoot)
    intake = ChatwootIntake(database, inbox, cast(int, settings.inbox_id), lambda: woken.append(1))
    app = create_web_app(Health(database, cast(IspCoordinator, None)), hooks=[web_hook(settings, intake)])
    stop = asyncio.Event()
    server = asyncio.create_task(serve(app, "127.0.0.1", free_tcp_port, stop))
    chatwoot.webhook_url = f"http://127.0.0.1:{free_tcp_port}{PATH}"
    for _ in range(400):
        if (await chatwoot.post_webhook({"event": "ping"})) == 200:
            break
        await asyncio.sleep(0.01)
    chatwoot.deliveries.clear()
    try:
        yield Bot(database, inbox, woken)
    finally:
        stop.set()
        await server


async def conversation(chatwoot: FakeChatwoot, chat: int = CHAT) -> int:
    client = ChatwootClient(settings_for(chatwoot))
    try:
        contact = await client.contact(f"ispbot:telegram:{chat}", "Maria", {})
        made = await client.open_conversation(contact, status="pending", attributes={CHAT_ATTRIBUTE: chat})
        await client.post(made.id, "oi", key="a", incoming=True)  # echoed back: nothing for the bot
        await client.post(made.id, "Olá! Sou o assistente.", key="b")  # likewise
    finally:
        await client.aclose()
    await chatwoot.settle()
    return made.id


async def test_an_agents_reply_is_kept_once_in_the_subscribers_chat(chatwoot: FakeChatwoot, bot: Bot) -> None:
    conversation_id = await conversation(chatwoot)
    message = await chatwoot.agent_reply(conversation_id, "Olá, sou a Ana. Já vejo sua fatura.")
    again = next(d for d in chatwoot.deliveries if d.payload.get("id") == message["id"])
    assert await chatwoot.post_webhook(again.payload) == 200  # a retry: a new delivery, the same message
    assert {d.status for d in chatwoot.deliveries} == {200}
    kept = await bot.kept()
    assert [(item.update_id, item.chat_id) for item in kept] == [(REPLIES + message["id"], CHAT)]
    assert from_payload(kept[0].payload) == Reply(CHAT, conversation_id, message["id"],
                                                  "Olá, sou a Ana. Já vejo sua fatura.", "Ana", AGENT_ID)
    assert bot.stored == [1]  # the processor woken once


async def test_private_notes_and_the_bots_own_posts_are_never_kept(chatwoot: FakeChatwoot, bot: Bot) -> None:
    conversation_id = await conversation(chatwoot)
    await chatwoot.agent_reply(conversation_id, "cliente já ligou ontem", private=True)
    assert [d.event for d in chatwoot.deliveries] == ["message_created"] * 3
    assert {d.status for d in chatwoot.deliveries} == {200}
    assert await bot.kept() == []


async def test_resolving_is_kept_as_a_status_change(chatwoot: FakeChatwoot, bot: Bot) -> None:
    conversation_id = await conversation(chatwoot)
    await chatwoot.resolve(conversation_id)
    kept = await bot.kept()
    assert len(kept) == 1 and kept[0].update_id > STATUSES and kept[0].chat_id == CHAT
    assert from_payload(kept[0].payload) == StatusChange(CHAT, conversation_id, "resolved")


def event(conversation_id: int, content: str = "Olá") -> dict[str, Any]:
    return {"event": "message_created", "id": 99, "content": content, "message_type": "outgoing", "private": False,
            "sender": {"id": AGENT_ID, "name": "Ana", "type": "user"},
            "conversation": {"id": conversation_id, "inbox_id": 7, "custom_attributes": {CHAT_ATTRIBUTE: CHAT}}}


@pytest.mark.parametrize("forgery", ["another secret", "stale", "from the future", "unsigned", "body changed"])
async def test_a_forged_or_stale_post_is_refused_and_nothing_kept(
    chatwoot: FakeChatwoot, bot: Bot, forgery: str,
) -> None:
    body = json.dumps(event(1)).encode()
    now = int(time.time())
    headers = {
        "another secret": chatwoot.signed(body, secret="guessed"),
        "stale": chatwoot.signed(body, timestamp=now - 3600),
        "from the future": chatwoot.signed(body, timestamp=now + 3600),
        "unsigned": {"Content-Type": "application/json"},
        "body changed": chatwoot.signed(json.dumps(event(1, "Olá!")).encode()),
    }[forgery]
    assert await chatwoot.post_webhook(event(1), headers) == 401
    assert await bot.kept() == []


async def test_a_fresh_signed_post_is_kept(chatwoot: FakeChatwoot, bot: Bot) -> None:
    body = json.dumps(event(1)).encode()
    assert await chatwoot.post_webhook(event(1), chatwoot.signed(body, timestamp=int(time.time()) - 60)) == 200
    assert [item.update_id for item in await bot.kept()] == [REPLIES + 99]


async def test_a_database_that_cannot_keep_it_answers_503(
    chatwoot: FakeChatwoot, bot: Bot, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def down(*_: object, **__: object) -> bool:
        raise ConnectionRefusedError("the database is down")

    monkeypatch.setattr(bot.inbox, "store", down)
    assert await chatwoot.post_webhook(event(1)) == 503  # Chatwoot posts it again later
    monkeypatch.undo()
    assert await chatwoot.post_webhook(event(1)) == 200
    assert [item.update_id for item in await bot.kept()] == [REPLIES + 99]


def test_the_signature_is_chatwoots() -> None:
    """HMAC-SHA256 of "{timestamp}.{body}" with the secret, hex, after "sha256=" (Chatwoot PR #13573)."""
    body = b'{"event":"message_created"}'
    # printf '1700000000.{"event":"message_created"}' | openssl dgst -sha256 -hmac secret
    expected = "sha256=4fbf414139098588cc31e819ccebf960699d147368b51572e7657c1332d9c962"
    assert signature("secret", "1700000000", body) == expected
    headers = {"x-chatwoot-signature": signature(WEBHOOK_SECRET, "1700000000", body),
               "x-chatwoot-timestamp": "1700000000"}
    assert refusal(headers, body, WEBHOOK_SECRET, now=1700000100, tolerance=300) is None
    assert refusal(headers, body, WEBHOOK_SECRET, now=1700000400, tolerance=300) is not None
    assert refusal({**headers, "x-chatwoot-timestamp": "17e8"}, body, WEBHOOK_SECRET, now=0, tolerance=300)


def test_what_the_bot_reads_in_a_payload() -> None:
    """An agent's attachment travels by its URL; a note is a command only when it names one; an agent
    bot's message, another inbox's, and a conversation the bot did not make are nothing for the bot."""
    photo = {**event(5, ""), "attachments": [{"file_type": "image", "data_url": "https://chat.example.net/x.jpg"}]}
    assert read(photo, 7) == Reply(CHAT, 5, 99, "", "Ana", AGENT_ID, "photo", "https://chat.example.net/x.jpg")
    note = {**event(5, "/status on_hold"), "private": True}
    assert read(note, 7) == Command(CHAT, 5, 99, "status", "on_hold", "Ana", AGENT_ID)
    assert read({**event(5, "/statusx"), "private": True}, 7) is None
    assert read({**event(5, "ligar amanhã"), "private": True}, 7) is None
    assert read({**event(5), "sender": {"id": 3, "name": "Captain", "type": "agent_bot"}}, 7) is None
    assert read(event(5), 8) is None
    assert read({**event(5), "conversation": {"id": 5, "inbox_id": 7, "custom_attributes": {}}}, 7) is None
    assert read({**event(5), "message_type": "incoming"}, 7) is None
    assert read({**event(5), "source_id": "ispbot:abc"}, 7) is None
