"""Telegram update ids already processed, so a redelivered update is not handled twice."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import ProcessedUpdateRow
from bot.store.sql import execute_rowcount, insert_ignore
from bot.store.types import utcnow


class ProcessedUpdates:
    async def mark(self, session: AsyncSession, update_id: int, at: datetime | None = None) -> bool:
        """True the first time this update is seen, False for a duplicate (also under concurrency)."""
        return await insert_ignore(
            session, ProcessedUpdateRow, {"update_id": update_id, "processed_at": at or utcnow()},
        )

    async def prune(self, session: AsyncSession, before: datetime) -> int:
        """Forget ids older than Telegram's redelivery horizon (a day is plenty)."""
        statement = delete(ProcessedUpdateRow).where(ProcessedUpdateRow.processed_at < before)
        return await execute_rowcount(session, statement)
