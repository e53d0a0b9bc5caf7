"""The database refuses every connection for a while (a crash of its server, a network split) while
chats keep writing: once it is back the bot catches up within seconds, every update answered once.
Nothing waits for a lease or the resend time: what the database refused meanwhile (storing a batch,
putting an update back, recording a delivery) is tried again every few seconds."""

from __future__ import annotations

import asyncio
import time

from bot.sandbox import Sandbox
from bot.store import Database, InboxState

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, running_bot
from tests.telegram.test_webhook import unreachable

CHATS = [9_400_001 + n for n in range(10)]
LANGUAGE = "Em qual idioma"  # what "/idioma" answers
OUTAGE = 12.0  # seconds: the poller's retries reach their cap (STORE_RETRY_CAP) after pauses of 2 and 4
CAUGHT_UP_WITHIN = 10.0  # seconds after the database is back


async def answered_not_delivered(bot: RunningBot, update_ids: list[int]) -> None:
    async with asyncio.timeout(30):
        while True:
            rows = [await bot.inbox_row(update_id) for update_id in update_ids]
            if all(row is not None and row.state == InboxState.DONE.value and row.answer for row in rows):
                return
            await asyncio.sleep(0.02)


async def test_after_the_database_refused_connections_the_bot_catches_up_in_seconds(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:

        def asked(chat_id: int) -> int:
            return sum(LANGUAGE in (sent.text or "") for sent in bot.api.sent(chat_id))

        for chat_id in CHATS:
            await bot.chat(chat_id).say("/idioma")
        # Answers on their way to a slow Telegram when the database goes: they arrive meanwhile, and
        # their delivery cannot be recorded until it is back.
        bot.api.latency = 1.0
        in_flight = [bot.api.push_update(tg.text_message(chat_id, "/idioma")) for chat_id in CHATS]
        await answered_not_delivered(bot, in_flight)
        async with unreachable(database):
            bot.api.latency = 0.0
            for second in range(int(OUTAGE)):
                for chat_id in CHATS[second % 2::2]:
                    bot.api.push_update(tg.text_message(chat_id, "/idioma"))
                await asyncio.sleep(1)
        back = time.monotonic()
        expected = {chat_id: 2 + int(OUTAGE) // 2 for chat_id in CHATS}
        await bot.api.wait_until(lambda: all(asked(c) >= n for c, n in expected.items()), within=120)
        caught_up = time.monotonic() - back
        print(f"caught up {caught_up:.1f}s after a {OUTAGE:.0f}s outage of the database")
        assert caught_up < CAUGHT_UP_WITHIN
        await asyncio.sleep(1)
        assert {c: asked(c) for c in CHATS} == expected  # once each
