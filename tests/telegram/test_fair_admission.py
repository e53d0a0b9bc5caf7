"""A few chats flooding the bot (hundreds of messages each) cannot make everyone else wait: each
chat may have ``ISPBOT_CHAT_BACKLOG`` updates waiting, what it sends beyond is set aside with one
"slow down", so polling never reaches its global pause and the others are answered as usual.
The sender keeps Telegram's real limits (a message a second per chat): a flooder's answers trickle
out, and its waiting updates with them, which is what used to fill the inbox. The bystanders' wait
is printed, not asserted (a time, on whatever machine runs it): what is asserted is its cause."""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest
from bot.channels.telegram.intake import DEFAULT_CHAT_BACKLOG, DROPPED
from bot.channels.telegram.polling import MAX_BACKLOG, Poller
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
BURST_EVERY = 0.2  # seconds between a flood's ten bursts


async def flood(bot: RunningBot, chats: list[int], each: int) -> None:
    """The flooders' messages in ten bursts over two seconds, while the bystanders talk."""
    for _ in range(10):
        for chat in chats:
            for _ in range(each // 10):
                bot.api.push_update(tg.text_message(chat, "/ajuda"))
        await asyncio.sleep(BURST_EVERY)


async def talk(bot: RunningBot, chat: int, waits: list[float]) -> None:
    """Say /ajuda a few times, each once the help came; how long each help took."""

    def helps() -> int:
        return sum(HELP in (sent.text or "") for sent in bot.api.sent(chat))

    await asyncio.sleep((chat % 10) * 0.05)
    for n in range(SAID):
        said = time.monotonic()
        bot.api.push_update(tg.text_message(chat, "/ajuda"))
        await bot.api.wait_until(lambda n=n: helps() > n, within=120)
        waits.append(time.monotonic() - said)
        await asyncio.sleep(1.2)  # the greeting that follows the help goes out a second later (Telegram's limit)


# Three chats of 500 (1,500 updates) or ten of 200 (2,000): either used to fill the inbox past polling's
# global pause (1,000 waiting), and everybody else waited minutes behind the flood.
@pytest.mark.parametrize(("flooders", "each"), [(3, 500), (10, 200)])
async def test_bystanders_are_answered_promptly_while_chats_flood(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, flooders: int, each: int,
) -> None:
    flooding = [8401 + n for n in range(flooders)]
    waits: list[float] = []
    backlogs: list[int] = []  # what polling saw waiting in the inbox before each getUpdates
    backlog = Poller._backlog

    async def watched(self: Poller) -> int:
        backlogs.append(await backlog(self))
        return backlogs[-1]

    monkeypatch.setattr(Poller, "_backlog", watched)
    async with running_bot(database, sandbox, concurrency=12, sender_limits={}) as bot:
        await asyncio.gather(flood(bot, flooding, each), *(talk(bot, chat, waits) for chat in BYSTANDERS))
        p99 = statistics.quantiles(waits, n=100)[98]
        print(f"{flooders} flooding chats: bystanders' answer p50 {statistics.median(waits):.3f}s, p99 {p99:.3f}s, "
              f"the inbox's backlog at most {max(backlogs)}")
        assert len(waits) == len(BYSTANDERS) * SAID
        # Polling never paused for the backlog: the bystanders' messages were fetched as they came, not
        # after the flood (they waited minutes when the flood filled the inbox past the pause).
        assert max(backlogs) < MAX_BACKLOG

        for chat in flooding:  # told once to slow down
            await bot.api.wait_until(lambda c=chat: any(SLOW_DOWN in (s.text or "") for s in bot.api.sent(c)), 30)
            assert sum(SLOW_DOWN in (s.text or "") for s in bot.api.sent(chat)) == 1
        async with database.session() as session:
            dropped = dict((await session.execute(
                select(InboxRow.chat_id, func.count()).where(
                    InboxRow.state == InboxState.FAILED.value, InboxRow.last_error == DROPPED,
                ).group_by(InboxRow.chat_id)
            )).all())
        assert sorted(dropped) == flooding  # set aside (and recorded) only the flooders' extra messages
        assert all(count >= each - 2 * DEFAULT_CHAT_BACKLOG for count in dropped.values())
