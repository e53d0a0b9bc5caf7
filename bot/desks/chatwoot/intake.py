"""Chatwoot's webhooks into the inbox, durably, before Chatwoot is told they arrived (the web
server answers 200 only after ``store``; 503 when the database cannot take them, and Chatwoot
posts again).

An event is kept in the subscriber's chat, so an agent's reply takes its turn among the chat's
updates, once: a reply under ``REPLIES + its message id`` (a message posted twice, or to the inbox's
and the account's webhook both, is one), a status change under ``STATUSES +`` the conversation's
``updated_at`` in milliseconds (so a chat's status changes keep their order) and a few bits of its
hash (kept across Chatwoot's retries, which post the same payload). Both ranges lie far above
Telegram's ``update_id``s and below WhatsApp's; the row carries the chat's channel. What
``webhook.read`` finds nothing in is not stored at all.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any

from bot import metrics
from bot.desks.chatwoot.settings import ChatwootSettings
from bot.desks.chatwoot.webhook import DELIVERY, Command, Event, Reply, StatusChange, read, refusal
from bot.store import Database, Inbox
from bot.store.channels import channel_of_chat
from bot.web import Hook

log = logging.getLogger(__name__)

PATH = "/chatwoot/webhook"
# Above Telegram's ids (52 bits) and below other channels' (from 1 << 53, ``bot.store.channels``).
REPLIES = 1 << 52
STATUSES = REPLIES + (1 << 51)
PAYLOAD_KEY = "chatwoot"  # an inbox payload of this desk: {"chatwoot": {"event": "reply", ...}}


def inbox_key(event: Event, delivery: str, payload: Mapping[str, Any]) -> int:
    if isinstance(event, Reply | Command):
        return REPLIES + event.message_id
    updated = payload.get("updated_at")
    stamp = repr(updated) if isinstance(updated, int | float) else delivery
    digest = hashlib.sha256(f"{event.conversation_id}:{event.status}:{stamp}".encode()).digest()
    if isinstance(updated, int | float) and 0 < updated < 1 << 36:
        return STATUSES + (int(updated * 1000) << 4) + (digest[0] & 15)
    return STATUSES + int.from_bytes(digest[:6], "big")  # no time to order by: its delivery, once


_KINDS: dict[str, type[Event]] = {"reply": Reply, "command": Command, "status": StatusChange}


def as_payload(event: Event) -> dict[str, Any]:
    kind = next(name for name, kind in _KINDS.items() if isinstance(event, kind))
    return {PAYLOAD_KEY: {**asdict(event), "event": kind}}


def from_payload(payload: Mapping[str, Any]) -> Event | None:
    """The event kept by ``as_payload``; None for any other payload (a channel's update)."""
    kept = payload.get(PAYLOAD_KEY)
    if not isinstance(kept, Mapping):
        return None
    fields = {key: value for key, value in kept.items() if key != "event"}
    kind = _KINDS.get(str(kept.get("event")))
    try:
        return kind(**fields) if kind is not None else None
    except TypeError:
        return None


class ChatwootIntake:
    def __init__(self, database: Database, inbox: Inbox, inbox_id: int, on_stored: Callable[[], None]) -> None:
        self.database = database
        self.inbox = inbox
        self.inbox_id = inbox_id
        self.on_stored = on_stored

    async def store(self, payload: dict[str, Any], headers: Mapping[str, str], *, recovered: bool = False) -> bool:
        """Keep the webhook's event; False when there was none or it was kept already. Raises when
        the database cannot take it. ``recovered``: read back from Chatwoot (``recovery``), not posted."""
        event = read(payload, self.inbox_id)
        if event is None:
            log.debug("chatwoot: a %s with nothing for the bot", payload.get("event"))
            return False
        key = inbox_key(event, headers.get(DELIVERY, ""), payload)
        async with self.database.transaction() as session:
            # Under the chat's channel: the process running that channel answers the agent's reply.
            new = await self.inbox.store(session, key, event.chat_id, as_payload(event),
                                         channel=channel_of_chat(event.chat_id))
        if recovered:
            if new:
                metrics.INBOX_RECEIVED.labels("chatwoot", "recovered").inc()
                self.on_stored()
            return new
        metrics.INBOX_RECEIVED.labels("chatwoot", "new" if new else "duplicate").inc()
        if new:
            self.on_stored()
        else:
            log.info("chatwoot: a webhook already kept (%d) came again", key)
        return new


def web_hook(settings: ChatwootSettings, intake: ChatwootIntake, clock: Callable[[], float] = time.time) -> Hook:
    """``bot.web``'s route for Chatwoot's posts: checked with the webhook secret, kept by ``intake``."""
    assert settings.webhook_secret is not None  # noqa: S101 - a desk is built from complete settings
    secret, tolerance = settings.webhook_secret.get_secret_value(), settings.webhook_tolerance

    def refused(headers: Mapping[str, str], body: bytes) -> str | None:
        return refusal(headers, body, secret, now=clock(), tolerance=tolerance)

    return Hook(PATH, refused, intake.store, "chatwoot")
