"""Contacts in the database: protocols unique whatever process opens them, a history by customer or
chat, deadlines, and the legal term (``bot.store.contacts``)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.store import Contacts, Database

from tests.store.dbtools import ScratchDatabase

T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


async def test_two_processes_opening_contacts_at_once_never_share_a_protocol(database: ScratchDatabase) -> None:
    other = database.reopen()  # a second bot process on the same database
    contacts = Contacts()

    async def open_many(handle: Database, first_chat: int) -> list[str]:
        protocols = []
        for n in range(20):
            async with handle.transaction() as session:
                contact = await contacts.begin(session, first_chat + n, day="20261127", customer_code=None, at=T0)
            protocols.append(contact.protocol)
        return protocols

    try:
        mine, theirs = await asyncio.gather(open_many(database, 1000), open_many(other, 2000))
    finally:
        await other.dispose()
    every = mine + theirs
    assert len(set(every)) == 40
    assert all(protocol.startswith("20261127") and len(protocol) == 14 for protocol in every)
    async with database.transaction() as session:
        for protocol in every:
            found = await contacts.by_protocol(session, protocol)
            assert found is not None and found.protocol == protocol


async def test_a_history_by_customer_is_newest_first_and_the_term_drops_the_oldest(database: ScratchDatabase) -> None:
    contacts = Contacts()
    async with database.transaction() as session:
        old = await contacts.begin(session, 1, day="20231127", customer_code=7, at=T0 - timedelta(days=3 * 366))
        new = await contacts.begin(session, 1, day="20261127", customer_code=None, at=T0)
        await contacts.identify(session, new.id, 7)
        await contacts.record(session, new.id, "bills", at=T0)
        await contacts.record(session, new.id, "new_ticket", "ticket_opened", at=T0, ticket_id=42, reference="P42",
                              deadline="complaint", due_at=T0 + timedelta(days=7))
        await contacts.begin(session, 2, day="20261127", customer_code=8, at=T0)
    async with database.transaction() as session:
        history = await contacts.history(session, customer_code=7)
        assert [c.protocol for c in history] == [new.protocol, old.protocol]
        assert history[0].subjects == ["bills", "new_ticket"]
        assert [(e.outcome, e.ticket_id) for e in history[0].outcomes] == [("ticket_opened", 42)]
        assert await contacts.count_deadlines(session, T0, T0 + timedelta(days=2)) == (1, 0, 0)
        assert await contacts.settle_ticket(session, 42, T0 + timedelta(days=1)) == 1
        assert await contacts.count_deadlines(session, T0, T0 + timedelta(days=2)) == (0, 0, 0)
        assert await contacts.purge(session, T0 - timedelta(days=3 * 365)) == 1
    async with database.transaction() as session:
        assert [c.protocol for c in await contacts.history(session, customer_code=7)] == [new.protocol]
        assert [c.chat_id for c in await contacts.history(session, chat_id=2)] == [2]
