"""Updates into the inbox, durably, before Telegram is told they arrived.

Polling stores a ``getUpdates`` batch before the next call confirms its offset; the webhook stores
the posted update before answering 200. A redelivered update is kept once; one without an
``update_id`` is logged and dropped (nothing could deduplicate it). A NUL or lone surrogate, which
PostgreSQL's JSONB refuses, is kept as U+FFFD by the store, so one update never fails a whole batch.

Fair shares: a chat may have ``chat_backlog`` updates waiting (the staff group excepted); beyond
that they are set aside as they arrive (``ispbot_inbox_dropped_total``) and the chat is asked to
slow down (``on_flooded``), so a few flooding chats never make everyone else wait. Button presses
are acknowledged (``on_button``) as soon as they are stored, so the spinner stops at once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bot import metrics
from bot.channels.telegram.updates import chat_of, update_id_of
from bot.logs import chat_ref
from bot.store import Database, Inbox

DEFAULT_CHAT_BACKLOG = 20
DROPPED = "set aside: its chat had too many updates waiting"

log = logging.getLogger(__name__)


class Intake:
    def __init__(
        self, database: Database, inbox: Inbox, on_stored: Callable[[], None],
        on_button: Callable[[str], None] | None = None, *, chat_backlog: int = DEFAULT_CHAT_BACKLOG,
        unlimited: frozenset[int] = frozenset(),
        on_flooded: Callable[[int, dict[str, Any]], Awaitable[None]] | None = None,
    ) -> None:
        """``unlimited``: chats without a cap (the staff group); ``on_flooded(chat_id, latest update)``:
        a chat's updates were set aside."""
        self.database = database
        self.inbox = inbox
        self.on_stored = on_stored
        self.on_button = on_button
        self.chat_backlog = chat_backlog
        self.unlimited = unlimited
        self.on_flooded = on_flooded

    async def store(self, updates: Sequence[Any], mode: str) -> int:
        """Keep the updates (one transaction); how many were new. Raises if the database is down."""
        batch: list[tuple[int, int | None, dict[str, Any]]] = []
        for raw in updates:
            update_id = update_id_of(raw)
            if update_id is None:
                log.warning("an update without an update_id was dropped (%s)", type(raw).__name__)
                metrics.INBOX_RECEIVED.labels(mode, "invalid").inc()
                continue
            batch.append((update_id, chat_of(raw), raw))
        async with self.database.transaction() as session:
            aside = await self.inbox.over_backlog(session, batch, self.chat_backlog, self.unlimited)
            stored = await self.inbox.store_many(session, batch, set_aside=aside, reason=DROPPED)
        flooded: dict[int, int] = {}
        for update_id, chat, _ in batch:
            if chat is not None and update_id in aside and update_id in stored:
                flooded[chat] = flooded.get(chat, 0) + 1
        new, presses = 0, []
        for update_id, _, raw in batch:
            fresh = update_id in stored
            stored.discard(update_id)  # the same update twice in one batch is new once
            metrics.INBOX_RECEIVED.labels(mode, "new" if fresh else "duplicate").inc()
            new += fresh
            if fresh and (press := _callback_id(raw)) is not None:
                presses.append(press)
        if new:
            self.on_stored()
        for chat_id, dropped in flooded.items():
            metrics.INBOX_DROPPED.inc(dropped)
            log.warning("%d updates of chat %s set aside: it has %d waiting", dropped, chat_ref(chat_id),
                        self.chat_backlog)
            if self.on_flooded is not None:
                await self.on_flooded(chat_id, next(raw for _, chat, raw in reversed(batch) if chat == chat_id))
        if self.on_button is not None:
            for press in presses:
                self.on_button(press)
        return new


def _callback_id(raw: dict[str, Any]) -> str | None:
    query = raw.get("callback_query")
    press = query.get("id") if isinstance(query, dict) else None
    return press if isinstance(press, str) and press else None
