"""A table used as a set of FIFO queues, one per group (a ticket, a chat), shared by the outbox and
the inbox. Several workers may claim at once, on one PostgreSQL or one SQLite file, and the entries
of one group are still handed out in key order, never to two workers at a time.

How: a group is claimed through its *head*, its oldest pending entry. A worker takes heads that are
due (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so concurrent workers take different ones), leases
them by moving their due time ``lease`` into the future with a conditional UPDATE (the guard on
SQLite, which has no row locks but only one writer at a time), then fills the batch with the
group's following entries that are due, in order, stopping at the first that is not. While a head
is leased its group has no due head, so no other worker touches the group until the lease ends or
the head leaves the pending state. With ``holds``, an entry that left the pending state keeps
holding its group while that column is set.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from sqlalchemy import BindParameter, Integer, Row, Select, Update, bindparam, exists, literal, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from bot.store.models import Base
from bot.store.sql import core_execute, execute_rowcount

RowT = TypeVar("RowT", bound=Base)


@dataclass(frozen=True, slots=True)
class _Statements:
    due_heads: Select[Any]
    followers: Select[Any]
    lease: Update
    rows: Select[Any]


@dataclass(frozen=True)
class OrderedQueue(Generic[RowT]):
    model: type[RowT]
    key: str  # unique, increasing: the order within a group
    group: str
    due: str  # lease end or retry time of a pending entry
    pending: str  # value of the ``state`` column while the entry waits
    # A column that, while set on an entry no longer pending, still holds its group's later entries
    # back (the inbox: an answer Telegram has not accepted yet).
    holds: str | None = None
    # A column stamped with the claiming worker's name (the inbox: its process, ``bot.store.processes``).
    owner: str | None = None

    def _column(self, name: str, entity: Any = None) -> InstrumentedAttribute[Any]:
        column: InstrumentedAttribute[Any] = getattr(entity if entity is not None else self.model, name)
        return column

    async def claim(
        self, session: AsyncSession, limit: int, now: datetime, lease: timedelta, *, owner: str | None = None,
        per_group: int | None = None,
    ) -> list[Row[Any]]:
        """Lease up to ``limit`` due entries, each group's as an in-order prefix (of at most ``per_group``
        entries: a group with a long backlog then takes turns with the others); rows (of the table's
        columns) in key order."""
        if limit <= 0:
            return []
        until = now + lease
        due = {"b_now": now, "b_limit": limit}
        heads = list((await core_execute(session, self._statements.due_heads, due)).scalars())
        owned = await self._lease(session, heads, now, until, owner)
        if not owned:
            return []
        followers = await self._due_followers(session, owned, now, limit - len(owned), per_group)
        claimed = [*owned, *await self._lease(session, followers, now, until, owner)]
        return list(await core_execute(session, self._statements.rows, {"b_keys": claimed}))

    def due_heads_statement(self, limit: int, now: datetime) -> Select[Any]:
        """The oldest due entry of each group none of whose older entries is waiting."""
        return self._statements.due_heads.params(b_limit=limit, b_now=now)

    @functools.cached_property
    def _statements(self) -> _Statements:
        """The claim's statements, built once: they are the same at every claim but for their parameters."""
        table = self.model.metadata.tables[self.model.__tablename__]
        key, group, state, due = (table.c[name] for name in (self.key, self.group, "state", self.due))
        older = table.alias("older")
        # The pending state as a literal, not a parameter: PostgreSQL's generic plans (and SQLite)
        # use a partial index (the pending or waiting entries) only for a condition they can read.
        waiting = older.c.state == literal(self.pending, literal_execute=True)
        if self.holds is not None:
            waiting = or_(waiting, older.c[self.holds].is_not(None))
        due_heads = (
            select(key)
            .where(
                state == literal(self.pending, literal_execute=True),
                due <= bindparam("b_now"),
                ~exists().where(older.c[self.group] == group, waiting, older.c[self.key] < key),
            )
            .order_by(key)
            .limit(bindparam("b_limit", type_=Integer))
            .with_for_update(skip_locked=True, of=table)
        )
        keys: BindParameter[Any] = bindparam("b_keys", expanding=True)
        head_groups = select(group).where(key.in_(keys), group.is_not(None))
        followers = (
            select(key, group, due)
            .where(group.in_(head_groups), state == self.pending, key.not_in(keys))
            .order_by(key)
            # In key order, the first ``room`` rows hold a prefix of each group: enough to fill the
            # claim unless some wait for a retry (the claim is then smaller, never out of order), and
            # a group with a long backlog is not read (and locked) whole at every claim.
            .limit(bindparam("b_room", type_=Integer))
            .with_for_update(of=table)
        )
        values: dict[str, Any] = {due.key: bindparam("b_until"), "attempts": table.c.attempts + 1}
        if self.owner is not None:
            values[self.owner] = bindparam("b_owner")
        lease = (
            update(table).where(key.in_(keys), state == self.pending, due <= bindparam("b_now"))
            .values(values).returning(key)
        )
        rows = select(table).where(key.in_(keys)).order_by(key)
        return _Statements(due_heads, followers, lease, rows)

    async def _due_followers(
        self, session: AsyncSession, heads: Sequence[int], now: datetime, room: int, per_group: int | None,
    ) -> list[int]:
        if room <= 0 or per_group == 1:
            return []
        taken: list[int] = []
        blocked: set[Any] = set()
        counts: dict[Any, int] = {}  # followers taken per group (its head is one more)
        rows: list[Any] = list(
            await core_execute(session, self._statements.followers, {"b_keys": list(heads), "b_room": room}),
        )
        for entry_key, entry_group, entry_due in rows:
            if entry_group in blocked:
                continue
            if entry_due > now:  # waiting for a retry: everything after it in its group waits too
                blocked.add(entry_group)
                continue
            counts[entry_group] = counts.get(entry_group, 0) + 1
            if per_group is not None and counts[entry_group] >= per_group - 1:
                blocked.add(entry_group)  # its share of this claim is full
            taken.append(entry_key)
            if len(taken) == room:
                break
        return taken

    async def _lease(
        self, session: AsyncSession, keys: Collection[int], now: datetime, until: datetime, owner: str | None,
    ) -> list[int]:
        """Lease those of ``keys`` still pending and due; the keys actually leased."""
        if not keys:
            return []
        parameters = {"b_keys": list(keys), "b_now": now, "b_until": until}
        if self.owner is not None:
            parameters["b_owner"] = owner
        return sorted((await core_execute(session, self._statements.lease, parameters)).scalars())

    async def release(self, session: AsyncSession, keys: Collection[int], now: datetime) -> int:
        """End the lease of claimed entries that were not worked on: due at ``now``, the claim not
        counted in ``attempts``; entries no longer pending (another worker's by now) are left alone."""
        if not keys:
            return 0
        attempts = self._column("attempts")
        statement = (
            update(self.model)
            .where(self._column(self.key).in_(keys), self._column("state") == self.pending)
            .values({self._column(self.due): now, attempts: attempts - 1})
        )
        return await execute_rowcount(session, statement)

    async def set(self, session: AsyncSession, keys: Collection[int], **values: Any) -> int:
        """Update the given entries (state changes, retry times); how many rows changed."""
        if not keys:
            return 0
        statement = update(self.model).where(self._column(self.key).in_(keys)).values(**values)
        return await execute_rowcount(session, statement)
