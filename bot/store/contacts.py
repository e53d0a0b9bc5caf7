"""Contacts: a protocol for every contact a person has with the ISP through the bot, what each was
about (the flows used) and came to (outcomes the flows record), and the deadlines of what was not
settled at once. The protocol is the date the contact began (the caller's zone) and the row's id,
so it is unique across every process on one database, and costs one INSERT. Contacts are kept for the regulation's term
(``KEPT_YEARS``) whatever else of a person is deleted; ``purge`` drops older ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.driver import Direct
from bot.store.models import ContactEventRow, ContactRow
from bot.store.sql import core_execute, execute_rowcount
from bot.store.types import utcnow

KEPT_YEARS = 3  # RGC (Anatel Resolução 765/2023): the history of contacts is kept for three years
ID_DIGITS = 6  # the id's least width in a protocol (it grows past a million contacts)

_contacts = ContactRow.metadata.tables[ContactRow.__tablename__]
_events = ContactEventRow.metadata.tables[ContactEventRow.__tablename__]
_open = (_events.c.due_at.is_not(None)) & (_events.c.settled_at.is_(None))
# What a turn may write (a contact begun, a subject or an outcome): compiled once, run on the driver.
_BEGIN = Direct(insert(_contacts).values(
    {name: bindparam(name) for name in ("day", "chat_id", "customer_code", "started_at")},
).returning(_contacts.c.id))
_EVENT_VALUES = ("contact_id", "at", "subject", "outcome", "ticket_id", "reference", "deadline", "due_at")
_RECORD = Direct(insert(_events).values({name: bindparam(name) for name in _EVENT_VALUES}))


@dataclass(frozen=True, slots=True)
class ContactEvent:
    id: int
    contact_id: int
    at: datetime
    subject: str
    outcome: str | None  # None: the subject (a flow) was used
    ticket_id: int | None = None
    reference: str | None = None
    deadline: str | None = None
    due_at: datetime | None = None
    settled_at: datetime | None = None
    warned_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Contact:
    id: int
    protocol: str
    chat_id: int
    customer_code: int | None
    started_at: datetime
    events: tuple[ContactEvent, ...] = field(default=())

    @property
    def subjects(self) -> list[str]:
        """What the contact was about, in the order first met."""
        return list(dict.fromkeys(event.subject for event in self.events))

    @property
    def outcomes(self) -> list[ContactEvent]:
        return [event for event in self.events if event.outcome is not None]


def protocol_of(day: str, contact_id: int) -> str:
    """``day`` as YYYYMMDD, then the id: ``20261127000042``."""
    return f"{day}{contact_id:0{ID_DIGITS}d}"


def parse_protocol(protocol: str) -> tuple[str, int] | None:
    """The day and id a protocol names, or None when it names none."""
    protocol = protocol.strip()
    if not protocol.isdecimal() or len(protocol) < 8 + ID_DIGITS:
        return None
    return protocol[:8], int(protocol[8:])


def _contact(row: Row[Any], events: Iterable[ContactEvent] = ()) -> Contact:
    return Contact(
        id=row.id, protocol=protocol_of(row.day, row.id), chat_id=row.chat_id, customer_code=row.customer_code,
        started_at=row.started_at, events=tuple(events),
    )


_EVENT_FIELDS = ("id", "contact_id", "at", "subject", "outcome", "ticket_id", "reference", "deadline", "due_at",
                 "settled_at", "warned_at")


def _event(row: Row[Any]) -> ContactEvent:
    return ContactEvent(**{name: getattr(row, name) for name in _EVENT_FIELDS})


class Contacts:
    async def begin(
        self, session: AsyncSession, chat_id: int, *, day: str, customer_code: int | None, at: datetime | None = None,
    ) -> Contact:
        """A new contact of ``chat_id``, begun ``at``, on ``day`` (YYYYMMDD, the ISP's calendar)."""
        at = at or utcnow()
        values = {"day": day, "chat_id": chat_id, "customer_code": customer_code, "started_at": at}
        [inserted] = await _BEGIN.rows(session, values)
        contact_id = int(inserted.id)
        return Contact(contact_id, protocol_of(day, contact_id), chat_id, customer_code, at)

    async def identify(self, session: AsyncSession, contact_id: int, customer_code: int) -> None:
        """The contact's person proved to be ``customer_code`` (linked during the contact)."""
        statement = update(_contacts).where(_contacts.c.id == contact_id, _contacts.c.customer_code.is_(None))
        await execute_rowcount(session, statement.values(customer_code=customer_code))

    async def record(
        self, session: AsyncSession, contact_id: int, subject: str, outcome: str | None = None, *,
        at: datetime | None = None, ticket_id: int | None = None, reference: str | None = None,
        deadline: str | None = None, due_at: datetime | None = None,
    ) -> None:
        """Add what the contact was about (``outcome`` None) or came to."""
        if (deadline is None) != (due_at is None):
            raise ValueError("a deadline needs its due time, and a due time its deadline")
        values = {
            "contact_id": contact_id, "at": at or utcnow(), "subject": subject[:48],
            "outcome": outcome[:48] if outcome else None, "ticket_id": ticket_id,
            "reference": reference[:64] if reference else None, "deadline": deadline, "due_at": due_at,
        }
        await _RECORD.rowcount(session, values)

    async def by_protocol(self, session: AsyncSession, protocol: str) -> Contact | None:
        named = parse_protocol(protocol)
        if named is None:
            return None
        day, contact_id = named
        statement = select(_contacts).where(_contacts.c.id == contact_id, _contacts.c.day == day)
        row = (await core_execute(session, statement)).one_or_none()
        if row is None:
            return None
        return (await self._with_events(session, [row]))[0]

    async def history(
        self, session: AsyncSession, *, customer_code: int | None = None, chat_id: int | None = None,
        since: datetime | None = None, limit: int | None = None,
    ) -> list[Contact]:
        """A person's contacts, newest first, with their events: by customer, by chat, or both (either)."""
        who = []
        if customer_code is not None:
            who.append(_contacts.c.customer_code == customer_code)
        if chat_id is not None:
            who.append(_contacts.c.chat_id == chat_id)
        if not who:
            raise ValueError("name a customer or a chat")
        statement = select(_contacts).where(or_(*who))
        if since is not None:
            statement = statement.where(_contacts.c.started_at >= since)
        statement = statement.order_by(_contacts.c.started_at.desc(), _contacts.c.id.desc())
        if limit is not None:
            statement = statement.limit(limit)
        rows = list(await core_execute(session, statement))
        return await self._with_events(session, rows)

    async def _with_events(self, session: AsyncSession, rows: list[Row[Any]]) -> list[Contact]:
        ids = [row.id for row in rows]
        found: dict[int, list[ContactEvent]] = {contact_id: [] for contact_id in ids}
        if ids:
            statement = select(_events).where(_events.c.contact_id.in_(ids)).order_by(_events.c.id)
            for row in await core_execute(session, statement):
                found[row.contact_id].append(_event(row))
        return [_contact(row, found[row.id]) for row in rows]

    # ---- deadlines -------------------------------------------------------------------------------
    async def due(self, session: AsyncSession, before: datetime) -> list[tuple[ContactEvent, Contact]]:
        """Deadlines still running that run out before ``before``, soonest first, with their contact."""
        statement = (
            select(_events, _contacts.c.day, _contacts.c.chat_id, _contacts.c.customer_code,
                   _contacts.c.started_at)
            .join(_contacts, _contacts.c.id == _events.c.contact_id)
            .where(_open, _events.c.due_at < before)
            .order_by(_events.c.due_at)
        )
        return [
            (_event(row), Contact(row.contact_id, protocol_of(row.day, row.contact_id), row.chat_id, row.customer_code,
                                  row.started_at))
            for row in await core_execute(session, statement)
        ]

    async def warned(self, session: AsyncSession, event_id: int, at: datetime | None = None) -> bool:
        """Mark staff warned of a deadline; False when another process already did."""
        statement = update(_events).where(_events.c.id == event_id, _events.c.warned_at.is_(None))
        return await execute_rowcount(session, statement.values(warned_at=at or utcnow())) == 1

    async def settle(self, session: AsyncSession, event_id: int, at: datetime | None = None) -> bool:
        """The deadline's matter was answered; False when it was already."""
        statement = update(_events).where(_events.c.id == event_id, _events.c.settled_at.is_(None))
        return await execute_rowcount(session, statement.values(settled_at=at or utcnow())) == 1

    async def settle_ticket(self, session: AsyncSession, ticket_id: int, at: datetime | None = None) -> int:
        """Every running deadline of the ticket ``ticket_id`` answered (the ticket was closed)."""
        statement = update(_events).where(_events.c.ticket_id == ticket_id, _open)
        return await execute_rowcount(session, statement.values(settled_at=at or utcnow()))

    async def count_deadlines(self, session: AsyncSession, now: datetime, soon: datetime) -> tuple[int, int, int]:
        """Running deadlines: how many in all, how many run out before ``soon``, how many ran out."""
        statement = select(
            func.count(),
            func.count().filter(_events.c.due_at < soon),
            func.count().filter(_events.c.due_at < now),
        ).where(_open)
        counts: tuple[Any, ...] = tuple((await core_execute(session, statement)).one())
        return int(counts[0]), int(counts[1]), int(counts[2])

    # ---- the legal term ------------------------------------------------------------------------------
    async def purge(self, session: AsyncSession, before: datetime) -> int:
        """Drop contacts begun before ``before`` (past their legal term) and their events; how many."""
        old = select(_contacts.c.id).where(_contacts.c.started_at < before).scalar_subquery()
        await execute_rowcount(session, delete(_events).where(_events.c.contact_id.in_(old)))
        return await execute_rowcount(session, delete(_contacts).where(_contacts.c.started_at < before))
