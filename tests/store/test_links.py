from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from bot.store import LinkAttempts, Links, Proof, Role
from bot.store.models import LinkRow
from sqlalchemy.exc import IntegrityError

from tests.store.dbtools import ScratchDatabase

links = Links()
attempts = LinkAttempts()
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


async def test_link_read_choose_contract_and_unlink(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        assert await links.active(session, 1) is None
        link = await links.link(
            session, 1, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=500, at=T0,
        )
    assert link.customer_code == 500 and link.proof is Proof.CONTACT_PHONE and link.proved_at == T0

    async with database.transaction() as session:
        assert await links.choose_contract(session, 1, 7001)
        active = await links.active(session, 1)
        assert active is not None and active.contract == 7001
        assert await links.unlink(session, 1, at=T0 + timedelta(hours=1))
        assert not await links.unlink(session, 1)
        assert await links.active(session, 1) is None
        assert not await links.choose_contract(session, 1, 7002)


async def test_one_active_link_per_chat(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        await links.link(session, 1, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=500)
        second = await links.link(
            session, 1, role=Role.SUBSCRIBER, proof=Proof.PPPOE_PASSWORD, authentication_id=33,
            customer_code=501,
        )
        assert await links.active(session, 1) == second
        assert await links.count(session) == 1

    with pytest.raises(IntegrityError):  # the database itself refuses a second active link
        async with database.transaction() as session:
            session.add(LinkRow(chat_id=1, role="subscriber", proof="invite", customer_code=9, proved_at=T0))


async def test_chats_of_a_customer_and_counts(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        await links.link(session, 1, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=500)
        await links.link(session, 2, role=Role.SUBSCRIBER, proof=Proof.PPPOE_PASSWORD, customer_code=500)
        await links.link(session, 3, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=600)
        await links.link(session, 4, role=Role.TECHNICIAN, proof=Proof.INVITE, system_user="joao")
        await links.unlink(session, 2)

    async with database.session() as session:
        assert await links.chats_for_customer(session, 500) == [1]
        assert await links.chats_for_customer(session, 999) == []
        assert await links.count(session) == 3
        assert await links.count(session, Role.SUBSCRIBER) == 2
        assert await links.count(session, Role.STAFF) == 0


async def test_a_link_needs_something_to_link_to(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        with pytest.raises(ValueError, match="needs a customer code"):
            await links.link(session, 1, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE)


async def test_failed_attempts_are_counted_in_a_window(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        for minutes in (0, 10, 50, 70):
            await attempts.record(session, 1, succeeded=False, at=T0 + timedelta(minutes=minutes))
        await attempts.record(session, 1, succeeded=True, at=T0 + timedelta(minutes=71))
        await attempts.record(session, 2, succeeded=False, at=T0 + timedelta(minutes=71))

    now = T0 + timedelta(minutes=75)
    async with database.transaction() as session:
        assert await attempts.failures_since(session, 1, now - timedelta(hours=1)) == 2  # 50 and 70
        assert await attempts.failures_since(session, 1, T0) == 4
        assert await attempts.failures_since(session, 3, T0) == 0
        assert await attempts.prune(session, before=T0 + timedelta(minutes=30)) == 2
        assert await attempts.failures_since(session, 1, T0) == 2


async def reserve(database: ScratchDatabase, chat_id: int, target: str | None, **limits: int) -> int | None:
    """One reservation in a transaction of its own, as a turn makes it before asking the ISP."""
    async with database.transaction() as session:
        reserved = await attempts.reserve(
            session, chat_id, target, since=T0, at=T0 + timedelta(minutes=1),
            chat_limit=limits.get("chat_limit", 5), target_limit=limits.get("target_limit", 10),
        )
    return None if reserved is None else reserved.id


async def test_a_reservation_counts_as_a_failure_until_settled_and_is_refused_at_a_limit(
    database: ScratchDatabase,
) -> None:
    async with database.transaction() as session:
        first = await attempts.reserve(session, 1, "login:x", since=T0, at=T0, chat_limit=2, target_limit=3)
    assert first is not None and (first.chat_failures, first.target_failures) == (1, 1)
    async with database.transaction() as session:
        assert await attempts.failures_since(session, 1, T0) == 1
        await attempts.settle(session, first.id, succeeded=True)
        assert await attempts.failures_since(session, 1, T0) == 0
    assert await reserve(database, 1, "login:x", chat_limit=2, target_limit=3) is not None
    assert await reserve(database, 1, "login:y", chat_limit=2, target_limit=3) is not None
    assert await reserve(database, 1, "login:x", chat_limit=2, target_limit=3) is None  # the chat's 2
    assert await reserve(database, 1, None, chat_limit=2, target_limit=3) is None
    for _ in range(2):
        assert await reserve(database, 2, "login:x", chat_limit=2, target_limit=3) is not None
    assert await reserve(database, 3, "login:x", chat_limit=2, target_limit=3) is None  # the target's 3
    async with database.transaction() as session:
        assert await attempts.target_failures_since(session, "login:x", T0) == 3  # the settled one is not
        assert await attempts.failures_since(session, 1, T0) == 2
    released = await reserve(database, 4, "login:z")
    assert released is not None
    async with database.transaction() as session:
        assert await attempts.release(session, [released]) == 1
        assert await attempts.target_failures_since(session, "login:z", T0) == 0


@pytest.mark.parametrize("chats", [1, 25], ids=["one chat", "25 chats"])
async def test_25_simultaneous_reservations_get_no_more_than_the_limit(database: ScratchDatabase, chats: int) -> None:
    reserved = await asyncio.gather(*(
        reserve(database, 100 + n % chats, "login:maria", chat_limit=5 if chats == 1 else 99, target_limit=10)
        for n in range(25)
    ))
    granted = [r for r in reserved if r is not None]
    assert len(granted) == (5 if chats == 1 else 10) and len(set(granted)) == len(granted)
    async with database.transaction() as session:
        assert await attempts.target_failures_since(session, "login:maria", T0) == len(granted)
