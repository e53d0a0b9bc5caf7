"""Subscribers waiting to hear that an outage (a failover event) ended."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import OutageWatchRow, TrustUnblockRow
from bot.store.sql import execute_rowcount, insert_ignore
from bot.store.types import utcnow


class OutageWatches:
    async def watch(self, session: AsyncSession, chat_id: int, event_id: int, at: datetime | None = None) -> bool:
        """Remember the chat wants news of the event; False when it asked already."""
        values = {"chat_id": chat_id, "event_id": event_id, "created_at": at or utcnow()}
        return await insert_ignore(session, OutageWatchRow, values)

    async def pending_events(self, session: AsyncSession) -> list[int]:
        """Events somebody is still waiting on."""
        statement = select(OutageWatchRow.event_id).where(OutageWatchRow.notified_at.is_(None)).distinct()
        return sorted((await session.execute(statement)).scalars())

    async def claim_watchers(self, session: AsyncSession, event_id: int, at: datetime | None = None) -> list[int]:
        """The chats waiting on the event, marked notified in the same stroke (each is told once)."""
        statement = (
            update(OutageWatchRow)
            .where(OutageWatchRow.event_id == event_id, OutageWatchRow.notified_at.is_(None))
            .values(notified_at=at or utcnow())
            .returning(OutageWatchRow.chat_id)
        )
        result = await session.execute(statement, execution_options={"synchronize_session": False})
        return sorted(result.scalars())

    async def forget(self, session: AsyncSession, chat_id: int) -> int:
        """Drop the chat's watches (the person asked their data deleted); how many."""
        return await execute_rowcount(session, delete(OutageWatchRow).where(OutageWatchRow.chat_id == chat_id))

    async def is_watching(self, session: AsyncSession, chat_id: int, event_id: int) -> bool:
        statement = select(OutageWatchRow.id).where(
            OutageWatchRow.chat_id == chat_id, OutageWatchRow.event_id == event_id,
            OutageWatchRow.notified_at.is_(None),
        )
        return (await session.execute(statement)).first() is not None


class TrustUnblocks:
    async def record(
        self, session: AsyncSession, *, customer_code: int, contract: int, chat_id: int, at: datetime | None = None,
    ) -> None:
        session.add(TrustUnblockRow(customer_code=customer_code, contract=contract, chat_id=chat_id, at=at or utcnow()))
        await session.flush()

    async def last(self, session: AsyncSession, contract: int) -> datetime | None:
        statement = select(TrustUnblockRow.at).where(TrustUnblockRow.contract == contract)
        statement = statement.order_by(TrustUnblockRow.at.desc()).limit(1)
        return (await session.execute(statement)).scalar_one_or_none()
