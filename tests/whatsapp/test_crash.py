"""A process killed mid-stream on WhatsApp loses nothing: what Meta posted was stored before the
200, the next process answers it, and Meta posting it again (it retries) answers nobody twice."""

from __future__ import annotations

import asyncio

from bot.sandbox import Sandbox
from bot.store import Database
from bot.store.models import InboxRow
from sqlalchemy import func, select

from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.harness import running_whatsapp

PEOPLE = [f"55119{n:08d}" for n in range(12)]


async def _answered_unsent(database: Database) -> int:
    async with database.session() as session:
        statement = select(func.count()).select_from(InboxRow).where(InboxRow.answer.is_not(None))
        return int((await session.execute(statement)).scalar_one())


async def test_a_killed_process_loses_nothing_and_a_post_again_answers_nobody_twice(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        bot.api.expired = True  # Meta refuses every send: the answers wait in the sender's queue
        messages = [wa.text(person, "oi") for person in PEOPLE]
        for message in messages:
            assert (await bot.post(wa.post(message))).status_code == 200
        async with asyncio.timeout(10):  # each one processed, its answer kept with it, none sent
            while True:
                if await _answered_unsent(database) == len(PEOPLE):
                    break
                await asyncio.sleep(0.05)
        assert bot.api.sent == []
        await bot.shutdown(graceful=False)  # killed with its queue
        bot.api.expired = False
        await bot.start()
        for message in messages:  # Meta posts again what it did not see acknowledged, or just again
            assert (await bot.post(wa.post(message))).status_code == 200
        for message in messages:
            await bot.handled(message["id"], within=20)
        await asyncio.sleep(0.3)
        async with database.session() as session:
            rows = (await session.execute(select(func.count()).select_from(InboxRow))).scalar_one()
        assert rows == len(PEOPLE)  # kept once each
        answered = {person: len(bot.api.to(person)) for person in PEOPLE}
        assert set(answered.values()) == {1}, answered  # nobody unanswered, nobody answered twice
