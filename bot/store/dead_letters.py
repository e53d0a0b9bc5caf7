"""Bot API calls the sender could not get to Telegram within its horizon (Telegram unreachable all
that time), kept for the operator: ``ispbot undelivered`` lists them and sends them again."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import DeadLetterRow
from bot.store.sql import execute_rowcount


@dataclass(frozen=True, slots=True)
class DeadLetter:
    id: int
    chat_id: int
    method: str
    params: dict[str, Any]
    error: str
    created_at: datetime


# A letter held outside a channel's window (WhatsApp's 24 hours) with no template for it: its error
# starts so, and it goes as it was once the person writes again (``DeadLetters.held``).
HELD = "held:"


def unstorable(exc: BaseException) -> bool:
    """Whether saving failed on the letter itself (a chat id past 64 bits: ``OverflowError`` from
    SQLite's driver, or under asyncpg's ``DataError`` on PostgreSQL), which no retry will change,
    rather than on the database (down, busy), which a retry may get past."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, OverflowError):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


class DeadLetters:
    async def add(
        self, session: AsyncSession, chat_id: int, method: str, params: dict[str, Any], *, error: str, now: datetime,
    ) -> int:
        row = DeadLetterRow(chat_id=chat_id, method=method, params=params, error=error[:200], created_at=now)
        session.add(row)
        await session.flush()
        return row.id

    async def all(self, session: AsyncSession, ids: Collection[int] | None = None) -> list[DeadLetter]:
        """Oldest first (a chat's in the order they were meant to arrive)."""
        statement = select(DeadLetterRow).order_by(DeadLetterRow.id)
        if ids is not None:
            statement = statement.where(DeadLetterRow.id.in_(ids))
        return [
            DeadLetter(row.id, row.chat_id, row.method, dict(row.params), row.error, row.created_at)
            for row in (await session.execute(statement)).scalars()
        ]

    async def held(self, session: AsyncSession, chat_id: int, *, since: datetime) -> list[DeadLetter]:
        """The chat's letters held outside the window (``HELD``) since ``since``, oldest first."""
        statement = (select(DeadLetterRow).where(DeadLetterRow.chat_id == chat_id, DeadLetterRow.created_at >= since,
                                                 DeadLetterRow.error.startswith(HELD, autoescape=True))
                     .order_by(DeadLetterRow.id))
        return [DeadLetter(row.id, row.chat_id, row.method, dict(row.params), row.error, row.created_at)
                for row in (await session.execute(statement)).scalars()]

    async def remove(self, session: AsyncSession, ids: Collection[int]) -> int:
        if not ids:
            return 0
        return await execute_rowcount(session, delete(DeadLetterRow).where(DeadLetterRow.id.in_(ids)))
