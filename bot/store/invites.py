"""Single-use, expiring invitations through which technicians and staff link their chats.

Only a SHA-256 of each code is stored: a leaked database does not hand out invitations. A plain
hash is enough because codes are 128 random bits, not guessable passwords.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.enums import Role
from bot.store.errors import InviteExpiredError, InviteNotFoundError, InviteRevokedError, InviteUsedError
from bot.store.models import InviteRow
from bot.store.sql import execute_rowcount, fetch_one
from bot.store.types import utcnow

# 16 bytes → 22 characters of [A-Za-z0-9_-], which fits a Telegram /start deep-link parameter.
CODE_BYTES = 16
DEFAULT_TTL = timedelta(hours=24)


def hash_code(code: str) -> str:
    return hashlib.sha256(code.strip().encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Invite:
    id: int
    role: Role
    system_user: str
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None
    used_by_chat: int | None
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class IssuedInvite:
    """The code exists only here, once: hand it to the person, it cannot be read back later."""

    code: str
    invite: Invite


def _from_row(row: InviteRow) -> Invite:
    return Invite(
        id=row.id, role=Role(row.role), system_user=row.system_user, created_at=row.created_at,
        expires_at=row.expires_at, used_at=row.used_at, used_by_chat=row.used_by_chat,
        revoked_at=row.revoked_at,
    )


class Invites:
    async def create(
        self, session: AsyncSession, role: Role, system_user: str, ttl: timedelta = DEFAULT_TTL,
        now: datetime | None = None,
    ) -> IssuedInvite:
        if role is Role.SUBSCRIBER:
            raise ValueError("subscribers link with proof of identity, not with invites")
        now = now or utcnow()
        code = secrets.token_urlsafe(CODE_BYTES)
        row = InviteRow(
            code_hash=hash_code(code), role=role.value, system_user=system_user, created_at=now,
            expires_at=now + ttl,
        )
        session.add(row)
        await session.flush()
        return IssuedInvite(code=code, invite=_from_row(row))

    async def redeem(
        self, session: AsyncSession, code: str, chat_id: int, now: datetime | None = None,
    ) -> Invite:
        """Use the invite for ``chat_id``; raises an InviteError subclass saying why it cannot be.

        A single conditional UPDATE decides, so two chats racing for one code cannot both win.
        """
        now = now or utcnow()
        code_hash = hash_code(code)
        claim = (
            update(InviteRow)
            .where(
                InviteRow.code_hash == code_hash, InviteRow.used_at.is_(None), InviteRow.revoked_at.is_(None),
                InviteRow.expires_at > now,
            )
            .values(used_at=now, used_by_chat=chat_id)
        )
        won = await execute_rowcount(session, claim) == 1
        row = await fetch_one(session, InviteRow, InviteRow.code_hash == code_hash)
        if row is None:
            raise InviteNotFoundError("no such invite")
        if won:
            return _from_row(row)
        if row.revoked_at is not None:
            raise InviteRevokedError(f"invite {row.id} was revoked")
        if row.used_at is not None:
            raise InviteUsedError(f"invite {row.id} was used already")
        raise InviteExpiredError(f"invite {row.id} expired at {row.expires_at.isoformat()}")

    async def revoke(self, session: AsyncSession, invite_id: int, now: datetime | None = None) -> bool:
        """Withdraw an unused invite; False when it is unknown, used or revoked already."""
        statement = (
            update(InviteRow)
            .where(InviteRow.id == invite_id, InviteRow.used_at.is_(None), InviteRow.revoked_at.is_(None))
            .values(revoked_at=now or utcnow())
        )
        return await execute_rowcount(session, statement) == 1

    async def list_active(self, session: AsyncSession, now: datetime | None = None) -> list[Invite]:
        """Invites that can still be redeemed, oldest first."""
        statement = (
            select(InviteRow)
            .where(
                InviteRow.used_at.is_(None), InviteRow.revoked_at.is_(None),
                InviteRow.expires_at > (now or utcnow()),
            )
            .order_by(InviteRow.id)
            .execution_options(populate_existing=True)
        )
        return [_from_row(row) for row in (await session.execute(statement)).scalars()]
