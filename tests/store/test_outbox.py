from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime, timedelta

import pytest
from bot.store import NewMessage, Origin, Outbox, OutboxEntry, OutboxState
from bot.store.models import OutboxRow
from sqlalchemy import and_, or_, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from tests.store.dbtools import ScratchDatabase

LEASE = timedelta(minutes=2)
outbox = Outbox(lease=LEASE)
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def message(ticket: int, content: str, origin: Origin = Origin.CUSTOMER) -> NewMessage:
    return NewMessage(
        ticket_id=ticket, customer=500, record=T0, attendant="bot", content=content, origin=origin,
    )


def contents(entries: list[OutboxEntry]) -> list[str]:
    return [entry.message.content for entry in entries]


async def enqueue(database: ScratchDatabase, *messages: NewMessage) -> list[int]:
    async with database.transaction() as session:
        return await outbox.enqueue(session, messages, now=T0)


async def test_entries_come_out_in_order_per_ticket(database: ScratchDatabase) -> None:
    await enqueue(database, message(1, "1a"), message(2, "2a"), message(1, "1b"), message(2, "2b"))
    await enqueue(database, message(1, "1c", Origin.ATTENDANT))

    async with database.transaction() as session:
        batch = await outbox.claim_batch(session, 10, now=T0)
    assert contents(batch) == ["1a", "2a", "1b", "2b", "1c"]
    assert batch[4].message.origin is Origin.ATTENDANT and batch[0].message.record == T0
    assert all(entry.attempts == 1 and entry.next_attempt_at == T0 + LEASE for entry in batch)


async def test_a_small_batch_takes_each_ticket_as_a_prefix(database: ScratchDatabase) -> None:
    await enqueue(database, message(1, "1a"), message(1, "1b"), message(2, "2a"), message(1, "1c"))
    async with database.transaction() as session:
        # Heads first (the oldest entry of each ticket), then followers in order while there is room.
        assert contents(await outbox.claim_batch(session, 3, now=T0)) == ["1a", "1b", "2a"]
        # 1c must not overtake 1a and 1b, which are leased and not yet sent.
        assert await outbox.claim_batch(session, 3, now=T0) == []


async def test_sent_entries_leave_and_the_ticket_moves_on(database: ScratchDatabase) -> None:
    await enqueue(database, message(1, "1a"), message(1, "1b"))
    async with database.transaction() as session:
        (head,) = await outbox.claim_batch(session, 1, now=T0)
        assert await outbox.claim_batch(session, 10, now=T0) == []
        await outbox.mark_sent(session, [head.id], now=T0)
        (follower,) = await outbox.claim_batch(session, 10, now=T0)
    assert head.message.content == "1a" and follower.message.content == "1b"
    async with database.session() as session:
        sent = await outbox.get(session, head.id)
    assert sent is not None and sent.state is OutboxState.SENT and sent.sent_at == T0


async def test_a_retry_holds_back_its_ticket_only(database: ScratchDatabase) -> None:
    await enqueue(database, message(1, "1a"), message(2, "2a"))
    async with database.transaction() as session:
        batch = await outbox.claim_batch(session, 10, now=T0)
        await outbox.mark_retry(session, [e.id for e in batch], T0 + timedelta(minutes=5), "ISP timeout")
    await enqueue(database, message(1, "1b"), message(3, "3a"))

    async with database.transaction() as session:
        (other,) = await outbox.claim_batch(session, 10, now=T0 + timedelta(minutes=1))
        assert other.message.content == "3a"
        await outbox.mark_sent(session, [other.id])
    async with database.transaction() as session:
        retried = await outbox.claim_batch(session, 10, now=T0 + timedelta(minutes=6))
    assert contents(retried) == ["1a", "2a", "1b"]
    assert [e.attempts for e in retried] == [2, 2, 1] and retried[0].last_error == "ISP timeout"


async def test_an_expired_lease_hands_the_batch_out_again(database: ScratchDatabase) -> None:
    await enqueue(database, message(1, "1a"), message(1, "1b"))
    async with database.transaction() as session:
        assert len(await outbox.claim_batch(session, 10, now=T0)) == 2
    async with database.transaction() as session:
        assert await outbox.claim_batch(session, 10, now=T0 + LEASE - timedelta(seconds=1)) == []
        assert contents(await outbox.claim_batch(session, 10, now=T0 + LEASE)) == ["1a", "1b"]


