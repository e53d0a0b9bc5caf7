"""The inbox's shares and owners: a chat's backlog past its cap is set aside as it arrives, a claim
takes a few updates of each chat, and the rows of a process whose heartbeat stopped are freed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.store import Inbox, InboxState
from bot.store.models import InboxRow, ProcessRow
from bot.store.processes import Processes
from sqlalchemy import select

from tests.store.dbtools import ScratchDatabase

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
LEASE = timedelta(minutes=2)
STAFF = -100


def updates(chat: int, first: int, count: int) -> list[tuple[int, int | None, dict[str, object]]]:
    return [(first + n, chat, {"message": {"text": f"m{n}"}}) for n in range(count)]


async def states(database: ScratchDatabase) -> dict[int, tuple[str, str | None]]:
    async with database.session() as session:
        rows = (await session.execute(select(InboxRow).order_by(InboxRow.update_id))).scalars()
        return {row.update_id: (row.state, row.owner) for row in rows}


async def test_a_chat_past_its_backlog_has_its_newest_updates_set_aside(database: ScratchDatabase) -> None:
    inbox = Inbox()
    async with database.transaction() as session:
        await inbox.store_many(session, updates(1, 1, 3), now=T0)
        batch = [*updates(1, 4, 3), *updates(2, 20, 5), *updates(STAFF, 40, 9), (50, None, {})]
        batch.append(batch[0])  # the same update twice in one batch
        batch.append((2, 1, {}))  # a redelivery of one already waiting: not counted twice
        aside = await inbox.over_backlog(session, batch, keep=4, unlimited={STAFF})
        assert aside == {5, 6, 24}
        assert await inbox.store_many(session, batch, now=T0, set_aside=aside, reason="too many") == (
            {4, 5, 6, *range(20, 25), *range(40, 49), 50}
        )
    stored = await states(database)
    assert [uid for uid, (state, _) in stored.items() if state == InboxState.FAILED.value] == [5, 6, 24]
    async with database.session() as session:
        dropped = await session.get(InboxRow, 5)
    assert dropped is not None and dropped.payload == {} and dropped.last_error == "too many"


async def test_a_claim_takes_at_most_its_share_of_each_chat(database: ScratchDatabase) -> None:
    inbox = Inbox()
    async with database.transaction() as session:
        await inbox.store_many(session, [*updates(1, 1, 6), *updates(2, 10, 1), *updates(3, 20, 3)], now=T0)
        claimed = await inbox.claim_pending(session, 100, now=T0, per_chat=2)
    assert [item.update_id for item in claimed] == [1, 2, 10, 20, 21]


async def test_the_work_of_a_silent_process_is_freed_and_a_live_ones_kept(database: ScratchDatabase) -> None:
    stale = timedelta(seconds=5)
    async with database.transaction() as session:
        session.add_all([
            ProcessRow(id="dead", started_at=T0, heartbeat_at=T0 - timedelta(seconds=6)),
            ProcessRow(id="live", started_at=T0, heartbeat_at=T0 - timedelta(seconds=1)),
        ])
        for owner, chat in (("dead", 1), ("live", 2)):
            await Inbox(owner=owner).store_many(session, updates(chat, chat * 10, 2), now=T0)
            inbox = Inbox(lease=LEASE, owner=owner)
            first, _ = await inbox.claim_pending(session, 10, now=T0)
            assert await inbox.answer(session, first.update_id, [{"method": "sendMessage"}], now=T0)
    async with database.transaction() as session:
        me = Processes("me", stale)
        await me.beat(session, T0)
        assert await me.take_over(session, T0) == 2  # the dead one's claim and its unsent answer
        assert await me.alive(session, T0) == ["live", "me"]
    async with database.transaction() as session:
        freed = await Inbox(lease=LEASE, owner="me").claim_pending(session, 10, now=T0)
        resent = await Inbox(lease=LEASE, owner="me").undelivered(session, 10, now=T0)
    assert [item.update_id for item in resent] == [10]
    assert freed == []  # 11 waits behind 10's answer, which is being sent again
    owners = {uid: owner for uid, (_, owner) in (await states(database)).items()}
    assert owners == {10: "me", 11: None, 20: "live", 21: "live"}
    async with database.transaction() as session:
        assert await Processes("live", stale).leave(session, T0) == 2
    owners = {uid: owner for uid, (_, owner) in (await states(database)).items()}
    assert owners[20] is None and owners[21] is None


async def test_an_overdue_answer_of_a_live_process_is_not_sent_again(database: ScratchDatabase) -> None:
    """Under Telegram's 30 a second a surge keeps answers in a live process's sender for longer than
    the resend time: sending them again from the inbox would answer those chats twice."""
    resend = timedelta(minutes=5)
    late = T0 + resend + timedelta(minutes=10)
    async with database.transaction() as session:
        session.add_all([
            ProcessRow(id="live", started_at=T0, heartbeat_at=late - timedelta(seconds=1)),
            ProcessRow(id="silent", started_at=T0, heartbeat_at=late - timedelta(seconds=6)),
        ])
        for owner, chat in (("live", 1), ("silent", 2), ("unknown", 3)):
            await Inbox(owner=owner).store_many(session, updates(chat, chat * 10, 1), now=T0)
            inbox = Inbox(lease=LEASE, owner=owner)
            (item,) = await inbox.claim_pending(session, 10, now=T0)
            assert await inbox.answer(session, item.update_id, [{"method": "sendMessage"}], now=T0,
                                      resend_after=resend)
    async with database.transaction() as session:
        resent = await Inbox(lease=LEASE, owner="me").undelivered(session, 10, now=late, resend_after=resend)
    assert [item.update_id for item in resent] == [20, 30]  # the live process's answer stays its own
