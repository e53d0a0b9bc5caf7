"""Telegram's flood limits, in the fake Bot API (switched on with ``limits=``) and held by the
sender against it over real HTTP: the bot paces itself, so it earns no 429."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from bot.channels.telegram import raw
from bot.channels.telegram.render import ApiCall
from bot.channels.telegram.sender import Rate, Sender
from bot.sandbox import Sandbox
from bot.store import Database
from telegram.error import RetryAfter

import telegram
from tests.telegram.fake_bot_api import FakeBotApi, TelegramLimits
from tests.telegram.harness import running_bot

STEP = 5.0


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(max_poll_timeout=0.5, limits=TelegramLimits()) as server:
        yield server


@pytest.fixture
async def bot(api: FakeBotApi) -> AsyncIterator[telegram.Bot]:
    async with telegram.Bot(api.token, base_url=api.base_url + "/bot") as client:
        yield client


async def send(bot: telegram.Bot, chat_id: int, text: str, **extra: Any) -> Any:
    return await asyncio.wait_for(raw.call(bot, "sendMessage", {"chat_id": chat_id, "text": text, **extra}), STEP)


async def test_off_by_default_a_burst_to_one_chat_is_accepted() -> None:
    async with FakeBotApi() as api, telegram.Bot(api.token, base_url=api.base_url + "/bot") as bot:
        for n in range(5):
            await send(bot, 42, str(n))
        assert len(api.sent(42)) == 5 and not api.too_many_requests


async def test_a_second_message_to_a_chat_within_a_second_gets_429_with_retry_after(
    api: FakeBotApi, bot: telegram.Bot,
) -> None:
    await send(bot, 42, "one")
    with pytest.raises(RetryAfter) as refused:
        await send(bot, 42, "two")
    assert raw.retry_after_seconds(refused.value) == 1
    await send(bot, 43, "another chat is not held up")
    assert [sent.text for sent in api.sent(42)] == ["one"]
    assert api.too_many_requests == {"chat": 1}


async def test_the_31st_message_within_a_second_gets_429_unless_it_is_a_paid_broadcast(
    api: FakeBotApi, bot: telegram.Bot,
) -> None:
    for chat_id in range(1, 31):
        await send(bot, chat_id, "oi")
    with pytest.raises(RetryAfter):
        await send(bot, 31, "oi")
    await send(bot, 32, "paid", allow_paid_broadcast=True)  # up to 1,000 a second, for a fee
    assert api.too_many_requests == {"overall": 1} and len(api.outgoing()) == 31


async def test_a_group_gets_20_a_minute() -> None:
    limits = TelegramLimits(private_chat=(100, 1.0), overall=(100, 1.0))
    async with FakeBotApi(limits=limits) as group_api, telegram.Bot(
        group_api.token, base_url=group_api.base_url + "/bot",
    ) as group_bot:
        for n in range(20):
            await send(group_bot, -100123, str(n))
        with pytest.raises(RetryAfter) as refused:
            await send(group_bot, -100123, "21st")
        assert 55 <= raw.retry_after_seconds(refused.value) <= 60


async def test_the_sender_keeps_within_the_limits_and_earns_no_429(api: FakeBotApi, bot: telegram.Bot) -> None:
    """Telegram's real limits: 45 chats (more than a second's worth) and three messages for one chat,
    each in a turn of its own; everything arrives, in order, without a single 429."""

    async def call(method: str, params: dict[str, Any]) -> Any:
        return await raw.call(bot, method, params)

    sender = Sender(call, overall=Rate(30, 1.0), private_chat=Rate(1, 1.0))
    futures = [
        await sender.submit(ApiCall("sendMessage", {"chat_id": chat_id, "text": f"oi {chat_id}"}))
        for chat_id in range(1, 46)
    ]
    await asyncio.wait_for(futures[6], STEP)  # chat 7 just got a message: its next ones must wait a second
    for n in range(3):
        await sender.submit_all([ApiCall("sendMessage", {"chat_id": 7, "text": f"turn {n}"})])
    await asyncio.wait_for(sender.aclose(), 20)

    assert not api.too_many_requests and sender.stats.retried == 0
    assert all(len(api.sent(chat_id)) >= 1 for chat_id in range(1, 46))
    # Chat 7's later turns waited for its limit anyway, so they went as one message, in order.
    assert [sent.text for sent in api.sent(7)] == ["oi 7", "turn 0\n\nturn 1\n\nturn 2"]


@pytest.mark.parametrize("paid", [False, True])
async def test_only_the_notice_that_the_outage_ended_goes_as_a_paid_broadcast(
    database: Database, sandbox: Sandbox, paid: bool,
) -> None:
    """ISPBOT_PAID_BROADCAST: the bot's own notices carry allow_paid_broadcast, replies never do."""
    async with running_bot(database, sandbox, paid_broadcast=paid) as bot:
        maria = await bot.maria(7301)
        await maria.say("sem internet")
        await maria.tap("Me avise quando voltar")
        event = sandbox.store.find("failover", Status="O")
        assert event is not None
        event.update(Status="C", UpTime="2025-03-10 11:15:00")
        before = len(bot.api.sent(7301))
        await bot.processor.send_notices(await bot.app.notifier.check())
        [*replies, notice] = await bot.api.wait_for_sent(7301, count=before + 1, within=STEP)
    assert all("allow_paid_broadcast" not in sent.params for sent in replies)
    assert notice.params.get("allow_paid_broadcast") is (True if paid else None)
