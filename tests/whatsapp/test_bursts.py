"""Nothing lost or doubled when a person's messages queue up, on SQLite and PostgreSQL: quick
messages from many people, a backlog after a Graph API outage or behind a captive portal's page, a
flood in one post. Every message gets its answer once and one read receipt, and no update is left
pending or with an answer unsent.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from bot.sandbox import Sandbox
from bot.store import Database, InboxState
from bot.store.dead_letters import DeadLetters
from bot.store.models import InboxRow
from sqlalchemy import func, select

from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import RunningWhatsApp, running_whatsapp

# Each send takes this long, as over the internet: a chat's next turn ends while its answer is on its way.
LATENCY = 0.05


async def _settled(bot: RunningWhatsApp, expected: int, within: float = 60.0) -> tuple[int, int, int]:
    """Wait until ``expected`` updates are settled (not pending, their answer sent); (pending, held
    answers, answered) as found when that happened or when ``within`` ran out."""
    found = (0, 0, 0)
    try:
        async with asyncio.timeout(within):
            while True:
                async with bot.database.session() as session:
                    pending, held, done = (await session.execute(select(
                        func.count().filter(InboxRow.state == InboxState.PENDING.value),
                        func.count().filter(InboxRow.answer.is_not(None)),
                        func.count().filter(InboxRow.state == InboxState.DONE.value, InboxRow.answer.is_(None)),
                    ))).one()
                found = (pending, held, done)
                if pending == 0 and held == 0 and done >= expected:
                    return found
                bot.runtime.processor.wake()
                await asyncio.sleep(0.05)
    except TimeoutError:
        pass
    return found


def _answers(bot: RunningWhatsApp, people: list[str]) -> dict[str, int]:
    """Messages sent to each person (read receipts are not messages)."""
    return {person: len(bot.api.to(person)) for person in people}


async def test_quick_messages_from_many_people_are_each_answered_once(database: Database, sandbox: Sandbox) -> None:
    people = [f"55119{n:08d}" for n in range(10)]
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(latency=LATENCY)) as bot:
        messages = [wa.text(person, "oi") for _ in range(5) for person in people]
        answers = await asyncio.gather(*(bot.post(wa.post(message)) for message in messages))
        assert {answer.status_code for answer in answers} == {200}
        pending, held, _ = await _settled(bot, len(messages))
        assert (pending, held) == (0, 0)
        assert _answers(bot, people) == dict.fromkeys(people, 5)
        assert Counter(bot.api.read) == Counter(message["id"] for message in messages)  # one receipt each


async def test_the_backlog_of_an_outage_is_answered_once_it_ends(database: Database, sandbox: Sandbox) -> None:
    people = [f"55118{n:08d}" for n in range(20)]
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(latency=LATENCY)) as bot:
        bot.channel.sender.backoff = 0.05
        bot.api.fail_next(131000, count=10**6, status=500, message="Something went wrong")
        messages = [wa.text(person, f"oi {n}") for n in range(4) for person in people]
        for message in messages:
            assert (await bot.post(wa.post(message))).status_code == 200
        async with asyncio.timeout(30):  # the answers of the first messages wait in the sender
            while True:
                if bot.api.errors.get(131000, 0) >= len(people):
                    break
                await asyncio.sleep(0.05)
        bot.api._failures.clear()  # the outage ends
        pending, held, _ = await _settled(bot, len(messages))
        assert (pending, held) == (0, 0)
        assert _answers(bot, people) == dict.fromkeys(people, 4)
        assert Counter(bot.api.read) == Counter(message["id"] for message in messages)


async def test_a_flood_in_one_post_is_answered_up_to_the_backlog(database: Database, sandbox: Sandbox) -> None:
    person = "5511977770000"
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(latency=LATENCY)) as bot:
        messages = [wa.text(person, f"oi {n}") for n in range(200)]
        assert (await bot.post(wa.post(*messages))).status_code == 200
        pending, held, _ = await _settled(bot, 20)
        assert (pending, held) == (0, 0)
        assert _answers(bot, [person]) == {person: 20}  # the rest set aside (CHAT_BACKLOG)
        assert len(bot.api.read) == len(set(bot.api.read)) == 20


async def test_answers_wait_behind_a_portals_page_and_go_once_the_graph_api_answers(
    database: Database, sandbox: Sandbox,
) -> None:
    people = [f"55117{n:08d}" for n in range(5)]
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(latency=LATENCY)) as bot:
        bot.channel.sender.backoff = 0.05
        bot.api.portal = True  # a captive portal in the way since the bot started
        messages = [wa.text(person, f"oi {n}") for n in range(2) for person in people]
        for message in messages:
            assert (await bot.post(wa.post(message))).status_code == 200
        await asyncio.sleep(1.0)  # every request answered with the portal's page meanwhile
        assert bot.api.sent == []
        bot.api.portal = False
        pending, held, _ = await _settled(bot, len(messages))
        assert (pending, held) == (0, 0)
        assert _answers(bot, people) == dict.fromkeys(people, 2)
        async with database.session() as session:
            assert await DeadLetters().all(session) == []
