"""Linking attempts, for rate limiting guesses: per chat, and per person tried (the target) across
every chat, so that many chats of one attacker get no more tries at one person than one chat.

A target is a keyed hash with its kind (``tax_id:...``, ``login:...``, see
``flows.identity.target_ref``): the table never holds a tax id or a login.

An attempt that asks the ISP is counted before it is made (``reserve``): in a short transaction of its
own, committed before the ISP is asked, a failure row is written only while the chat and the target
are under their limits, the count and the write atomic (on PostgreSQL under advisory locks on the
chat and the target, on SQLite in one statement behind the process's write gate and SQLite's single
writer). So 25 simultaneous guesses at one login get no more ISP checks than the limit allows, where
counting first and writing after the check let each of them see the same count. The row stays a
failure unless the turn settles it as a success (``settle``); a turn that ends without an answer
(the ISP down, a lost save) takes it back (``release``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Integer, String, bindparam, delete, false, func, insert, select, text, true, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from bot.store.models import LinkAttemptRow
from bot.store.sql import core_execute, dialect_name, execute_rowcount
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

# Count and write in one statement: the row is inserted only while both counts are under their limits.
_B_CHAT = bindparam("b_chat_id", type_=BigInteger)
_B_TARGET = bindparam("b_target", type_=String(64))
_B_SINCE = bindparam("b_since", type_=_attempts.c.at.type)
_CHAT_COUNT = (
    select(func.count()).select_from(_attempts)
    .where(_attempts.c.chat_id == _B_CHAT, _attempts.c.at >= _B_SINCE, _FAILED).scalar_subquery()
)
_TARGET_COUNT = (
    select(func.count()).select_from(_attempts)
    .where(_attempts.c.target == _B_TARGET, _attempts.c.at >= _B_SINCE, _FAILED).scalar_subquery()
)
_CHAT_LIMIT = bindparam("b_chat_limit", type_=Integer)
_TARGET_LIMIT = bindparam("b_target_limit", type_=Integer)
_RESERVED_COLUMNS = ["chat_id", "succeeded", "at", "target"]
_RESERVED_VALUES = (_B_CHAT, false(), bindparam("b_at", type_=_attempts.c.at.type), _B_TARGET)
_RESERVE_CHAT = insert(_attempts).from_select(
    _RESERVED_COLUMNS, select(*_RESERVED_VALUES).where(_CHAT_COUNT < _CHAT_LIMIT),
).returning(_attempts.c.id)
_RESERVE_TARGET = insert(_attempts).from_select(
    _RESERVED_COLUMNS,
    select(*_RESERVED_VALUES).where(_CHAT_COUNT < _CHAT_LIMIT, _TARGET_COUNT < _TARGET_LIMIT),
).returning(_attempts.c.id)
_COUNTS = select(_CHAT_COUNT, _TARGET_COUNT)
_LOCK = text("SELECT pg_advisory_xact_lock(:key)")


def _lock_key(kind: str, value: object) -> int:
    """A PostgreSQL advisory lock key (a signed 64-bit integer) for a chat or a target."""
    digest = hashlib.blake2b(f"ispbot link attempt {kind} {value}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@dataclass(frozen=True)
class Reservation:
    """An attempt counted before it is made: its row, and the failures in the window this one
    included (of the chat, and of the target when it has one), for telling when it engaged a lock."""

    id: int
    chat_failures: int
    target_failures: int | None


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

    async def reserve(
        self, session: AsyncSession, chat_id: int, target: str | None, *, since: datetime, chat_limit: int,
        target_limit: int, at: datetime | None = None,
    ) -> Reservation | None:
        """Count an attempt of ``chat_id`` at ``target`` before it is made: written as a failure (a
        success only once ``settle`` says so) unless the chat has ``chat_limit`` failures since
        ``since`` or the target ``target_limit``; then None, and nothing written.

        Run it in a transaction of its own and commit it before the attempt: it holds the locks that
        make the count and the write one (never across an ISP call).
        """
        if dialect_name(session) == "postgresql":
            # Always chat first, then target: two reservations never wait on each other in a circle.
            await session.execute(_LOCK, {"key": _lock_key("chat", chat_id)})
            if target is not None:
                await session.execute(_LOCK, {"key": _lock_key("target", target)})
        params = {
            "b_chat_id": chat_id, "b_target": target, "b_since": since, "b_at": at or utcnow(),
            "b_chat_limit": chat_limit, "b_target_limit": target_limit,
        }
        statement = _RESERVE_CHAT if target is None else _RESERVE_TARGET
        reserved = (await session.execute(statement, params)).scalar_one_or_none()
        if reserved is None:
            return None
        # Still under the locks (SQLite: the write lock, taken by the insert): exact counts.
        chat_failures, target_failures = (await session.execute(_COUNTS, params)).one()
        return Reservation(int(reserved), int(chat_failures), None if target is None else int(target_failures))

    async def settle(self, session: AsyncSession, reservation: int, succeeded: bool) -> None:
        """Say how a reserved attempt went (it was counted as a failure until now)."""
        if succeeded:
            await execute_rowcount(session, update(LinkAttemptRow).where(LinkAttemptRow.id == reservation).values(
                succeeded=true(),
            ))

    async def release(self, session: AsyncSession, reservations: list[int]) -> int:
        """Take back reserved attempts that were never answered (the turn failed): not counted at all."""
        return await execute_rowcount(session, delete(LinkAttemptRow).where(LinkAttemptRow.id.in_(reservations)))

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
