"""Conversations handed to the staff. At most one open handoff per chat; each has the desk's reference
of its conversation once the desk opened it. Kept in the database, so a restart loses no open handoff."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import HandoffRow
from bot.store.sql import execute_rowcount
from bot.store.types import utcnow

# The ticket and customer of a handoff of someone linked to no customer (a prospect, a person who
# could not prove who they are): the ISP has no record to hang a ticket on, so there is neither.
UNIDENTIFIED = 0


@dataclass(frozen=True, slots=True)
class StaffHandoff:
    id: int
    chat_id: int
    ticket_id: int
    customer_code: int
    desk_ref: str | None  # the desk's conversation (a forum topic, a Chatwoot conversation)
    opened_at: datetime
    answered_at: datetime | None
    waiting_told_at: datetime | None

    @property
    def identified(self) -> bool:
        """Whether the person is a linked customer with a ticket (else nothing reaches the ISP)."""
        return UNIDENTIFIED not in (self.customer_code, self.ticket_id)


def _from_row(row: HandoffRow) -> StaffHandoff:
    return StaffHandoff(
        id=row.id, chat_id=row.chat_id, ticket_id=row.ticket_id, customer_code=row.customer_code,
        desk_ref=row.desk_ref, opened_at=row.opened_at, answered_at=row.answered_at,
        waiting_told_at=row.waiting_told_at,
    )


_open = HandoffRow.closed_at.is_(None)


class Handoffs:
    async def open(
        self, session: AsyncSession, chat_id: int, *, ticket_id: int, customer_code: int, at: datetime | None = None,
    ) -> tuple[StaffHandoff, bool]:
        """The chat's open handoff, or a new one; True when it is new. A person who proved who they are
        since their handoff opened unidentified has it given their ticket (True: the same topic, where
        the staff already speak with them, gets the customer's card)."""
        current = await self.of_chat(session, chat_id)
        if current is not None and (current.identified or customer_code == UNIDENTIFIED):
            return current, False
        if current is not None:
            statement = update(HandoffRow).where(HandoffRow.id == current.id)
            await execute_rowcount(session, statement.values(ticket_id=ticket_id, customer_code=customer_code))
            return replace(current, ticket_id=ticket_id, customer_code=customer_code), True
        row = HandoffRow(chat_id=chat_id, ticket_id=ticket_id, customer_code=customer_code, opened_at=at or utcnow())
        session.add(row)
        await session.flush()
        return _from_row(row), True

    async def of_chat(self, session: AsyncSession, chat_id: int) -> StaffHandoff | None:
        statement = select(HandoffRow).where(HandoffRow.chat_id == chat_id, _open).order_by(HandoffRow.id.desc())
        row = (await session.execute(statement.limit(1))).scalar_one_or_none()
        return None if row is None else _from_row(row)

    async def of_desk_ref(self, session: AsyncSession, ref: str) -> StaffHandoff | None:
        """The open handoff whose desk conversation is ``ref``."""
        statement = select(HandoffRow).where(HandoffRow.desk_ref == ref, _open).order_by(HandoffRow.id.desc())
        row = (await session.execute(statement.limit(1))).scalar_one_or_none()
        return None if row is None else _from_row(row)

    async def get(self, session: AsyncSession, handoff_id: int) -> StaffHandoff | None:
        row = await session.get(HandoffRow, handoff_id)
        return None if row is None else _from_row(row)

    async def set_desk_ref(self, session: AsyncSession, handoff_id: int, ref: str) -> None:
        await execute_rowcount(session, update(HandoffRow).where(HandoffRow.id == handoff_id).values(desk_ref=ref))

    async def answered(self, session: AsyncSession, handoff_id: int, at: datetime | None = None) -> None:
        statement = update(HandoffRow).where(HandoffRow.id == handoff_id, HandoffRow.answered_at.is_(None))
        await execute_rowcount(session, statement.values(answered_at=at or utcnow()))

    async def close(self, session: AsyncSession, handoff_id: int, at: datetime | None = None) -> bool:
        statement = update(HandoffRow).where(HandoffRow.id == handoff_id, _open).values(closed_at=at or utcnow())
        return await execute_rowcount(session, statement) == 1

    async def open_at_desk(self, session: AsyncSession) -> list[StaffHandoff]:
        """Open handoffs whose desk conversation is known, oldest first."""
        statement = select(HandoffRow).where(_open, HandoffRow.desk_ref.is_not(None)).order_by(HandoffRow.id)
        return [_from_row(row) for row in (await session.execute(statement)).scalars()]

    async def unanswered(self, session: AsyncSession) -> list[StaffHandoff]:
        """Open handoffs no staff member answered yet, oldest first: the queue."""
        statement = select(HandoffRow).where(_open, HandoffRow.answered_at.is_(None)).order_by(HandoffRow.opened_at)
        return [_from_row(row) for row in (await session.execute(statement)).scalars()]

    async def answer_times(
        self, session: AsyncSession, *, since: datetime, limit: int,
    ) -> list[tuple[datetime, datetime]]:
        """When recent handoffs were asked for and first answered by staff (opened, answered), newest
        first: the desk's own pace, whichever desk it is."""
        statement = (
            select(HandoffRow.opened_at, HandoffRow.answered_at)
            .where(HandoffRow.answered_at.is_not(None), HandoffRow.opened_at >= since)
            .order_by(HandoffRow.opened_at.desc()).limit(limit)
        )
        return [(opened, answered) for opened, answered in (await session.execute(statement)).all()
                if answered is not None]

    async def told_waiting(self, session: AsyncSession, handoff_id: int, at: datetime | None = None) -> bool:
        """Mark the subscriber told their place in line; False when another process already did."""
        statement = (
            update(HandoffRow)
            .where(HandoffRow.id == handoff_id, HandoffRow.waiting_told_at.is_(None))
            .values(waiting_told_at=at or utcnow())
        )
        return await execute_rowcount(session, statement) == 1

    async def count_open(self, session: AsyncSession) -> int:
        """How many conversations are with the staff now (for the ``ispbot_handoffs_open`` gauge)."""
        return int((await session.execute(select(func.count()).select_from(HandoffRow).where(_open))).scalar_one())
