"""What Chatwoot posts to ``/chatwoot/webhook``: checked, then read into what the bot acts on.

Chatwoot (4.13 and later for an API inbox's webhook) signs each post with the inbox's webhook secret:
``X-Chatwoot-Timestamp`` (unix seconds) and ``X-Chatwoot-Signature: sha256=<hex HMAC-SHA256 of
"{timestamp}.{raw body}">``, and names the delivery in ``X-Chatwoot-Delivery`` (kept across its
retries). ``refusal`` refuses an unsigned, forged or stale post (older than the tolerance, so a
captured one cannot be replayed later).

``read`` keeps what concerns the bot: an agent's public message in a conversation of the bot's inbox
(``Reply``), a private note that is a staff command (``Command``: "/note ...", "/close") and a
conversation's new status (``StatusChange``). Incoming messages (the subscriber's, which the bot
posted), the bot's own posts (``source_id`` ``ispbot:...``), activity lines and other private notes
are nothing for the bot: a note never reaches the subscriber. Each event names the bot's chat from
the conversation's ``ispbot_chat`` attribute, set when the bot made it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.desks.chatwoot.client import SOURCE_PREFIX

SIGNATURE = "x-chatwoot-signature"
TIMESTAMP = "x-chatwoot-timestamp"
DELIVERY = "x-chatwoot-delivery"
CHAT_ATTRIBUTE = "ispbot_chat"  # the conversation's custom attribute naming the bot's chat
COMMANDS = frozenset({"assign", "status", "note", "close", "bot"})  # staff commands a private note may give


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Chatwoot-Signature`` Chatwoot sends with ``body`` at ``timestamp``."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def refusal(headers: Mapping[str, str], body: bytes, secret: str, *, now: float, tolerance: int) -> str | None:
    """None for a genuine, fresh post; otherwise why it is refused (for the log: no secret in it)."""
    given, stamp = headers.get(SIGNATURE, ""), headers.get(TIMESTAMP, "")
    if not given or not stamp:
        return "not signed (is the inbox's webhook secret set in Chatwoot 4.13 or later?)"
    if not stamp.isdecimal() or len(stamp) > 12:
        return "a timestamp that is not unix seconds"
    if abs(now - int(stamp)) > tolerance:
        return f"a timestamp {int(now) - int(stamp)} s away from this machine's clock"
    if not hmac.compare_digest(signature(secret, stamp, body).encode(), given.strip().encode()):
        return "a signature that does not match ISPBOT_CHATWOOT_WEBHOOK_SECRET"
    return None


@dataclass(frozen=True, slots=True)
class Reply:
    """An agent's public message: for the subscriber."""

    chat_id: int
    conversation_id: int
    message_id: int
    text: str
    agent: str  # the agent's name as Chatwoot shows it
    agent_id: int
    kind: str | None = None  # an attachment's: photo or document (None: text only)
    url: str | None = None  # where the attachment can be fetched (Chatwoot's data_url)


@dataclass(frozen=True, slots=True)
class Command:
    """A staff command written as a private note ("/status 3", "/note called the technician")."""

    chat_id: int
    conversation_id: int
    message_id: int
    name: str
    args: str
    agent: str
    agent_id: int


@dataclass(frozen=True, slots=True)
class StatusChange:
    chat_id: int
    conversation_id: int
    status: str  # open, pending, resolved, snoozed


Event = Reply | Command | StatusChange


def read(payload: Mapping[str, Any], inbox_id: int) -> Event | None:
    """The event for the bot in a webhook's payload, or None when there is none."""
    event = payload.get("event")
    conversation = payload.get("conversation") if event == "message_created" else payload
    if not isinstance(conversation, Mapping) or _int(conversation.get("inbox_id")) != inbox_id:
        return None
    chat_id, conversation_id = _chat_of(conversation), _int(conversation.get("id"))
    if chat_id is None or conversation_id is None:
        return None
    if event == "conversation_status_changed":
        status = conversation.get("status")
        return StatusChange(chat_id, conversation_id, status) if isinstance(status, str) else None
    if event != "message_created" or payload.get("message_type") not in ("outgoing", 1):
        return None
    source = payload.get("source_id")
    if isinstance(source, str) and source.startswith(SOURCE_PREFIX):
        return None  # the bot's own post, echoed
    sender, message_id, text = payload.get("sender"), _int(payload.get("id")), payload.get("content")
    if not isinstance(sender, Mapping) or sender.get("type") != "user" or message_id is None:
        return None  # an agent bot's or an automation's message, or no id to keep it once by
    text = text if isinstance(text, str) else ""
    kind, url = _attachment(payload.get("attachments"))
    if not text.strip() and url is None:
        return None
    agent, agent_id = str(sender.get("name") or ""), _int(sender.get("id")) or 0
    if payload.get("private") is not False:  # a note (or a payload that does not say): never for the person
        name, _, args = text.strip().removeprefix("/").partition(" ")
        if not text.lstrip().startswith("/") or name.lower() not in COMMANDS:
            return None
        return Command(chat_id, conversation_id, message_id, name.lower(), args.strip(), agent, agent_id)
    return Reply(chat_id, conversation_id, message_id, text, agent, agent_id, kind, url)


def _attachment(attachments: object) -> tuple[str | None, str | None]:
    """The first attachment's kind (photo or document) and URL, if any."""
    if not isinstance(attachments, list) or not attachments or not isinstance(attachments[0], Mapping):
        return None, None
    first = attachments[0]
    url = first.get("data_url")
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        return None, None
    return ("photo" if first.get("file_type") == "image" else "document"), url


def _chat_of(conversation: Mapping[str, Any]) -> int | None:
    attributes = conversation.get("custom_attributes")
    return _int(attributes.get(CHAT_ATTRIBUTE)) if isinstance(attributes, Mapping) else None


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdecimal() and len(value) < 20:
        return int(value)
    return None
