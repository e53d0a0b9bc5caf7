"""How the processor takes updates from the inbox: in batches while its slots are busy, and what it
took but did not start is handed back when it stops, for another process to answer at once."""

from __future__ import annotations

import asyncio

import pytest
from bot.runtime.processor import RECORD_AT_MOST, Processor
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
        assert claims[-1] == 1  # a claim of one update, for twelve slots
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


async def test_accepted_answers_are_recorded_by_the_next_claim_not_in_a_transaction_each(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each chat's next update waits for its last answer to be recorded as sent; the claim that takes
    it records that answer in its own transaction, instead of a commit for every answer or two."""
    monkeypatch.setattr("bot.runtime.processor.RECORD_DELIVERED_WITHIN", 3600.0)  # only claims record them
    alone: list[int] = []  # answers recorded in a transaction of their own
    flush = Processor._flush_delivered

    async def counted(self: Processor) -> None:
        alone.extend(self._delivered)
        await flush(self)

    monkeypatch.setattr(Processor, "_flush_delivered", counted)
    async with running_bot(database, sandbox) as bot:
        update_ids = await store(bot, [7351, 7352, 7353] * 4, first_update=3400)  # each chat's in turn
        await bot.handled_all(update_ids)
        assert alone == []
        await bot.shutdown()  # what no claim recorded yet is recorded on stopping
    for update_id in update_ids:
        row = await bot.inbox_row(update_id)
        assert row is not None and row.state == InboxState.DONE.value and row.answer is None
    for chat_id in (7351, 7352, 7353):
        assert sum(HELP in (sent.text or "") for sent in bot.api.sent(chat_id)) == 4


def no_claim_after_the_first_that_brings_updates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The claim pause set to an hour once a claim brought updates (an empty one at start may come first)."""
    claim = Inbox.claim_pending

    async def once(self: Inbox, *args: object, **kwargs: object) -> list[InboxItem]:
        items = await claim(self, *args, **kwargs)  # type: ignore[arg-type]
        if items:
            monkeypatch.setattr("bot.runtime.processor.SMALL_CLAIM_PAUSE", 3600.0)
        return items

    monkeypatch.setattr(Inbox, "claim_pending", once)


async def test_an_accepted_answer_is_recorded_soon_when_no_claim_comes(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Until recorded, an answer is sent again if the process dies: no claim for a long while (a
    quiet inbox) must not leave it unrecorded."""
    monkeypatch.setattr("bot.runtime.processor.LOOK_EVERY", 3600.0)
    monkeypatch.setattr("bot.runtime.processor.RECORD_DELIVERED_WITHIN", 0.05)
    no_claim_after_the_first_that_brings_updates(monkeypatch)
    recorded = asyncio.Event()
    flush = Processor._flush_delivered

    async def watched(self: Processor) -> None:
        await flush(self)
        if not self._delivered:
            recorded.set()

    monkeypatch.setattr(Processor, "_flush_delivered", watched)
    async with running_bot(database, sandbox) as bot:
        [update_id] = await store(bot, [7361], first_update=3500)
        await bot.handled_all([update_id])
        async with asyncio.timeout(5):
            await recorded.wait()
        row = await bot.inbox_row(update_id)
        assert row is not None and row.state == InboxState.DONE.value and row.answer is None
    assert HELP in (bot.api.sent(7361)[0].text or "")


async def test_a_burst_of_accepted_answers_is_recorded_at_once_whatever_the_claim_pause(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crash sends again every answer accepted but not recorded yet: once ``RECORD_AT_MOST`` wait,
    they are recorded at once, not after the claim pause or ``RECORD_DELIVERED_WITHIN``."""
    monkeypatch.setattr("bot.runtime.processor.LOOK_EVERY", 3600.0)
    monkeypatch.setattr("bot.runtime.processor.RECORD_DELIVERED_WITHIN", 3600.0)
    no_claim_after_the_first_that_brings_updates(monkeypatch)
    chats = [7381 + n for n in range(RECORD_AT_MOST)]
    recorded: list[int] = []
    all_recorded = asyncio.Event()
    flush = Processor._flush_delivered

    async def watched(self: Processor) -> None:
        ids = list(self._delivered)
        await flush(self)
        recorded.extend(ids)
        if len(recorded) == len(chats):
            all_recorded.set()

    monkeypatch.setattr(Processor, "_flush_delivered", watched)
    async with running_bot(database, sandbox) as bot:
        update_ids = await store(bot, chats, first_update=3700)  # one claim, then no other for an hour
        async with asyncio.timeout(5):
            await all_recorded.wait()
        assert sorted(recorded) == update_ids
        for update_id in update_ids:
            row = await bot.inbox_row(update_id)
            assert row is not None and row.answer is None


async def test_while_sent_answers_cannot_be_recorded_the_processor_tries_again_calmly(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The database refuses the record (it is down): the answers stay in hand and are tried again
    every ``RECORD_DELIVERED_WITHIN``, not in a loop as fast as the refusals come."""
    monkeypatch.setattr("bot.runtime.processor.LOOK_EVERY", 3600.0)
    monkeypatch.setattr("bot.runtime.processor.RECORD_DELIVERED_WITHIN", 0.1)
    no_claim_after_the_first_that_brings_updates(monkeypatch)  # no claim records them
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


async def test_no_more_answers_go_unrecorded_than_the_channel_sends_at_once(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a crash sends twice is what was sent and not recorded: while no record can be written,
    the bot sends no more than the channel's ``sends_at_once``; the rest go, each once, once it can."""
    down = True
    record = Inbox.delivered

    async def refused(self: Inbox, session: AsyncSession, update_ids: list[int]) -> int:
        if down and update_ids:
            raise ConnectionError("the database is down")
        return await record(self, session, update_ids)

    monkeypatch.setattr(Inbox, "delivered", refused)
    async with running_bot(database, sandbox) as bot:
        at_once = bot.channel.sends_at_once
        chats = [7401 + n for n in range(at_once + 8)]
        await store(bot, chats, first_update=3800)  # one claim takes them all
        await bot.api.wait_until(lambda: len(bot.api.outgoing()) >= at_once, within=30)
        await asyncio.sleep(1.0)  # anything more would have come by now
        assert len(bot.api.outgoing()) == at_once
        down = False
        await bot.api.wait_until(lambda: len(bot.api.outgoing()) >= len(chats), within=30)
        await asyncio.sleep(0.5)
        assert all(len(bot.api.sent(chat)) == 1 for chat in chats)
