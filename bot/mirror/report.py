"""What ``ispbot mirror status`` shows and ``ispbot mirror retry`` changes, read from the outbox.

Content is never selected here: it is what people said (personal data); the operator sees ids,
tickets, origins, attempts, dates and the last error only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store import Origin, Outbox, OutboxState
from bot.store.models import OutboxRow


@dataclass(frozen=True, slots=True)
class DeadEntry:
    id: int
    ticket_id: int
    origin: Origin
    attempts: int
    created_at: datetime
    last_error: str | None


async def dead_entries(session: AsyncSession, ticket_id: int | None = None) -> list[DeadEntry]:
    """Entries in the dead state (of one ticket, or all), oldest first."""
    statement = (
        select(
            OutboxRow.id, OutboxRow.ticket_id, OutboxRow.origin, OutboxRow.attempts, OutboxRow.created_at,
            OutboxRow.last_error,
        )
        .where(OutboxRow.state == OutboxState.DEAD.value)
        .order_by(OutboxRow.id)
    )
    if ticket_id is not None:
        statement = statement.where(OutboxRow.ticket_id == ticket_id)
    rows = (await session.execute(statement)).all()
    return [
        DeadEntry(id=row.id, ticket_id=row.ticket_id, origin=Origin(row.origin), attempts=row.attempts,
                  created_at=row.created_at, last_error=row.last_error)
        for row in rows
    ]


async def requeue(session: AsyncSession, ticket_id: int | None = None, now: datetime | None = None) -> int:
    """Dead entries (of one ticket, or all) back in line with a fresh attempt count; how many."""
    ids = None if ticket_id is None else [entry.id for entry in await dead_entries(session, ticket_id)]
    if ids == []:
        return 0
    return await Outbox().requeue_dead(session, ids, now=now)