async def test_dead_entries_step_aside_and_can_be_requeued(database: ScratchDatabase) -> None:
    ids = await enqueue(database, message(1, "1a"), message(1, "1b"), message(2, "2a"))
    async with database.transaction() as session:
        await outbox.claim_batch(session, 10, now=T0)
        await outbox.mark_dead(session, [ids[0]], "error 16: ticket not found")
        await outbox.mark_retry(session, ids[1:], T0, "ISP timeout")
        assert contents(await outbox.claim_batch(session, 10, now=T0)) == ["1b", "2a"]
        await outbox.mark_sent(session, ids[1:], now=T0)

    async with database.transaction() as session:
        stats = await outbox.stats(session, now=T0)
        assert stats.depth == {OutboxState.PENDING: 0, OutboxState.SENT: 2, OutboxState.DEAD: 1}
        assert stats.oldest_pending_age is None
        assert await outbox.requeue_dead(session, now=T0) == 1
        assert await outbox.requeue_dead(session, now=T0) == 0
        (revived,) = await outbox.claim_batch(session, 10, now=T0)
    assert revived.id == ids[0] and revived.attempts == 1
    assert revived.last_error == "error 16: ticket not found"


async def test_stats_report_depth_and_the_oldest_pending_age(database: ScratchDatabase) -> None:
    await enqueue(database, message(1, "1a"), message(2, "2a"))
    async with database.session() as session:
        stats = await outbox.stats(session, now=T0 + timedelta(minutes=3))
    assert stats.depth[OutboxState.PENDING] == 2 and stats.depth[OutboxState.DEAD] == 0
    assert stats.oldest_pending_age == timedelta(minutes=3)


async def unsent_before(session: AsyncSession, batch: list[OutboxEntry]) -> list[int]:
    """Entries of the batch's tickets, older than the batch, not yet sent: there must be none."""
    first: dict[int, int] = {}
    for entry in batch:
        first.setdefault(entry.message.ticket_id, entry.id)
    older = [and_(OutboxRow.ticket_id == ticket, OutboxRow.id < head) for ticket, head in first.items()]
    if not older:
        return []
    statement = select(OutboxRow.id).where(or_(*older), OutboxRow.state != OutboxState.SENT.value)
    return list((await session.execute(statement)).scalars())


async def test_concurrent_claimers_never_share_an_entry_nor_overtake(database: ScratchDatabase) -> None:
    tickets = range(1, 9)
    await enqueue(database, *(message(t, f"{t}-{n}") for n, t in itertools.product(range(3), tickets)))
    start = asyncio.Barrier(4)

    async def worker() -> list[str]:
        got: list[str] = []
        await start.wait()
        for _ in range(20):
            async with database.transaction() as session:
                batch = await outbox.claim_batch(session, 4, now=T0)
                assert await unsent_before(session, batch) == []
                # Hold the claim open a moment, so the other workers run into it.
                await asyncio.sleep(0.01)
                await outbox.mark_sent(session, [e.id for e in batch], now=T0)
            got += contents(batch)
        return got

    results = await asyncio.gather(*(worker() for _ in range(4)))
    everything = [content for result in results for content in result]
    assert sorted(everything) == sorted(f"{t}-{n}" for n in range(3) for t in tickets)  # each exactly once


async def test_two_open_claims_on_postgresql_take_different_tickets(database: ScratchDatabase) -> None:
    if database.dialect != "postgresql":
        pytest.skip("SQLite has one writer at a time: a second open claim waits for the first")
    await enqueue(database, *(message(t, f"{t}-{n}") for n, t in itertools.product(range(2), (1, 2, 3))))
    async with database.transaction() as first, database.transaction() as second:
        mine = await outbox.claim_batch(first, 2, now=T0)  # locked, not committed
        # A claim that waited for the first one's locks would wait forever here: fail instead.
        await second.execute(text("SET LOCAL lock_timeout = '2s'"))
        theirs = await outbox.claim_batch(second, 10, now=T0)
    assert contents(mine) == ["1-0", "2-0"]
    assert contents(theirs) == ["3-0", "3-1"]
