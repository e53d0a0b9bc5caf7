from __future__ import annotations

import asyncio
import hashlib
import re
from datetime import UTC, datetime, timedelta

import pytest
from bot.store import (
    InviteExpiredError,
    InviteNotFoundError,
    InviteRevokedError,
    Invites,
    InviteUsedError,
    Role,
)
from sqlalchemy import text

from tests.store.dbtools import ScratchDatabase

invites = Invites()
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


async def test_an_invite_is_redeemed_once(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        issued = await invites.create(session, Role.TECHNICIAN, "joao", ttl=DAY, now=T0)
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", issued.code)
    assert issued.invite.expires_at == T0 + DAY and issued.invite.used_at is None

    async with database.transaction() as session:
        used = await invites.redeem(session, issued.code, chat_id=-100123, now=T0 + timedelta(hours=1))
    assert used.role is Role.TECHNICIAN and used.system_user == "joao" and used.used_by_chat == -100123

    async with database.transaction() as session:
        with pytest.raises(InviteUsedError):
            await invites.redeem(session, issued.code, chat_id=5, now=T0 + timedelta(hours=2))


async def test_the_code_is_never_stored_in_clear(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        issued = await invites.create(session, Role.STAFF, "maria", now=T0)
    async with database.session() as session:
        rows = (await session.execute(text("SELECT * FROM invites"))).all()
    stored = repr(rows)
    assert issued.code not in stored
    assert hashlib.sha256(issued.code.encode()).hexdigest() in stored


async def test_expired_revoked_and_unknown_codes_are_refused(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        expiring = await invites.create(session, Role.STAFF, "ana", ttl=DAY, now=T0)
        revoked = await invites.create(session, Role.STAFF, "bia", ttl=DAY, now=T0)
        assert await invites.revoke(session, revoked.invite.id, now=T0)
        assert not await invites.revoke(session, revoked.invite.id, now=T0)

    async with database.transaction() as session:
        with pytest.raises(InviteExpiredError):
            await invites.redeem(session, expiring.code, chat_id=1, now=T0 + DAY)
        with pytest.raises(InviteRevokedError):
            await invites.redeem(session, revoked.code, chat_id=1, now=T0)
        with pytest.raises(InviteNotFoundError):
            await invites.redeem(session, "not-a-code", chat_id=1, now=T0)


async def test_list_active_and_revoke(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        kept = await invites.create(session, Role.STAFF, "kept", ttl=DAY, now=T0)
        used = await invites.create(session, Role.STAFF, "used", ttl=DAY, now=T0)
        await invites.create(session, Role.STAFF, "short", ttl=timedelta(hours=1), now=T0)
        await invites.redeem(session, used.code, chat_id=3, now=T0)
        assert not await invites.revoke(session, used.invite.id)  # a used invite stays used
        active = await invites.list_active(session, now=T0 + timedelta(hours=2))
    assert [invite.system_user for invite in active] == ["kept"] and active[0].id == kept.invite.id


async def test_subscribers_are_not_invited(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        with pytest.raises(ValueError, match="subscribers"):
            await invites.create(session, Role.SUBSCRIBER, "x")


async def test_two_chats_racing_for_one_code_one_wins(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        issued = await invites.create(session, Role.TECHNICIAN, "joao", now=T0)

    async def redeem(chat_id: int) -> str:
        try:
            async with database.transaction() as session:
                await invites.redeem(session, issued.code, chat_id=chat_id, now=T0)
        except InviteUsedError:
            return "used"
        return "won"

    assert sorted(await asyncio.gather(redeem(1), redeem(2))) == ["used", "won"]
