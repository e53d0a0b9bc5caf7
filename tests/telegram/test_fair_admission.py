"""A few chats flooding the bot (hundreds of messages each) cannot make everyone else wait: each
chat may have ``ISPBOT_CHAT_BACKLOG`` updates waiting, what it sends beyond is set aside with one
"slow down", so polling never reaches its global pause and the others are answered as usual.
(Telegram's send limits are lifted here, as the fake Bot API's are.)"""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest
from bot.channels.telegram.intake import DEFAULT_CHAT_BACKLOG, DROPPED
from bot.sandbox import Sandbox
from bot.store import Database, InboxState
from bot.store.models import InboxRow
from sqlalchemy import func, select

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, running_bot

HELP = "Eu sou o assistente virtual do seu provedor"
SLOW_DOWN = "muitas mensagens seguidas"
BYSTANDERS = list(range(8501, 8521))
SAID = 5  # messages from each bystander, each after the answer to the one before
P99_BOUND = 2.0  # seconds
BURST_EVERY = 0.2  # seconds between a flood's ten bursts


async def flood(bot: RunningBot, chats: list[int], each: int) -> None:
    """The flooders' messages in ten bursts over two seconds, while the bystanders talk."""
    for _ in range(10):
        for chat in chats:
            for _ in range(each // 10):
                bot.api.push_update(tg.text_message(chat, "/ajuda"))
        await asyncio.sleep(BURST_EVERY)


async def talk(bot: RunningBot, chat: int, waits: list[float]) -> None:
    await asyncio.sleep((chat % 10) * 0.05)
    for _ in range(SAID):
        before = len(bot.api.sent(chat))
        said = time.monotonic()
        bot.api.push_update(tg.text_message(chat, "/ajuda"))
        sent = await bot.api.wait_for_sent(chat, before + 1, within=60)
        waits.append(time.monotonic() - said)
        assert HELP in (sent[before].text or "")
        await asyncio.sleep(0.2)


# Three chats of 500 (1,500 updates) or ten of 200 (2,000): either used to fill the inbox past polling's
# global pause (1,000 waiting), and everybody else waited minutes behind the flood.
@pytest.mark.parametrize(("flooders", "each"), [(3, 500), (10, 200)])
async def test_bystanders_are_answered_promptly_while_chats_flood(
    database: Database, sandbox: Sandbox, flooders: int, each: int,
) -> None:
    flooding = [8401 + n for n in range(flooders)]
    waits: list[float] = []
    async with running_bot(database, sandbox, concurrency=12) as bot:
        await asyncio.gather(flood(bot, flooding, each), *(talk(bot, chat, waits) for chat in BYSTANDERS))
        p99 = statistics.quantiles(waits, n=100)[98]
        print(f"{flooders} flooding chats: bystanders' answer p50 {statistics.median(waits):.3f}s, p99 {p99:.3f}s")
        assert len(waits) == len(BYSTANDERS) * SAID
        assert p99 < P99_BOUND

        for chat in flooding:  # told once to slow down, and answered for what was kept
            await bot.api.wait_until(lambda c=chat: any(SLOW_DOWN in (s.text or "") for s in bot.api.sent(c)), 30)
            told = [s for s in bot.api.sent(chat) if SLOW_DOWN in (s.text or "")]
            assert len(told) == 1
            assert sum(HELP in (s.text or "") for s in bot.api.sent(chat)) >= DEFAULT_CHAT_BACKLOG
        async with database.session() as session:
            dropped = dict((await session.execute(
                select(InboxRow.chat_id, func.count()).where(
                    InboxRow.state == InboxState.FAILED.value, InboxRow.last_error == DROPPED,
                ).group_by(InboxRow.chat_id)
            )).tuples().all())
        assert sorted(dropped) == flooding  # set aside (and recorded) only the flooders' extra messages
