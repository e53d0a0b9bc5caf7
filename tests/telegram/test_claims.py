"""How the processor takes updates from the inbox: in batches while its slots are busy, and what it
took but did not start is handed back when it stops, for another process to answer at once."""

from __future__ import annotations

import asyncio
from collections.abc import Collection

import pytest
from bot.runtime.processor import Processor
from bot.sandbox import Sandbox
from bot.store import Database, Inbox, InboxItem, InboxState, utcnow
from sqlalchemy.ext.asyncio import AsyncSession

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, running_bot

HELP = "Eu sou o assistente virtual do seu provedor"


async def store(bot: RunningBot, chat_ids: list[int], first_update: int) -> list[int]:
    updates = [
        {"update_id": first_update + n, **tg.text_message(chat_id, "/ajuda")} for n, chat_id in enumerate(chat_ids)
    ]
    assert await bot.channel.intake.store(updates, "polling") == len(updates)
    return [update["update_id"] for update in updates]


def count_claims(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every claim that brought something, in order."""
    sizes: list[int] = []
    claim = Inbox.claim_pending

    async def counted(self: Inbox, *args: object, **kwargs: object) -> list[InboxItem]:
        items = await claim(self, *args, **kwargs)  # type: ignore[arg-type]
        if items:
            sizes.append(len(items))
        return items

    monkeypatch.setattr(Inbox, "claim_pending", counted)
    return sizes


async def test_a_backlog_is_claimed_in_one_go_even_with_two_slots(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with running_bot(database, sandbox, concurrency=2) as bot:
        await bot.shutdown()
        update_ids = await store(bot, list(range(7301, 7313)), first_update=3000)
        claims = count_claims(monkeypatch)

        await bot.start()
        await bot.handled_all(update_ids)

    assert claims == [12]  # not one claim per freed slot
    for chat_id in range(7301, 7313):
        assert [HELP in (sent.text or "") for sent in bot.api.sent(chat_id)][:1] == [True]


async def test_updates_taken_but_not_started_are_handed_back_when_the_bot_stops(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with running_bot(database, sandbox, concurrency=1) as bot:
        await bot.shutdown()
        first, *others = await store(bot, [7321, 7322, 7323], first_update=3100)
        started, go_on, handed_back = asyncio.Event(), asyncio.Event(), asyncio.Event()
        process, release = Processor._process, Processor._release

        async def held(self: Processor, item: InboxItem) -> bool:
            started.set()
            await go_on.wait()
            return await process(self, item)

        async def released(self: Processor, runs: list[list[InboxItem]]) -> None:
            await release(self, runs)
            handed_back.set()

        monkeypatch.setattr(Processor, "_process", held)
        monkeypatch.setattr(Processor, "_release", released)
        await bot.start()
        async with asyncio.timeout(5):
            await started.wait()  # the first chat holds the only slot; the two others wait, claimed
        stopping = asyncio.create_task(bot.shutdown())
        async with asyncio.timeout(5):
            await handed_back.wait()  # before the chat in hand is finished: stopping must not wait to
        go_on.set()
        await stopping

        for update_id in others:  # due now, for whichever process looks next; no attempt spent
            row = await bot.inbox_row(update_id)
            assert row is not None and row.state == InboxState.PENDING.value and row.attempts == 0
            assert row.available_at <= utcnow()
        assert (await bot.inbox_row(first)).state == InboxState.DONE.value  # type: ignore[union-attr]

        monkeypatch.undo()
        await bot.start()
        await bot.handled_all(others)
    for chat_id in (7321, 7322, 7323):
        assert sum(HELP in (sent.text or "") for sent in bot.api.sent(chat_id)) == 1


async def test_a_claim_smaller_than_the_slots_is_not_repeated_at_every_change_and_new_updates_still_go(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In a surge most chats wait for Telegram to take their last answer: each confirmed answer
    changes the inbox, and a claim after each would read every waiting update again for one or two."""
    monkeypatch.setattr("bot.runtime.processor.LOOK_EVERY", 3600.0)  # only changes bring claims here
    monkeypatch.setattr("bot.runtime.processor.SMALL_CLAIM_PAUSE", 1.0)  # longer than the loop below on any machine
    claims: list[int] = []
    claim = Inbox.claim_pending

    async def counted(self: Inbox, *args: object, **kwargs: object) -> list[InboxItem]:
        items = await claim(self, *args, **kwargs)  # type: ignore[arg-type]
        claims.append(len(items))
        return items

    monkeypatch.setattr(Inbox, "claim_pending", counted)
    async with running_bot(database, sandbox) as bot:
        await bot.handled_all(await store(bot, [7331], first_update=3200))
        assert claims[-1] <= 1  # of one update for twelve slots (none if the answer took longer than the pause)
        before = len(claims)
        for _ in range(50):  # fifty answers confirmed in a row, nothing new to claim
            bot.processor.wake()
            await asyncio.sleep(0)
        assert len(claims) - before <= 1

        await bot.handled_all(await store(bot, [7332], first_update=3201))  # claimed when the pause ends
    assert HELP in (bot.api.sent(7332)[0].text or "")


async def test_the_processor_sleeps_while_every_slot_is_busy_and_more_wait(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With its slots full and claimed runs waiting for them, the processor has nothing to do until a
    run finishes: it waits for that, not turning its loop over and over."""
    async with running_bot(database, sandbox, concurrency=1) as bot:
        await bot.shutdown()
        update_ids = await store(bot, [7341, 7342, 7343], first_update=3300)
        started, go_on = asyncio.Event(), asyncio.Event()
        process, step = Processor._process, Processor.step
        steps = 0

        async def held(self: Processor, item: InboxItem) -> bool:
            started.set()
            await go_on.wait()
            return await process(self, item)

        async def counted(self: Processor) -> int:
            nonlocal steps
            steps += 1
            return await step(self)

        monkeypatch.setattr(Processor, "_process", held)
        monkeypatch.setattr(Processor, "step", counted)
        await bot.start()
        async with asyncio.timeout(5):
            await started.wait()  # the first chat holds the only slot; the two others wait, claimed
        bot.processor.wake()  # new updates came, say: still nothing to start
        before = steps
        for _ in range(200):
            await asyncio.sleep(0)
        assert steps - before <= 2
        go_on.set()
        await bot.handled_all(update_ids)


async def test_an_accepted_answer_is_recorded_at_once_not_with_a_later_claim(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Until recorded, an answer is sent again if the process dies: it is recorded as soon as Telegram
    accepted it, though no claim comes for an hour (a quiet inbox) to take it along."""
    monkeypatch.setattr("bot.runtime.processor.LOOK_EVERY", 3600.0)
    claim = Inbox.claim_pending

    async def once(self: Inbox, *args: object, **kwargs: object) -> list[InboxItem]:
        items = await claim(self, *args, **kwargs)  # type: ignore[arg-type]
        if items:  # no claim after the one that brought the update (an empty one at start may come first)
            monkeypatch.setattr("bot.runtime.processor.SMALL_CLAIM_PAUSE", 3600.0)
        return items

    monkeypatch.setattr(Inbox, "claim_pending", once)
    recorded = asyncio.Event()
    delivered = Inbox.delivered

    async def watched(self: Inbox, session: AsyncSession, update_ids: Collection[int]) -> int:
        count = await delivered(self, session, update_ids)
        if update_ids:
            recorded.set()
        return count

    monkeypatch.setattr(Inbox, "delivered", watched)
    async with running_bot(database, sandbox) as bot:
        [update_id] = await store(bot, [7361], first_update=3500)
        async with asyncio.timeout(5):
            await recorded.wait()
        row = await bot.inbox_row(update_id)
        assert row is not None and row.state == InboxState.DONE.value and row.answer is None
    assert HELP in (bot.api.sent(7361)[0].text or "")


async def test_answers_accepted_while_a_record_is_written_go_together_in_the_next(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One write at a time: what Telegram accepts while one is written waits for it and goes in the
    next, all together (a commit for the lot, not one each), and nothing is left unrecorded."""
    monkeypatch.setattr("bot.runtime.processor.LOOK_EVERY", 3600.0)
    monkeypatch.setattr("bot.runtime.processor.SMALL_CLAIM_PAUSE", 3600.0)  # one claim takes them all
    chats = [7381 + n for n in range(8)]
    writes: list[list[int]] = []  # what each write recorded (a claim's, with nothing to record, left out)
    first_held, go_on, all_accepted, all_recorded = (asyncio.Event() for _ in range(4))
    delivered, accepted = Inbox.delivered, Processor._record_soon

    async def held(self: Inbox, session: AsyncSession, update_ids: Collection[int]) -> int:
        if update_ids:
            writes.append(sorted(update_ids))
            if len(writes) == 1:
                first_held.set()
                await go_on.wait()
        count = await delivered(self, session, update_ids)
        if sum(map(len, writes)) == len(chats):
            all_recorded.set()
        return count

    def watched(self: Processor) -> None:  # called as each answer is accepted
        accepted(self)
        if writes and len(self._delivered) == len(chats) - len(writes[0]):  # the rest wait for the next write
            all_accepted.set()

    monkeypatch.setattr(Inbox, "delivered", held)
    monkeypatch.setattr(Processor, "_record_soon", watched)
    async with running_bot(database, sandbox) as bot:
        update_ids = await store(bot, chats, first_update=3700)
        async with asyncio.timeout(5):
            await first_held.wait()
            await all_accepted.wait()  # the rest accepted while the first write is held
        go_on.set()
        async with asyncio.timeout(5):
            await all_recorded.wait()
        await asyncio.sleep(0.05)  # a write too many would come now
        assert len(writes) == (1 if len(writes[0]) == len(chats) else 2), writes
        assert sorted(update_id for write in writes for update_id in write) == update_ids
        for update_id in update_ids:
            row = await bot.inbox_row(update_id)
            assert row is not None and row.answer is None


async def test_while_sent_answers_cannot_be_recorded_the_processor_tries_again_calmly(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The database refuses the record (it is down): the answers stay in hand and are tried again
    every ``RECORD_RETRY_AFTER``, not in a loop as fast as the refusals come."""
    monkeypatch.setattr("bot.runtime.processor.LOOK_EVERY", 3600.0)
    monkeypatch.setattr("bot.runtime.processor.SMALL_CLAIM_PAUSE", 3600.0)  # no claim records them
    monkeypatch.setattr("bot.runtime.processor.RECORD_RETRY_AFTER", 0.1)
    tries = 0

    async def refused(self: Inbox, session: object, update_ids: list[int]) -> int:
        nonlocal tries
        if not update_ids:
            return 0  # each claim records what it has, here nothing
        tries += 1
        raise ConnectionError("the database is down")

    async with running_bot(database, sandbox) as bot:
        monkeypatch.setattr(Inbox, "delivered", refused)
        [update_id] = await store(bot, [7371], first_update=3600)
        await bot.api.wait_for_sent(7371)
        await asyncio.sleep(0.5)
        assert 1 <= tries <= 8  # about one every 0.1 s
        assert bot.processor._delivered == [update_id]
        monkeypatch.undo()
    row = await bot.inbox_row(update_id)
    assert row is not None and row.answer is None  # recorded on stopping, the database back
