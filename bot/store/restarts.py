"""Restart watches: a connection the bot dropped (``flows.subscriber.restart``), looked at until it
is back or the wait runs out, then answered once (``flows.restarts``).

Claimed like the queues (``bot.store.queue``): due rows are taken ``FOR UPDATE SKIP LOCKED`` on
PostgreSQL and leased by a conditional UPDATE of their next look (the guard on SQLite, one writer at
a time), so two workers never look at one watch at once; a worker that dies leaves it due again
when the lease ends. ``answered`` marks it told, once, in the transaction of the person's answer.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import BindParameter, Row, bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import RestartWatchRow
from bot.store.sql import core_execute, execute_rowcount

_watches = RestartWatchRow.metadata.tables[RestartWatchRow.__tablename__]
_waiting = _watches.c.answered_at.is_(None)


@dataclass(frozen=True, slots=True)
class RestartWatch:
    id: int
    chat_id: int
    customer_code: int
    sessions: frozenset[str]  # the dropped sessions' ids
    contracts: frozenset[int | None]  # their contracts
    created_at: datetime
    give_up_at: datetime
    attempts: int


def _watch(row: Row[Any]) -> RestartWatch:
    dropped = row.dropped or {}
    return RestartWatch(
        id=row.id, chat_id=row.chat_id, customer_code=row.customer_code,
        sessions=frozenset(str(s) for s in dropped.get("sessions", [])),
        contracts=frozenset(dropped.get("contracts", [])), created_at=row.created_at, give_up_at=row.give_up_at,
        attempts=row.attempts,
    )


class RestartWatches:
    async def watch(
        self, session: AsyncSession, chat_id: int, customer_code: int, *, sessions: Collection[str],
        contracts: Collection[int | None], at: datetime, first_look: datetime, give_up_at: datetime,
    ) -> int:
        """Watch the dropped ``sessions`` (of ``contracts``) come back; the watch's id."""
        values = {
            "chat_id": chat_id, "customer_code": customer_code, "created_at": at, "give_up_at": give_up_at,
            "next_look_at": first_look, "attempts": 0,
            "dropped": {"sessions": sorted(sessions), "contracts": sorted(contracts, key=lambda c: c or 0)},
        }
        result = await core_execute(session, insert(_watches).values(values).returning(_watches.c.id))
        return int(result.scalar_one())

    async def claim(self, session: AsyncSession, now: datetime, lease: timedelta, limit: int) -> list[RestartWatch]:
        """Lease up to ``limit`` watches due for a look (none another worker holds); their next look
        is ``lease`` from now unless ``later`` or ``answered`` says otherwise."""
        due = (
            select(_watches.c.id).where(_waiting, _watches.c.next_look_at <= now)
            .order_by(_watches.c.next_look_at).limit(limit).with_for_update(skip_locked=True)
        )
        ids = list((await core_execute(session, due)).scalars())
        if not ids:
            return []
        keys: BindParameter[Any] = bindparam("keys", expanding=True)
        lease_them = (
            update(_watches).where(_watches.c.id.in_(keys), _waiting, _watches.c.next_look_at <= now)
            .values(next_look_at=now + lease, attempts=_watches.c.attempts + 1).returning(_watches.c.id)
        )
        leased = list((await core_execute(session, lease_them, {"keys": ids})).scalars())
        if not leased:
            return []
        rows = await core_execute(session, select(_watches).where(_watches.c.id.in_(leased)).order_by(_watches.c.id))
        return [_watch(row) for row in rows]

    async def later(self, session: AsyncSession, watch_id: int, at: datetime) -> None:
        """Not back yet: look again at ``at``."""
        await execute_rowcount(session, update(_watches).where(_watches.c.id == watch_id, _waiting)
                               .values(next_look_at=at))

    async def answered(self, session: AsyncSession, watch_id: int, at: datetime) -> bool:
        """The person was told; False when another worker told them already."""
        statement = update(_watches).where(_watches.c.id == watch_id, _waiting).values(answered_at=at)
        return await execute_rowcount(session, statement) == 1

    async def forget(self, session: AsyncSession, chat_id: int) -> int:
        """Drop the chat's watches (the person asked their data deleted); how many."""
        return await execute_rowcount(session, delete(_watches).where(_watches.c.chat_id == chat_id))

    async def prune(self, session: AsyncSession, before: datetime) -> int:
        """Drop watches made before ``before`` (answered long since, or left by a chat deleted); how many."""
        return await execute_rowcount(session, delete(_watches).where(_watches.c.created_at < before))
