"""Outage watches are told once; trust unblocks are remembered per contract."""

from __future__ import annotations

from datetime import timedelta

from bot.store import OutageWatches, TrustUnblocks, utcnow

from tests.store.dbtools import ScratchDatabase


async def test_a_watcher_is_claimed_once_and_asking_twice_watches_once(database: ScratchDatabase) -> None:
    watches = OutageWatches()
    async with database.transaction() as session:
        assert await watches.watch(session, 10, 1)
        assert not await watches.watch(session, 10, 1)
        assert await watches.watch(session, 11, 1)
        assert await watches.watch(session, 12, 2)
    async with database.transaction() as session:
        assert await watches.pending_events(session) == [1, 2]
        assert await watches.is_watching(session, 10, 1)
        assert await watches.claim_watchers(session, 1) == [10, 11]
    async with database.transaction() as session:
        assert await watches.claim_watchers(session, 1) == []
        assert await watches.pending_events(session) == [2]
        assert not await watches.is_watching(session, 10, 1)


async def test_the_last_trust_unblock_of_a_contract(database: ScratchDatabase) -> None:
    unblocks = TrustUnblocks()
    now = utcnow()
    async with database.transaction() as session:
        assert await unblocks.last(session, 5002) is None
        await unblocks.record(session, customer_code=1002, contract=5002, chat_id=7, at=now - timedelta(days=40))
        await unblocks.record(session, customer_code=1002, contract=5002, chat_id=7, at=now - timedelta(days=2))
        await unblocks.record(session, customer_code=1002, contract=5003, chat_id=7, at=now)
    async with database.transaction() as session:
        last = await unblocks.last(session, 5002)
    assert last is not None and abs(last - (now - timedelta(days=2))) < timedelta(seconds=1)
