"""Incoming Telegram updates, stored durably before they are processed.

Updates of one chat are handed out in ``update_id`` order and never to two workers at once; see
``bot.store.queue`` for how. A claim leases the updates: process them, then mark them done (or
retry/failed); a worker that dies leaves them to be claimed again when the lease ends.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.enums import InboxState
from bot.store.models import InboxRow
from bot.store.queue import OrderedQueue
from bot.store.sql import insert_ignore
from bot.store.types import utcnow

DEFAULT_LEASE = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class InboxItem:
    update_id: int
    chat_id: int | None
    payload: dict[str, Any]
    received_at: datetime
    attempts: int  # how many times it was claimed for processing


def _from_row(row: InboxRow) -> InboxItem:
    return InboxItem(
        update_id=row.update_id, chat_id=row.chat_id, payload=dict(row.payload), received_at=row.received_at,
        attempts=row.attempts,
    )


_queue = OrderedQueue(
    InboxRow, key="update_id", group="chat_id", due="available_at", pending=InboxState.PENDING,
)


class Inbox:
    def __init__(self, lease: timedelta = DEFAULT_LEASE) -> None:
        self.lease = lease

    async def store(
        self, session: AsyncSession, update_id: int, chat_id: int | None, payload: dict[str, Any],
        now: datetime | None = None,
    ) -> bool:
        """Keep the update; False when it was stored already (Telegram redelivers)."""
        now = now or utcnow()
        values = {
            "update_id": update_id, "chat_id": chat_id, "payload": payload, "received_at": now,
            "state": InboxState.PENDING.value, "attempts": 0, "available_at": now,
        }
        return await insert_ignore(session, InboxRow, values)

    async def claim_pending(
        self, session: AsyncSession, limit: int, now: datetime | None = None,
    ) -> list[InboxItem]:
        rows = await _queue.claim(session, limit, now or utcnow(), self.lease)
        return [_from_row(row) for row in rows]

    async def mark_done(
        self, session: AsyncSession, update_ids: Collection[int], now: datetime | None = None,
    ) -> int:
        return await _queue.set(
            session, update_ids, state=InboxState.DONE.value, processed_at=now or utcnow(), last_error=None,
        )

    async def mark_retry(
        self, session: AsyncSession, update_ids: Collection[int], available_at: datetime, error: str,
    ) -> int:
        return await _queue.set(session, update_ids, available_at=available_at, last_error=error)

    async def mark_failed(self, session: AsyncSession, update_ids: Collection[int], error: str) -> int:
        """Give up on these updates; the chat's later updates go ahead without them."""
        return await _queue.set(session, update_ids, state=InboxState.FAILED.value, last_error=error)
