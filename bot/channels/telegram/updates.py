"""Telegram updates as engine events.

Two stages, so that one update nobody can parse never stalls the others:

- ``chat_of(raw)`` reads the chat id from the raw JSON without trusting its shape; the inbox keeps
  the raw update under that id (the order key of the chat's queue).
- ``parse(raw, bot)`` builds python-telegram-bot's ``Update`` (``None`` when it cannot: Telegram's
  own sample updates lack ``is_bot``), and ``route(update)`` turns it into a :class:`Routed` event,
  or ``None`` for what the bot ignores (channel posts, service messages, ordinary groups, ...).

Private chats are the subscribers' and technicians'. The staff supergroup (``staff_chat_id``) only
counts in its forum topics, decided by ``is_topic_message`` (a reply in an ordinary supergroup
carries a ``message_thread_id`` too); those are marked ``staff`` for the staff desk.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from flows.events import Choice, Command, Contact, Event, FileRef, Incoming, Location, Media, Start, Text

from telegram import Bot, Message, Update

log = logging.getLogger(__name__)

_CHAT_KEYS = ("message", "edited_message", "channel_post", "edited_channel_post", "business_message")
_MEMBER_KEYS = ("my_chat_member", "chat_member", "chat_join_request")
_COMMAND = re.compile(r"/([A-Za-z0-9_]{1,32})(?:@[A-Za-z0-9_]+)?(?:\s+(.*))?", re.DOTALL)
_MEDIA = ("photo", "document", "video", "voice", "audio", "animation", "video_note", "sticker")


@dataclass(frozen=True, slots=True)
class Routed:
    incoming: Incoming
    thread_id: int | None = None  # the forum topic to answer in
    staff: bool = False  # written in a forum topic of the staff group


# Telegram's ids fit in 64 bits (the database's BIGINT); a larger one is forged and would fail the batch.
_ID_LIMIT = 2**63


def _an_id(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and -_ID_LIMIT < value < _ID_LIMIT:
        return value
    return None


def update_id_of(raw: Any) -> int | None:
    value = _an_id(raw.get("update_id") if isinstance(raw, dict) else None)
    return value if value is not None and value >= 0 else None


def chat_of(raw: dict[str, Any]) -> int | None:
    """The chat an update belongs to, read leniently from raw JSON (``None`` when it has none)."""
    for key in _CHAT_KEYS + _MEMBER_KEYS:
        chat_id = _dig(raw, key, "chat", "id")
        if chat_id is not None:
            return chat_id
    return _dig(raw, "callback_query", "message", "chat", "id") or _dig(raw, "callback_query", "from", "id")


def _dig(value: Any, *keys: str) -> int | None:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return _an_id(value)


def parse(raw: dict[str, Any], bot: Bot) -> Update | None:
    try:
        return Update.de_json(raw, bot)
    except Exception as exc:  # whatever a strict parser raises on an odd update
        log.warning("update %s could not be parsed (%s): skipped", update_id_of(raw), type(exc).__name__)
        return None


def route(update: Update, staff_chat_id: int | None = None) -> Routed | None:
    """The event an update means to the bot, or ``None`` when it means nothing to it."""
    if update.callback_query is not None:
        query = update.callback_query
        chat = query.message.chat if query.message is not None else None
        if chat is None or chat.type != "private" or not query.data:
            return None
        by = query.from_user
        incoming = Incoming(chat.id, Choice(query.data), by.language_code, by.first_name, sender_id=by.id)
        return Routed(incoming)
    message = update.message or update.edited_message
    if message is None:
        return None
    edited = update.message is None
    private = message.chat.type == "private"
    in_staff_topic = staff_chat_id is not None and message.chat.id == staff_chat_id and message.is_topic_message
    if not (private or in_staff_topic):
        return None
    event = _edited_event(message) if edited else _message_event(message)
    if event is None:
        return None
    person = message.from_user
    incoming = Incoming(
        message.chat.id, event, person.language_code if person else None, person.first_name if person else None,
        sender_id=person.id if person else None, message_id=message.message_id,
    )
    if not private:
        return Routed(incoming, thread_id=message.message_thread_id, staff=True)
    return Routed(incoming)


def _message_event(message: Message) -> Event | None:
    if message.text is not None:
        return _text_event(message.text)
    if message.contact is not None:
        sender = message.from_user
        own = sender is not None and message.contact.user_id == sender.id
        return Contact(message.contact.phone_number, own=own)
    if message.location is not None:
        return Location(message.location.latitude, message.location.longitude)
    for kind in _MEDIA:
        if getattr(message, kind):
            return Media(kind, message.caption or "", _file_of(message))
    return None


def _file_of(message: Message) -> FileRef | None:
    """What a flow may fetch later (getFile): a photo's largest size, or a document."""
    if message.photo:
        largest = message.photo[-1]
        return FileRef(largest.file_id, "photo.jpg", largest.file_size, "image/jpeg")
    document = message.document
    if document is not None:
        return FileRef(document.file_id, document.file_name or document.file_unique_id, document.file_size,
                       document.mime_type)
    return None


def _edited_event(message: Message) -> Event | None:
    """A moving live location, or corrected text (taken as the next answer); other edits mean nothing."""
    if message.location is not None:
        return Location(message.location.latitude, message.location.longitude, live=True)
    if message.text is not None and not message.text.startswith("/"):
        return Text(message.text)
    return None


def _text_event(text: str) -> Event:
    match = _COMMAND.fullmatch(text.strip())
    if match is None:
        return Text(text)
    name, args = match.group(1).lower(), (match.group(2) or "").strip()
    if name == "start":
        return Start(args or None)
    return Command(name, args)
