"""The ``chat_messages`` outbox: conversation messages waiting to be mirrored into the ISP system.

Entries are written in the same transaction as the conversation step that produced them, so an ISP
outage delays the mirror but never drops a message. Delivery is at least once: a worker claims a
batch (which leases it), sends it, and marks the outcome; if it dies in between, the lease runs out
and the batch is handed out again. Choose a lease longer than a delivery can take.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.enums import Origin, OutboxState
from bot.store.models import OutboxRow
from bot.store.queue import OrderedQueue
from bot.store.sql import execute_rowcount, fetch_one
from bot.store.types import utcnow

DEFAULT_LEASE = timedelta(minutes=2)


@dataclass(frozen=True, slots=True)
class NewMessage:
    """One ``chat_messages`` entry as the ISP expects it (``record`` is when it was said)."""

    ticket_id: int
    customer: int
    record: datetime
    attendant: str
    content: str
    origin: Origin
    contact: int | None = None


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    id: int
    message: NewMessage
    state: OutboxState
    attempts: int  # how many times it was claimed for delivery
    next_attempt_at: datetime
    last_error: str | None
    created_at: datetime
    sent_at: datetime | None


@dataclass(frozen=True, slots=True)
class OutboxStats:
    depth: dict[OutboxState, int]
    oldest_pending_age: timedelta | None


def _from_row(row: OutboxRow | Row[Any]) -> OutboxEntry:
    message = NewMessage(
        ticket_id=row.ticket_id, customer=row.customer, record=row.record, attendant=row.attendant,
        content=row.content, origin=Origin(row.origin), contact=row.contact,
    )
    return OutboxEntry(
        id=row.id, message=message, state=OutboxState(row.state), attempts=row.attempts,
        next_attempt_at=row.next_attempt_at, last_error=row.last_error, created_at=row.created_at,
        sent_at=row.sent_at,
    )


_queue = OrderedQueue(
    OutboxRow, key="id", group="ticket_id", due="next_attempt_at", pending=OutboxState.PENDING,
)


class Outbox:
    def __init__(self, lease: timedelta = DEFAULT_LEASE) -> None:
        self.lease = lease

    async def enqueue(
        self, session: AsyncSession, messages: Iterable[NewMessage], now: datetime | None = None,
    ) -> list[int]:
        """Queue messages for mirroring, in the given order; their ids."""
        now = now or utcnow()
        rows = [
            OutboxRow(
                ticket_id=m.ticket_id, customer=m.customer, record=m.record, attendant=m.attendant,
                content=m.content, origin=m.origin.value, contact=m.contact, state=OutboxState.PENDING.value,
                attempts=0, next_attempt_at=now, created_at=now,
            )
            for m in messages
        ]
        # One INSERT per row keeps the ids increasing in the given order, which is the delivery order.
        for row in rows:
            session.add(row)
            await session.flush()
        return [row.id for row in rows]

    async def claim_batch(
        self, session: AsyncSession, limit: int, now: datetime | None = None,
    ) -> list[OutboxEntry]:
        """Lease up to ``limit`` due entries, in id order, each ticket's as an unbroken prefix."""
        rows = await _queue.claim(session, limit, now or utcnow(), self.lease)
        return [_from_row(row) for row in rows]

    async def mark_sent(
        self, session: AsyncSession, ids: Collection[int], now: datetime | None = None,
    ) -> int:
        sent = OutboxState.SENT.value
        return await _queue.set(session, ids, state=sent, sent_at=now or utcnow(), last_error=None)

    async def mark_retry(
        self, session: AsyncSession, ids: Collection[int], next_attempt_at: datetime, error: str,
    ) -> int:
        """Try again from ``next_attempt_at``; the ticket's later entries wait behind these."""
        return await _queue.set(session, ids, next_attempt_at=next_attempt_at, last_error=error)

    async def retry_now(self, session: AsyncSession, waits: Mapping[int, datetime], now: datetime) -> int:
        """Make due at ``now`` the entries of each ticket still waiting for the retry time given for it
        (``{ticket_id: next_attempt_at}``); how many entries. An entry whose time has changed since (sent,
        leased by another worker, retried again) is left alone."""
        changed = 0
        for ticket, retry_at in waits.items():
            statement = (
                update(OutboxRow)
                .where(
                    OutboxRow.ticket_id == ticket, OutboxRow.state == OutboxState.PENDING.value,
                    OutboxRow.next_attempt_at == retry_at,
                )
                .values(next_attempt_at=now)
            )
            changed += await execute_rowcount(session, statement)
        return changed

    async def mark_dead(self, session: AsyncSession, ids: Collection[int], error: str) -> int:
        """Give up on these entries; their ticket's later entries go ahead without them."""
        return await _queue.set(session, ids, state=OutboxState.DEAD.value, last_error=error)

    async def requeue_dead(
        self, session: AsyncSession, ids: Collection[int] | None = None, now: datetime | None = None,
    ) -> int:
        """Put dead entries (all of them, or the given ones) back in line, with a fresh attempt count."""
        statement = select(OutboxRow.id).where(OutboxRow.state == OutboxState.DEAD.value)
        if ids is not None:
            statement = statement.where(OutboxRow.id.in_(ids))
        dead = list((await session.execute(statement)).scalars())
        return await _queue.set(
            session, dead, state=OutboxState.PENDING.value, attempts=0, next_attempt_at=now or utcnow(),
        )

    async def stats(self, session: AsyncSession, now: datetime | None = None) -> OutboxStats:
        counts = await session.execute(select(OutboxRow.state, func.count()).group_by(OutboxRow.state))
        depth = dict.fromkeys(OutboxState, 0)
        for state, count in counts.all():
            depth[OutboxState(state)] = count
        oldest = (
            await session.execute(
                select(func.min(OutboxRow.created_at)).where(OutboxRow.state == OutboxState.PENDING.value)
            )
        ).scalar_one()
        age = None if oldest is None else (now or utcnow()) - oldest
        return OutboxStats(depth=depth, oldest_pending_age=age)

    async def get(self, session: AsyncSession, entry_id: int) -> OutboxEntry | None:
        row = await fetch_one(session, OutboxRow, OutboxRow.id == entry_id)
        return None if row is None else _from_row(row)
