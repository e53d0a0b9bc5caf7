from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.store import Inbox, ProcessedUpdates
from bot.store.inbox import queue as inbox_queue
from sqlalchemy import text

from tests.store.dbtools import ScratchDatabase

processed = ProcessedUpdates()
inbox = Inbox(lease=timedelta(minutes=1))
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
BIG_UPDATE = 2**40 + 5


async def test_an_update_is_marked_processed_once(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        assert await processed.mark(session, BIG_UPDATE, at=T0)
        assert not await processed.mark(session, BIG_UPDATE)
    async with database.transaction() as session:
        assert not await processed.mark(session, BIG_UPDATE)
        assert await processed.mark(session, BIG_UPDATE + 1, at=T0 + timedelta(days=2))
        assert await processed.prune(session, before=T0 + timedelta(days=1)) == 1
        assert await processed.mark(session, BIG_UPDATE)


async def test_concurrent_marks_of_one_update_let_exactly_one_through(database: ScratchDatabase) -> None:
    async def mark() -> bool:
        async with database.transaction() as session:
            return await processed.mark(session, 77)

    assert sorted(await asyncio.gather(*(mark() for _ in range(4)))) == [False, False, False, True]


async def test_the_inbox_stores_an_update_once(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        assert await inbox.store(session, 10, 1, {"message": {"text": "oi"}}, now=T0)
        assert not await inbox.store(session, 10, 1, {"message": {"text": "changed"}}, now=T0)
    async with database.transaction() as session:
        assert not await inbox.store(session, 10, 1, {})
        (item,) = await inbox.claim_pending(session, 10, now=T0)
    assert item.update_id == 10 and item.payload == {"message": {"text": "oi"}} and item.attempts == 1


async def test_a_batch_is_stored_in_one_go_and_says_which_updates_were_new(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        await inbox.store(session, 20, 1, {"first": True}, now=T0)
    batch = [(20, 1, {"first": False}), (21, 2, {"n": 21}), (21, 2, {"n": "again"}), (22, None, {"n": 22})]
    async with database.transaction() as session:
        assert await inbox.store_many(session, batch, now=T0) == {21, 22}
        assert await inbox.store_many(session, [], now=T0) == set()
        items = await inbox.claim_pending(session, 10, now=T0)
    # What was there stays as it was; an update twice in the batch is kept once, as first seen.
    assert [(i.update_id, i.payload) for i in items] == [(20, {"first": True}), (21, {"n": 21}), (22, {"n": 22})]


async def test_the_inbox_hands_out_each_chat_in_order_and_leases_claims(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        for update_id, chat_id in [(1, 100), (2, 200), (3, 100), (4, None), (5, 100)]:
            await inbox.store(session, update_id, chat_id, {"n": update_id}, now=T0)

    async with database.transaction() as session:
        claimed = await inbox.claim_pending(session, 10, now=T0)
        assert [i.update_id for i in claimed] == [1, 2, 3, 4, 5]
        # Leased: nothing more to hand out until the lease ends or they are marked.
        assert await inbox.claim_pending(session, 10, now=T0) == []
        await inbox.mark_done(session, [1, 2, 4], now=T0)
        await inbox.mark_retry(session, [3], available_at=T0 + timedelta(minutes=5), error="ISP down")

    later = T0 + timedelta(minutes=2)  # the lease of 5 has ended, 3 waits for its retry
    async with database.transaction() as session:
        assert await inbox.claim_pending(session, 10, now=later) == []  # 5 must not overtake 3
        await inbox.mark_failed(session, [3], error="gave up")
        (again,) = await inbox.claim_pending(session, 10, now=later)
    assert again.update_id == 5 and again.attempts == 2


async def test_released_claims_are_due_again_at_once_and_the_claim_is_not_counted(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        for update_id, chat_id in [(1, 100), (2, 100), (3, 200)]:
            await inbox.store(session, update_id, chat_id, {"n": update_id}, now=T0)
        assert [i.update_id for i in await inbox.claim_pending(session, 10, now=T0)] == [1, 2, 3]
        # Meanwhile 3 was answered (by another worker, its lease having ended): a release leaves it alone.
        assert await inbox.answer(session, 3, [{"method": "sendMessage", "params": {}}], now=T0)
        assert await inbox.release(session, [1, 2, 3], now=T0) == 2

    async with database.transaction() as session:
        again = await inbox.claim_pending(session, 10, now=T0)  # no lease to wait for
        undelivered = await inbox.undelivered(session, 10, now=T0 + timedelta(minutes=1))
    assert [(i.update_id, i.attempts) for i in again] == [(1, 1), (2, 1)]
    assert undelivered == []  # 3's answer keeps its own resend time, not the release's


async def _plan(database: ScratchDatabase, statement: Any) -> list[str]:
    async with database.transaction() as session:
        dialect = session.get_bind().dialect
        sql = str(statement.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
        if dialect.name == "postgresql":
            await session.execute(text("SET LOCAL enable_seqscan = off"))  # a near empty table
            return list((await session.execute(text(f"EXPLAIN {sql}"))).scalars().all())
        return [row[-1] for row in (await session.execute(text(f"EXPLAIN QUERY PLAN {sql}"))).all()]


async def test_a_claim_looks_up_the_chats_waiting_updates_in_their_own_index(database: ScratchDatabase) -> None:
    """Whether a chat's head is free is one lookup in ``ix_inbox_waiting`` (only the rows still
    waiting), not a walk through everything the chat sent that day."""
    plan = await _plan(database, inbox_queue.due_heads_statement(10, T0))
    assert any("ix_inbox_waiting" in line for line in plan), plan


async def test_a_claim_walks_the_pending_updates_in_order_and_sorts_nothing(database: ScratchDatabase) -> None:
    """A claim reads the pending updates in ``ix_inbox_pending``'s order and stops at its limit: it
    neither sorts every due update (SQLite through ``(state, available_at)``) nor walks the finished
    ones (PostgreSQL through the primary key)."""
    plan = await _plan(database, inbox_queue.due_heads_statement(10, T0))
    assert any("ix_inbox_pending" in line for line in plan), plan
    assert not any("TEMP B-TREE" in line or line.lstrip(" ->").startswith("Sort") for line in plan), plan
