"""Incoming updates of every channel, stored durably before they are processed.

Updates of one chat are handed out in ``update_id`` order and never to two workers at once; see
``bot.store.queue`` for how. A claim leases the updates: process them, then mark them done (or
retry/failed); a worker that dies leaves them to be claimed again when the lease ends.

Answers: ``answer`` marks an update done *inside the conversation step's own transaction*, together
with the Bot API calls that answer it, and only if the update is still pending (a worker whose lease
ran out loses the race and its step is rolled back: each update is processed once). Once Telegram
accepted the calls, ``delivered`` clears them; calls still there when ``available_at`` passes belong
to a process that died before sending, and ``undelivered`` hands them out again (much sooner when that
process's heartbeat stopped: ``bot.store.processes``). Until its answer is
cleared, an update holds back its chat's later updates, so the chat reads its answers in order
whichever process sends them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, bindparam, delete, func, literal, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.driver import Direct
from bot.store.enums import InboxState
from bot.store.errors import UpdateTakenError
from bot.store.models import TELEGRAM, InboxRow, ProcessRow
from bot.store.processes import DEFAULT_STALE
from bot.store.queue import OrderedQueue
from bot.store.sql import core_execute, dialect_name, execute_rowcount
from bot.store.types import utcnow

DEFAULT_LEASE = timedelta(minutes=1)
# Answers not confirmed sent after this long are sent again by ``undelivered``, unless their process
# still beats (then they are still in its sender's queue, however long a surge keeps them there):
# long enough for a chat held back by Telegram's flood control, short enough that a crash is soon
# repaired where no heartbeat runs.
DEFAULT_RESEND_AFTER = timedelta(minutes=5)


FORGOTTEN = "[forgotten]"  # what stands for a secret's words in a stored update (``Inbox.forget``)


def _forgotten(value: Any, words: list[str]) -> Any:
    """``value`` (an update's JSON) with every string holding one of ``words`` replaced by ``FORGOTTEN``."""
    if isinstance(value, str):
        return FORGOTTEN if any(word in value for word in words) else value
    if isinstance(value, dict):
        return {key: _forgotten(item, words) for key, item in value.items()}
    if isinstance(value, list):
        return [_forgotten(item, words) for item in value]
    return value


@dataclass(frozen=True, slots=True)
class InboxItem:
    update_id: int
    chat_id: int | None
    payload: dict[str, Any]
    received_at: datetime
    attempts: int  # how many times it was claimed for processing
    answer: list[dict[str, Any]] | None = None  # the channel's calls not yet accepted by it
    channel: str = TELEGRAM  # whose update (``bot.store.channels``): the adapter that reads and answers it


def _from_row(row: InboxRow | Row[Any]) -> InboxItem:
    return InboxItem(
        update_id=row.update_id, chat_id=row.chat_id, payload=dict(row.payload), received_at=row.received_at,
        attempts=row.attempts, answer=list(row.answer) if row.answer is not None else None, channel=row.channel,
    )


# A chat's next update waits until Telegram accepted the answers of the ones before: another process
# would otherwise send its answer first while this one's is held back (flood control, a slow send).
queue = OrderedQueue(
    InboxRow, key="update_id", group="chat_id", due="available_at", pending=InboxState.PENDING, holds="answer",
    owner="owner",
)


_inbox = InboxRow.metadata.tables[InboxRow.__tablename__]
# Once per getUpdates batch: one multi-row INSERT (SQLAlchemy's "insertmanyvalues"), skipping what is
# there already and returning what was not.
_STORE = {
    "postgresql": postgresql.insert(_inbox).on_conflict_do_nothing().returning(_inbox.c.update_id),
    "sqlite": sqlite.insert(_inbox).on_conflict_do_nothing().returning(_inbox.c.update_id),
}
# Once per update, in its turn's transaction: built once (see bot.store.chats), and written with the
# chat's state where the database allows (``Answered``).
ANSWERED_COLUMNS = ("state", "processed_at", "last_error", "answer", "available_at", "owner")
ANSWER = update(_inbox).where(
    _inbox.c.update_id == bindparam("b_update_id"), _inbox.c.state == InboxState.PENDING.value,
).values({name: bindparam(name) for name in ANSWERED_COLUMNS})
_ANSWER = Direct(ANSWER)
# Often, from the processor and from polling: built once too.
_DELIVERED = update(_inbox).where(_inbox.c.update_id.in_(bindparam("b_ids", expanding=True))).values(answer=None)
# The state as a literal: counted in ``ix_inbox_pending``, not across the whole table.
_PENDING = select(func.count()).select_from(_inbox).where(
    _inbox.c.state == literal(InboxState.PENDING.value, literal_execute=True),
)


@dataclass(frozen=True, slots=True)
class Answered:
    """A pending update marked done with the calls that answer it, not written yet: a turn hands it
    to ``ChatStates.save``, which writes it with the chat's state (one statement on PostgreSQL, where
    a turn's round trips are most of its cost) or right after it."""

    update_id: int
    values: dict[str, Any]  # ``ANSWER``'s parameters

    async def write(self, session: AsyncSession) -> None:
        """On its own; ``UpdateTakenError`` when the update is not pending any more."""
        if not await self.written(session):
            raise UpdateTakenError(self.update_id)

    async def written(self, session: AsyncSession) -> bool:
        """On its own; False when the update is not pending any more."""
        return await _ANSWER.rowcount(session, self.values) == 1


class Inbox:
    def __init__(self, lease: timedelta = DEFAULT_LEASE, owner: str | None = None) -> None:
        """``owner``: the process (``bot.store.processes``) whose claims and unsent answers these are."""
        self.lease = lease
        self.owner = owner

    async def store(
        self, session: AsyncSession, update_id: int, chat_id: int | None, payload: dict[str, Any],
        now: datetime | None = None, *, channel: str = TELEGRAM,
    ) -> bool:
        """Keep the update of ``channel``; False when it was stored already (Telegram redelivers)."""
        return update_id in await self.store_many(session, [(update_id, chat_id, payload)], now, channel=channel)

    async def store_many(
        self, session: AsyncSession, updates: Sequence[tuple[int, int | None, dict[str, Any]]],
        now: datetime | None = None, *, set_aside: Collection[int] = (), reason: str | None = None,
        channel: str = TELEGRAM,
    ) -> set[int]:
        """Keep a batch of ``(update_id, chat_id, payload)`` of ``channel`` in one statement; the ids
        that were new. Those in ``set_aside`` are kept as failed (with ``reason``) and without their
        payload: they are never processed, and a flood's thousands of messages cost a row each."""
        if not updates:
            return set()
        now = now or utcnow()
        pending, failed = InboxState.PENDING.value, InboxState.FAILED.value
        rows = [
            {"update_id": update_id, "chat_id": chat_id, "payload": {} if update_id in set_aside else payload,
             "received_at": now,
             "state": failed if update_id in set_aside else pending, "attempts": 0, "available_at": now,
             "last_error": reason if update_id in set_aside else None, "channel": channel}
            for update_id, chat_id, payload in updates
        ]
        result = await session.execute(_STORE[dialect_name(session)], rows)
        return set(result.scalars())

    async def over_backlog(
        self, session: AsyncSession, updates: Sequence[tuple[int, int | None, dict[str, Any]]], keep: int,
        unlimited: Collection[int] = (),
    ) -> set[int]:
        """The updates of the batch past the first ``keep`` waiting in their chat (counting those already
        waiting; ``unlimited`` chats have no cap): the newest, for ``store_many`` to set aside."""
        ids = {update_id for update_id, _, _ in updates}
        chats = {chat for _, chat, _ in updates if chat is not None and chat not in unlimited}
        if not chats:
            return set()
        statement = (
            select(InboxRow.chat_id, func.count())
            .where(InboxRow.chat_id.in_(chats), InboxRow.state == InboxState.PENDING.value,
                   InboxRow.update_id.not_in(ids))
            .group_by(InboxRow.chat_id)
        )
        waiting: dict[int | None, int] = dict((await session.execute(statement)).all())
        seen: set[int] = set()
        over: set[int] = set()
        for update_id, chat, _ in sorted(updates, key=lambda update: update[0]):
            if chat not in chats or update_id in seen:
                continue
            seen.add(update_id)
            waiting[chat] = waiting.get(chat, 0) + 1
            if waiting[chat] > keep:
                over.add(update_id)
        return over

    async def claim_pending(
        self, session: AsyncSession, limit: int, now: datetime | None = None, per_chat: int | None = None,
    ) -> list[InboxItem]:
        """Lease up to ``limit`` due updates, each chat's oldest (at most ``per_chat`` of them) in order."""
        rows = await queue.claim(session, limit, now or utcnow(), self.lease, owner=self.owner, per_group=per_chat)
        return [_from_row(row) for row in rows]

    async def mark_done(
        self, session: AsyncSession, update_ids: Collection[int], now: datetime | None = None,
    ) -> int:
        return await queue.set(
            session, update_ids, state=InboxState.DONE.value, processed_at=now or utcnow(), last_error=None,
        )

    async def mark_retry(
        self, session: AsyncSession, update_ids: Collection[int], available_at: datetime, error: str,
    ) -> int:
        return await queue.set(session, update_ids, available_at=available_at, last_error=error)

    async def release(self, session: AsyncSession, update_ids: Collection[int], now: datetime | None = None) -> int:
        """Hand back claimed updates that were not processed (a worker stopping): due at once, and
        the claim not counted as an attempt."""
        return await queue.release(session, update_ids, now or utcnow())

    async def mark_failed(self, session: AsyncSession, update_ids: Collection[int], error: str) -> int:
        """Give up on these updates; the chat's later updates go ahead without them."""
        return await queue.set(session, update_ids, state=InboxState.FAILED.value, last_error=error)

    async def answer(
        self, session: AsyncSession, update_id: int, calls: list[dict[str, Any]], now: datetime | None = None,
        resend_after: timedelta = DEFAULT_RESEND_AFTER,
    ) -> bool:
        """Mark a pending update done with the calls that answer it; False if it is not pending
        any more (processed by another worker after this one's lease ran out)."""
        return await self.answered(update_id, calls, now, resend_after).written(session)

    def answered(
        self, update_id: int, calls: list[dict[str, Any]], now: datetime | None = None,
        resend_after: timedelta = DEFAULT_RESEND_AFTER,
    ) -> Answered:
        """``answer``, to be written with the turn's chat state (``ChatStates.save``)."""
        now = now or utcnow()
        return Answered(update_id, {
            "b_update_id": update_id, "state": InboxState.DONE.value, "processed_at": now, "last_error": None,
            "answer": calls or None, "available_at": now + resend_after, "owner": self.owner,
        })

    async def forget(self, session: AsyncSession, update_id: int, words: Collection[str]) -> None:
        """Remove ``words`` (a password, a tax id the turn used) from what was kept of the update:
        every string of its payload that is one of them, or holds one, becomes ``FORGOTTEN``."""
        payload = (await session.execute(select(_inbox.c.payload).where(_inbox.c.update_id == update_id))).scalar()
        if payload is None:
            return
        kept = _forgotten(payload, [w.strip() for w in words if w.strip()])
        if kept != payload:
            await session.execute(update(_inbox).where(_inbox.c.update_id == update_id).values(payload=kept))

    async def delivered(self, session: AsyncSession, update_ids: Collection[int]) -> int:
        """Telegram accepted these updates' answers: nothing left to resend."""
        if not update_ids:
            return 0
        return await execute_rowcount(session, _DELIVERED, {"b_ids": list(update_ids)})

    async def undelivered(
        self, session: AsyncSession, limit: int, now: datetime | None = None,
        resend_after: timedelta = DEFAULT_RESEND_AFTER, stale: timedelta = DEFAULT_STALE,
    ) -> list[InboxItem]:
        """Answers whose sending was not confirmed in time, oldest first, leased for another try.
        Those of a process whose heartbeat is fresh (within ``stale``) are left to it: its sender
        still holds them (under Telegram's 30 a second a surge queues answers for many minutes), and
        sending them again would answer twice."""
        now = now or utcnow()
        live = select(ProcessRow.id).where(ProcessRow.heartbeat_at >= now - stale)
        statement = (
            select(InboxRow)
            .where(
                InboxRow.state == InboxState.DONE.value, InboxRow.answer.is_not(None), InboxRow.available_at <= now,
                or_(InboxRow.owner.is_(None), InboxRow.owner.not_in(live)),
            )
            .order_by(InboxRow.update_id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        rows = list((await session.execute(statement)).scalars())
        if not rows:
            return []
        # Lease only what is still due and unsent: on SQLite (no row locks) another sweeper may have
        # leased the same rows since the SELECT, and it alone sends them.
        lease = (
            update(InboxRow)
            .where(
                InboxRow.update_id.in_([row.update_id for row in rows]), InboxRow.state == InboxState.DONE.value,
                InboxRow.answer.is_not(None), InboxRow.available_at <= now,
            )
            .values(available_at=now + resend_after, owner=self.owner)
            .returning(InboxRow.update_id)
        )
        leased = set((await session.execute(lease, execution_options={"synchronize_session": False})).scalars())
        return [_from_row(row) for row in rows if row.update_id in leased]

    async def state(self, session: AsyncSession, update_id: int) -> tuple[InboxState, str | None] | None:
        """Where one update stands, with its last error (a pending one put back after a failure has
        one); None for an update not stored."""
        row = (await session.execute(
            select(InboxRow.state, InboxRow.last_error).where(InboxRow.update_id == update_id),
        )).one_or_none()
        return None if row is None else (InboxState(row.state), row.last_error)

    async def last_received(self, session: AsyncSession, chat_id: int, *, channel: str) -> datetime | None:
        """When the chat's person last wrote on ``channel`` (kept as long as inbox rows are; None: not
        since), whatever became of the update: WhatsApp's 24-hour window opens with it."""
        statement = select(func.max(InboxRow.received_at)).where(
            InboxRow.chat_id == chat_id, InboxRow.channel == channel,
        )
        found: datetime | None = (await session.execute(statement)).scalar_one()
        return found

    async def wrote_since(
        self, session: AsyncSession, chat_ids: Collection[int], since: datetime, *, channel: str,
    ) -> set[int]:
        """Those of these chats whose person wrote on ``channel`` after ``since`` (one statement)."""
        if not chat_ids:
            return set()
        statement = select(InboxRow.chat_id).distinct().where(
            InboxRow.chat_id.in_(list(chat_ids)), InboxRow.channel == channel, InboxRow.received_at > since,
        )
        return {chat_id for chat_id in (await session.execute(statement)).scalars() if chat_id is not None}

    async def pending_count(self, session: AsyncSession) -> int:
        return int((await core_execute(session, _PENDING)).scalar_one())

    async def prune(self, session: AsyncSession, before: datetime) -> int:
        """Forget finished updates received before ``before`` (Telegram redelivers for a day at most)."""
        statement = delete(InboxRow).where(
            InboxRow.state != InboxState.PENDING.value, InboxRow.answer.is_(None), InboxRow.received_at < before,
        )
        return await execute_rowcount(session, statement)
