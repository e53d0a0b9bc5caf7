"""Processes announce themselves with a heartbeat and own their leases: the claimed updates and
unsent answers of a process whose heartbeat stopped are taken over within seconds, by a live
process or the one that starts, not when their lease (minutes) runs out; a live process's are not."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

from bot.runtime.processor import LEASE
from bot.sandbox import Sandbox
from bot.store import Database, Inbox, utcnow
from bot.store.models import InboxRow, ProcessRow
from bot.store.processes import Processes
from sqlalchemy import select
from sqlalchemy import update as sql_update

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, running_bot

HELP = "Eu sou o assistente virtual do seu provedor"
RESEND = timedelta(minutes=5)  # how long an unsent answer waited before this change


async def left_by(bot: RunningBot, process: str, heartbeat_age: timedelta, chat_ids: tuple[int, int]) -> list[int]:
    """A process named ``process`` (last heartbeat ``heartbeat_age`` ago) claimed an update of the first
    chat and answered one of the second without seeing Telegram take the answer; the update ids."""
    claimed_chat, answered_chat = chat_ids
    claimed = bot.api.push_update(tg.text_message(claimed_chat, "/ajuda"))
    answered = bot.api.push_update(tg.text_message(answered_chat, "/ajuda"))
    updates = [u for u in bot.api.pending_updates if u["update_id"] in (claimed, answered)]
    assert await bot.channel.intake.store(updates, "polling") == 2
    now = utcnow()
    async with bot.app.database.transaction() as session:
        session.add(ProcessRow(id=process, started_at=now - timedelta(hours=1), heartbeat_at=now - heartbeat_age))
        inbox = Inbox(lease=LEASE, owner=process)
        assert len(await inbox.claim_pending(session, 10)) == 2
        answer: list[dict[str, Any]] = [{"method": "sendMessage", "params": {"chat_id": answered_chat, "text": "oi"}}]
        assert await inbox.answer(session, answered, answer, resend_after=RESEND)
    return [claimed, answered]


async def test_the_work_of_a_process_whose_heartbeat_stopped_is_taken_over_in_seconds(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        await bot.shutdown(graceful=False)  # nothing polls: the test stores the updates itself
        ids = await left_by(bot, "killed", timedelta(seconds=30), (7801, 7802))
        started = time.monotonic()
        await bot.start()
        await bot.handled_all(ids, within=10)
        assert time.monotonic() - started < 10  # its lease (2 min) and resend time (5 min) not waited out
        assert HELP in (bot.api.sent(7801)[0].text or "")
        assert [sent.text for sent in bot.api.sent(7802)] == ["oi"]  # the answer it had recorded, once
        async with database.session() as session:
            processes = list((await session.execute(select(ProcessRow.id))).scalars())
        assert processes == [bot.processor.inbox.owner]  # the dead one forgotten


async def test_a_live_process_keeps_its_work(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        await bot.shutdown(graceful=False)
        ids = await left_by(bot, "alive", timedelta(0), (7811, 7812))
        await bot.start()

        async def beat() -> None:  # the other process goes on beating
            while True:
                async with database.transaction() as session:
                    await Processes("alive").beat(session, utcnow())
                await asyncio.sleep(0.5)

        beating = asyncio.create_task(beat())
        try:
            await asyncio.sleep(8)  # longer than a heartbeat takes to go stale
            assert bot.api.sent(7811) == [] and bot.api.sent(7812) == []
            async with database.session() as session:
                owners = list((await session.execute(
                    select(InboxRow.owner).where(InboxRow.update_id.in_(ids))
                )).scalars())
            assert owners == ["alive", "alive"]
        finally:
            beating.cancel()
        # Once it stops beating, its work is taken over.
        await bot.handled_all(ids, within=15)
        assert [sent.text for sent in bot.api.sent(7812)] == ["oi"]


async def test_a_process_that_stops_hands_its_work_over_at_once(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        me = bot.processor.inbox.owner
        await bot.shutdown()
        async with database.session() as session:
            assert await session.get(ProcessRow, me) is None
        # What a stopping process still held (here: as if Telegram had not taken an answer) is free.
        ids = await left_by(bot, "stopping", timedelta(0), (7821, 7822))
        async with database.transaction() as session:
            assert await Processes("stopping").leave(session, utcnow()) == 2
            await session.execute(sql_update(ProcessRow).values(heartbeat_at=utcnow()))
        started = time.monotonic()
        await bot.start()
        await bot.handled_all(ids, within=5)
        assert time.monotonic() - started < 5
