"""The desk jobs: calls to the staff desk (open a conversation, post, close) a turn asked for,
written in its transaction and carried out after it committed (``bot.desks.worker``).

A chat's jobs are one FIFO queue (``bot.store.queue``): a post never overtakes the opening of its
conversation, several workers never run one chat's jobs at once. A claimed job is leased; a worker
that dies mid-job leaves it to be claimed again when the lease ends (at least once). A job that
failed waits with its chat's later jobs behind it; one refused for good is dead, and the chat goes on.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.enums import DeskJobKind, DeskJobState
from bot.store.models import DeskJobRow
from bot.store.queue import OrderedQueue
from bot.store.sql import execute_rowcount
from bot.store.types import utcnow

DEFAULT_LEASE = timedelta(minutes=2)


@dataclass(frozen=True, slots=True)
class NewDeskJob:
    chat_id: int
    handoff_id: int | None
    kind: DeskJobKind
    payload: dict[str, Any]  # JSON: the job's fields and the chat it is about (``bot.desks.jobs``)


@dataclass(frozen=True, slots=True)
class DeskJobEntry:
    id: int
    chat_id: int
    handoff_id: int | None
    kind: DeskJobKind
    payload: dict[str, Any]
    attempts: int  # how many times it was claimed


@dataclass(frozen=True, slots=True)
class DeadDeskJob:
    """A job given up on, as the operator sees it (``ispbot desk``): never what it would have posted."""

    id: int
    chat_id: int
    kind: DeskJobKind
    attempts: int
    created_at: datetime
    last_error: str | None


def _from_row(row: Row[Any]) -> DeskJobEntry:
    return DeskJobEntry(
        id=row.id, chat_id=row.chat_id, handoff_id=row.handoff_id, kind=DeskJobKind(row.kind), payload=row.payload,
        attempts=row.attempts,
    )


_queue = OrderedQueue(DeskJobRow, key="id", group="chat_id", due="next_attempt_at", pending=DeskJobState.PENDING)


class DeskJobs:
    def __init__(self, lease: timedelta = DEFAULT_LEASE) -> None:
        self.lease = lease

    async def enqueue(self, session: AsyncSession, jobs: Collection[NewDeskJob], now: datetime | None = None) -> None:
        """Queue jobs in the given order (one INSERT each keeps the ids, the order, increasing)."""
        now = now or utcnow()
        for job in jobs:
            session.add(DeskJobRow(
                chat_id=job.chat_id, handoff_id=job.handoff_id, kind=job.kind.value, payload=job.payload,
                state=DeskJobState.PENDING.value, attempts=0, next_attempt_at=now, created_at=now,
            ))
            await session.flush()

    async def claim(
        self, session: AsyncSession, limit: int, now: datetime | None = None, *, per_chat: int | None = None,
    ) -> list[DeskJobEntry]:
        """Lease up to ``limit`` due jobs, in id order, each chat's as an unbroken prefix."""
        rows = await _queue.claim(session, limit, now or utcnow(), self.lease, per_group=per_chat)
        return [_from_row(row) for row in rows]

    async def done(self, session: AsyncSession, ids: Collection[int], now: datetime | None = None) -> int:
        return await _queue.set(session, ids, state=DeskJobState.DONE.value, done_at=now or utcnow(), last_error=None)

    async def retry(self, session: AsyncSession, ids: Collection[int], at: datetime, error: str) -> int:
        """Try again from ``at``; the chat's later jobs wait behind these."""
        return await _queue.set(session, ids, next_attempt_at=at, last_error=error)

    async def dead(self, session: AsyncSession, ids: Collection[int], error: str) -> int:
        """Give up on these jobs; their chat's later jobs go ahead without them."""
        return await _queue.set(session, ids, state=DeskJobState.DEAD.value, last_error=error)

    async def extend(self, session: AsyncSession, ids: Collection[int], until: datetime) -> int:
        """Keep the lease of jobs still in hand (a desk slow to answer) until ``until``."""
        if not ids:
            return 0
        statement = (
            update(DeskJobRow)
            .where(DeskJobRow.id.in_(ids), DeskJobRow.state == DeskJobState.PENDING.value)
            .values(next_attempt_at=until)
        )
        return await execute_rowcount(session, statement)

    async def release(self, session: AsyncSession, ids: Collection[int], now: datetime | None = None) -> int:
        """Hand back claimed jobs not worked on (a stopping worker), due at once."""
        return await _queue.release(session, ids, now or utcnow())

    async def counts(self, session: AsyncSession) -> dict[DeskJobState, int]:
        rows = await session.execute(select(DeskJobRow.state, func.count()).group_by(DeskJobRow.state))
        found = dict.fromkeys(DeskJobState, 0)
        for state, count in rows.all():
            found[DeskJobState(state)] = count
        return found

    async def dead_jobs(self, session: AsyncSession) -> list[DeadDeskJob]:
        """The jobs given up on, oldest first."""
        statement = select(DeskJobRow).where(DeskJobRow.state == DeskJobState.DEAD.value).order_by(DeskJobRow.id)
        return [
            DeadDeskJob(row.id, row.chat_id, DeskJobKind(row.kind), row.attempts, row.created_at, row.last_error)
            for row in (await session.execute(statement)).scalars()
        ]

    async def requeue(self, session: AsyncSession, chat_id: int | None = None, now: datetime | None = None) -> int:
        """Dead jobs (all, or one chat's) back in line, due now and with their tries counted afresh;
        within a chat they keep their order (the opening before its posts)."""
        statement = update(DeskJobRow).where(DeskJobRow.state == DeskJobState.DEAD.value)
        if chat_id is not None:
            statement = statement.where(DeskJobRow.chat_id == chat_id)
        values = {"state": DeskJobState.PENDING.value, "attempts": 0, "next_attempt_at": now or utcnow(),
                  "last_error": None}
        return await execute_rowcount(session, statement.values(**values))
