"""Linking attempts, for rate limiting guesses: per chat, and per person tried (the target) across
every chat, so that many chats of one attacker get no more tries at one person than one chat.

A target is a keyed hash with its kind (``tax_id:...``, ``login:...``, see
``flows.identity.target_ref``): the table never holds a tax id or a login.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from bot.store.models import LinkAttemptRow
from bot.store.sql import core_execute, execute_rowcount
from bot.store.types import utcnow

# Every turn of a chat not linked yet asks it: on the table (Core), not the mapped class, so that
# it skips the ORM's result machinery (see bot.store.chats).
_attempts = LinkAttemptRow.metadata.tables[LinkAttemptRow.__tablename__]
_FAILED = _attempts.c.succeeded.is_(False)
_FAILURES = select(func.count()).select_from(_attempts).where(
    _attempts.c.chat_id == bindparam("b_chat_id"), _attempts.c.at >= bindparam("b_since"), _FAILED,
)
_TARGET_FAILURES = select(func.count()).select_from(_attempts).where(
    _attempts.c.target == bindparam("b_target"), _attempts.c.at >= bindparam("b_since"), _FAILED,
)


@dataclass(frozen=True)
class LinkLock:
    """A chat (``chat_id``) or a person (``target``) with enough recent failures to be locked."""

    chat_id: int | None
    target: str | None
    failures: int
    last_failure: datetime


class LinkAttempts:
    async def record(
        self, session: AsyncSession, chat_id: int, succeeded: bool, at: datetime | None = None,
        target: str | None = None,
    ) -> None:
        session.add(LinkAttemptRow(chat_id=chat_id, succeeded=succeeded, at=at or utcnow(), target=target))
        await session.flush()

    async def failures_since(self, session: AsyncSession, chat_id: int, since: datetime) -> int:
        """Asked on every turn of a chat not linked yet (is linking locked?)."""
        return int((await core_execute(session, _FAILURES, {"b_chat_id": chat_id, "b_since": since})).scalar_one())

    async def target_failures_since(self, session: AsyncSession, target: str, since: datetime) -> int:
        """Failures of every chat at the person ``target`` names."""
        return int((await core_execute(session, _TARGET_FAILURES, {"b_target": target, "b_since": since})).scalar_one())

    async def locks(
        self, session: AsyncSession, since: datetime, *, chat_limit: int, target_limit: int,
    ) -> list[LinkLock]:
        """The chats with ``chat_limit`` failures since ``since`` and the targets with ``target_limit``."""
        chats = await self._over(session, LinkAttemptRow.chat_id, since, chat_limit)
        targets = await self._over(session, LinkAttemptRow.target, since, target_limit)
        return [LinkLock(int(key), None, failures, last) for key, failures, last in chats] + [
            LinkLock(None, str(key), failures, last) for key, failures, last in targets
        ]

    @staticmethod
    async def _over(
        session: AsyncSession, column: InstrumentedAttribute[Any], since: datetime, limit: int,
    ) -> list[tuple[Any, int, datetime]]:
        statement = (
            select(column, func.count(), func.max(LinkAttemptRow.at))
            .where(LinkAttemptRow.at >= since, LinkAttemptRow.succeeded.is_(False), column.is_not(None))
            .group_by(column)
            .having(func.count() >= limit)
            .order_by(func.max(LinkAttemptRow.at))
        )
        return [(key, int(failures), last) for key, failures, last in (await session.execute(statement)).all()]

    async def clear(
        self, session: AsyncSession, *, chat_id: int | None = None, target: str | None = None,
    ) -> int:
        """Forget the failures of a chat, of a target, or (neither given) all of them: linking is open
        again at once. Returns how many failures were forgotten."""
        statement = delete(LinkAttemptRow).where(LinkAttemptRow.succeeded.is_(False))
        if chat_id is not None:
            statement = statement.where(LinkAttemptRow.chat_id == chat_id)
        if target is not None:
            statement = statement.where(LinkAttemptRow.target == target)
        return await execute_rowcount(session, statement)

    async def prune(self, session: AsyncSession, before: datetime) -> int:
        """Forget attempts older than any rate-limit window; returns how many were deleted."""
        return await execute_rowcount(session, delete(LinkAttemptRow).where(LinkAttemptRow.at < before))
