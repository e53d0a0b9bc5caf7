"""What becomes of an answer, whatever the Bot API (or a proxy in front of it) answers: the table.

The whole bot, on each database, answers three people while every ``sendMessage`` meets one odd
answer. Only Telegram's refusal of the message itself is final: the answer is a dead letter with
Telegram's words, and its update is finished (nothing lost, nothing "delivered"). Everything else
is transient: while it lasts no answer counts as delivered and none is a dead letter; once it ends
each person gets the answer once. Each failure is one WARNING line naming the method, the chat's
reference and the kind of failure, with no traceback anywhere in the log.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import pytest
from bot.channels.telegram import raw
from bot.channels.telegram.channel import TelegramChannel
from bot.logs import chat_ref
from bot.sandbox import Sandbox
from bot.store.dead_letters import DeadLetters
from telegram.error import BadRequest, NetworkError

from tests.mirror.conftest import until
from tests.store.dbtools import ScratchDatabase
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, fast_sender_limits, running_bot
from tests.telegram.odd_proxy import ODD, Odd, OddProxy

HELP = "Eu sou o assistente virtual do seu provedor"
CHATS = (8101, 8102, 8103)
DELIVERED, DEAD_LETTER = "delivered once it ends", "a dead letter"


@dataclass(frozen=True)
class Case:
    odd: str
    fate: str
    said: str  # in the warning, and in the dead letter (python-telegram-bot capitalizes Telegram's words)


TABLE = [
    Case("refused", DELIVERED, "connection"),  # refused, or "lost" on a connection kept open from before
    Case("reset", DELIVERED, "connection lost"),
    Case("timeout", DELIVERED, "timed out"),
    Case("429 retry_after", DELIVERED, "flood control"),
    Case("500 page", DELIVERED, "Internal Server Error (500)"),
    Case("502 page", DELIVERED, "Bad Gateway (502)"),
    Case("503 page", DELIVERED, "Service Unavailable (503)"),
    Case("404", DELIVERED, "Not Found"),
    Case("html 200", DELIVERED, "not the Bot API's JSON"),
    Case("truncated json 200", DELIVERED, "not the Bot API's JSON"),
    Case("ok without a result", DELIVERED, "not the Bot API's JSON"),
    Case("chat not found", DEAD_LETTER, "BadRequest: chat not found"),
    Case("bot blocked", DEAD_LETTER, "Forbidden: bot was blocked by the user"),
    Case("message too long", DEAD_LETTER, "BadRequest: message is too long"),
]


async def ask_for_help(bot: RunningBot) -> list[int]:
    ids = [8100 + n for n in range(len(CHATS))]
    for update_id, chat_id in zip(ids, CHATS, strict=True):
        assert (await bot.post({"update_id": update_id, **tg.text_message(chat_id, "/ajuda")})).status_code == 200
    return ids


async def until_tried(bot: RunningBot, ids: list[int], proxy: OddProxy, odd: Odd, times: int) -> None:
    """Until every chat's answer met the odd answer more than once (the port being closed: every update
    answered, then a while of refused tries)."""
    if odd.name == Odd.refused:
        async def answered() -> bool:
            rows = [await bot.inbox_row(update_id) for update_id in ids]
            return all(row is not None and row.answer is not None for row in rows)

        await until(answered, tries=400, pause=0.05)
        await asyncio.sleep(1.5)  # nothing to await: the refused connections leave no trace to wait for
        return
    await proxy.until_answered_oddly("sendMessage", times, within=20)  # a timeout takes the client's 5 s each


async def dead_letters(database: ScratchDatabase) -> list[tuple[int, str]]:
    async with database.session() as session:
        return sorted((letter.chat_id, letter.error.lower()) for letter in await DeadLetters().all(session))


@pytest.mark.parametrize("case", TABLE, ids=[case.odd for case in TABLE])
async def test_an_answer_is_delivered_or_kept_whatever_the_bot_api_answers(
    database: ScratchDatabase, sandbox: Sandbox, case: Case, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    odd = ODD[case.odd]
    limits: dict[str, Any] = {**fast_sender_limits(), "network_backoff_cap": 0.5}
    async with (
        tg.FakeBotApi(max_poll_timeout=0.25) as api, OddProxy(api.base_url) as proxy,
        running_bot(database, sandbox, mode="webhook", api=api, api_url=proxy.base_url, sender_limits=limits) as bot,
    ):
        await api.wait_until(lambda: bool(api.webhook_url))  # started: only the answers meet the odd
        async with proxy.answering(odd, paths=("/sendMessage",)):
            ids = await ask_for_help(bot)
            if case.fate == DELIVERED:
                await until_tried(bot, ids, proxy, odd, 2 * len(CHATS))
                for update_id in ids:  # answered, and its answer still kept for sending
                    row = await bot.inbox_row(update_id)
                    assert row is not None and row.answer is not None
                assert await dead_letters(database) == []
            else:
                await bot.handled_all(ids, within=10)
        if case.fate == DELIVERED:
            await bot.handled_all(ids, within=20)
        for chat in CHATS:
            helped = [HELP in (sent.text or "") for sent in api.sent(chat)]
            assert helped == ([True] if case.fate == DELIVERED else [])
        kept = await dead_letters(database)
        assert kept == ([] if case.fate == DELIVERED else [(chat, case.said.lower()) for chat in CHATS]), kept

    for chat in CHATS:
        said = [r for r in caplog.records if r.levelno >= logging.WARNING and chat_ref(chat) in r.getMessage()]
        assert len(said) == 1, [r.getMessage() for r in said]
        assert said[0].levelno == logging.WARNING
        assert "sendMessage" in said[0].getMessage() and case.said.lower() in said[0].getMessage().lower()
    assert [r.getMessage() for r in caplog.records if r.exc_info or r.exc_text] == []
    assert "<html" not in caplog.text.lower()



async def test_a_connection_lost_as_the_bot_starts_is_tried_again_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    # A keep-alive connection the Bot API closed just as the bot reused it for setWebhook: once.
    tries: list[str] = []

    async def call(_bot: object, method: str, _params: dict[str, Any], **_: object) -> bool:
        tries.append(method)
        if len(tries) == 1:
            raise NetworkError("connection lost (ClientOSError)")
        return True

    monkeypatch.setattr(raw, "call", call)
    monkeypatch.setattr(asyncio, "sleep", _no_wait)
    channel = TelegramChannel.__new__(TelegramChannel)
    channel.bot = None  # type: ignore[assignment]
    assert await channel._start_call("setWebhook", {}) is True
    assert tries == ["setWebhook", "setWebhook"]
    tries.clear()

    async def refused(_bot: object, method: str, _params: dict[str, Any], **_: object) -> bool:
        tries.append(method)
        raise BadRequest("Bad webhook: HTTPS url must be provided for webhook")

    monkeypatch.setattr(raw, "call", refused)
    with pytest.raises(BadRequest):
        await channel._start_call("setWebhook", {})
    assert tries == ["setWebhook"]  # what Telegram answers is final


async def _no_wait(_seconds: float) -> None:
    return None
