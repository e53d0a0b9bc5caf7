"""Linking attempts per chat, for rate limiting guesses."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import LinkAttemptRow
from bot.store.sql import execute_rowcount
from bot.store.types import utcnow

# Every turn of a chat not linked yet asks it: on the table (Core), not the mapped class, so that
# it skips the ORM's result machinery (see bot.store.chats).
_attempts = LinkAttemptRow.metadata.tables[LinkAttemptRow.__tablename__]
_FAILURES = select(func.count()).select_from(_attempts).where(
    _attempts.c.chat_id == bindparam("b_chat_id"), _attempts.c.at >= bindparam("b_since"),
    _attempts.c.succeeded.is_(False),
)


class LinkAttempts:
    async def record(
        self, session: AsyncSession, chat_id: int, succeeded: bool, at: datetime | None = None,
    ) -> None:
        session.add(LinkAttemptRow(chat_id=chat_id, succeeded=succeeded, at=at or utcnow()))
        await session.flush()

    async def failures_since(self, session: AsyncSession, chat_id: int, since: datetime) -> int:
        """Asked on every turn of a chat not linked yet (is linking locked?)."""
        return (await session.execute(_FAILURES, {"b_chat_id": chat_id, "b_since": since})).scalar_one()

    async def prune(self, session: AsyncSession, before: datetime) -> int:
        """Forget attempts older than any rate-limit window; returns how many were deleted."""
        return await execute_rowcount(session, delete(LinkAttemptRow).where(LinkAttemptRow.at < before))
