"""Telegram updates as engine events, in stages so that one update nobody can parse never stalls
the others.

- ``chat_of(raw)`` reads the chat id from the raw JSON without trusting its shape (the inbox's
  order key for the chat).
- ``route_common(raw)`` reads the common updates (a private chat's text, command or button press)
  straight from the JSON, as ``route(parse(raw))`` would; ``None`` sends any other shape, or one it
  cannot vouch for, through
- ``parse(raw, bot)``, python-telegram-bot's ``Update`` (``None`` when it cannot be built), and
  ``route(update)``: a :class:`Routed` event, or ``None`` for what the bot ignores.

Private chats are the subscribers' and technicians'. The staff supergroup counts only in its forum
topics (``is_topic_message``: a reply in an ordinary supergroup carries a thread id too).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from flows.desk import StaffMember
from flows.events import (
    UNREADABLE,
    Choice,
    Command,
    Contact,
    Event,
    FileRef,
    Incoming,
    Media,
    Resolved,
    Start,
    Text,
    place,
)

from bot.reads import Read
from telegram import Bot, Message, Update

log = logging.getLogger(__name__)
CHANNEL = "telegram"  # what ``Incoming.channel`` says of updates read here

_CHAT_KEYS = ("message", "edited_message", "channel_post", "edited_channel_post", "business_message")
_MEMBER_KEYS = ("my_chat_member", "chat_member", "chat_join_request")
_COMMAND = re.compile(r"/([A-Za-z0-9_]{1,32})(?:@[A-Za-z0-9_]+)?(?:\s+(.*))?", re.DOTALL)
_MEDIA = ("photo", "document", "video", "voice", "audio", "animation", "video_note", "sticker")
# What a person may send that the bot cannot read (a poll, a dice, a game...): answered with what it
# reads, as on WhatsApp. Service notes of a private chat (a timer changed, access allowed) stay quiet.
_UNREADABLE = ("poll", "dice", "game", "story", "invoice", "checklist", "giveaway", "paid_media")


@dataclass(frozen=True, slots=True)
class Routed:
    incoming: Incoming
    thread_id: int | None = None  # the forum topic to answer in
    staff: bool = False  # written in a forum topic of the staff group


# Telegram's ids fit in 64 bits (the database's BIGINT); a larger one is forged and would fail the batch.
ID_LIMIT = _ID_LIMIT = 2**63


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


def parse(raw: dict[str, Any], bot: Bot | None) -> Update | None:
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
        incoming = Incoming(chat.id, Choice(query.data), by.language_code, by.first_name, sender_id=by.id,
                            channel=CHANNEL)
        return Routed(incoming)
    message = update.message or update.edited_message
    if message is None:
        return None
    edited = update.message is None
    private = message.chat.type == "private"
    in_staff_topic = staff_chat_id is not None and message.chat.id == staff_chat_id and message.is_topic_message
    if not (private or in_staff_topic):
        return None
    person = message.from_user
    event: Event | None
    if in_staff_topic and message.forum_topic_closed is not None:  # closed in Telegram's own screen
        event = Resolved(str(message.message_thread_id), StaffMember(person.first_name if person else "",
                                                                     chat_id=person.id if person else None))
    else:
        event = _edited_event(message) if edited else _message_event(message)
    if event is None:
        return None
    incoming = Incoming(
        message.chat.id, event, person.language_code if person else None, person.first_name if person else None,
        sender_id=person.id if person else None, message_id=message.message_id, channel=CHANNEL,
    )
    if not private:
        return Routed(incoming, thread_id=message.message_thread_id, staff=True)
    return Routed(incoming)


def route_stored(raw: dict[str, Any], bot: Bot | None, staff_chat_id: int | None) -> Routed | Read:
    """What a stored update means (``route``, the quick way for a private chat's text or button), or
    the ``Read`` of one that means nothing to the bot (``other``) or cannot be read (``failed``).
    The channel and the forum desk (``bot.desks.telegram``) read their updates with it."""
    routed = route_common(raw)
    if routed is None:
        update = parse(raw, bot)
        if update is None:
            return Read("unparseable", failed="could not be parsed")
        try:
            routed = route(update, staff_chat_id)
        except Exception as exc:  # a field of an unexpected type, say: this update only, never its chat
            return Read("unroutable", failed=f"could not be routed ({type(exc).__name__})", error=exc)
    if routed is None:
        return Read("other")
    incoming = routed.incoming
    for value in (incoming.chat_id, incoming.sender_id, incoming.message_id):  # a loop, not any(): every update
        if value is not None and not -ID_LIMIT < value < ID_LIMIT:
            # Telegram's ids fit in 52 bits; one past the database's 64 is forged: set aside, once.
            return Read("unroutable", failed="an id beyond 64 bits")
    return routed


def _message_event(message: Message) -> Event | None:
    if message.text is not None:
        return _text_event(message.text)
    if message.contact is not None:
        sender = message.from_user
        own = sender is not None and message.contact.user_id == sender.id
        return Contact(message.contact.phone_number, own=own)
    if message.location is not None:
        return place(message.location.latitude, message.location.longitude)
    for kind in _MEDIA:
        if getattr(message, kind):
            return Media(kind, message.caption or "", _file_of(message))
    if any(getattr(message, kind, None) for kind in _UNREADABLE):
        return Media(UNREADABLE)
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
        return place(message.location.latitude, message.location.longitude, live=True)
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


# ---- the common updates, straight from the JSON ----------------------------------------------------
# Only keys whose values are checked here (or of no consequence to ``Update.de_json``) are taken: an
# update with anything else goes the full way, so what fails to parse there still fails the same way.
_USER_KEYS = {
    "id": int, "is_bot": bool, "first_name": str, "last_name": str, "username": str, "language_code": str,
    "is_premium": bool, "added_to_attachment_menu": bool,
}
_USER_REQUIRED = ("id", "is_bot", "first_name")
_CHAT_KEYS_PRIVATE = {"id": int, "type": str, "first_name": str, "last_name": str, "username": str}
_ENTITY_KEYS = {"type": str, "offset": int, "length": int, "url": str, "language": str, "custom_emoji_id": str}
_BUTTON_KEYS = {"text": str, "callback_data": str, "url": str}
_TEXT_MESSAGE_KEYS = frozenset({"message_id", "from", "chat", "date", "text", "entities"})
_BOTS_MESSAGE_KEYS = _TEXT_MESSAGE_KEYS | {"edit_date", "reply_markup"}
_QUERY_KEYS = {"id": str, "from": dict, "message": dict, "chat_instance": str, "data": str}
_DATE_LIMIT = 2**32  # de_json turns a date into a datetime: seconds since 1970, well within


def route_common(raw: dict[str, Any]) -> Routed | None:
    """A private chat's text message or button press as ``route(parse(raw))`` reads it; ``None`` for
    anything else, which ``parse`` and ``route`` then handle."""
    if len(raw) != 2 or not isinstance(raw.get("update_id"), int):
        return None
    message = raw.get("message")
    if message is not None:
        return _common_text(message)
    query = raw.get("callback_query")
    return _common_press(query) if query is not None else None


def _common_text(message: Any) -> Routed | None:
    if not (isinstance(message, dict) and message.keys() <= _TEXT_MESSAGE_KEYS and _a_message(message)):
        return None
    text, person = message.get("text"), cast(dict[str, Any], message.get("from"))
    if not isinstance(text, str) or not _a_user(person) or not _entities(message.get("entities")):
        return None
    chat_id = message["chat"]["id"]
    incoming = Incoming(
        chat_id, _text_event(text), person.get("language_code"), person["first_name"], sender_id=person["id"],
        message_id=message["message_id"], channel=CHANNEL,
    )
    return Routed(incoming)


def _common_press(query: Any) -> Routed | None:
    if not (isinstance(query, dict) and _fields(query, _QUERY_KEYS) and len(query) == len(_QUERY_KEYS)):
        return None
    message, by = query["message"], query["from"]
    if not (message.keys() <= _BOTS_MESSAGE_KEYS and _a_message(message) and _a_user(by) and query["data"]):
        return None
    if not (_a_user(message.get("from", by)) and _entities(message.get("entities"))):
        return None
    if not (isinstance(message.get("text", ""), str) and isinstance(message.get("edit_date", 0), int)):
        return None
    if not _inline_keyboard(message.get("reply_markup")):
        return None
    incoming = Incoming(
        message["chat"]["id"], Choice(query["data"]), by.get("language_code"), by["first_name"], sender_id=by["id"],
        channel=CHANNEL,
    )
    return Routed(incoming)


def _fields(value: dict[str, Any], types: Mapping[str, type]) -> bool:
    """Every key known, and each value of its type (an int is not a bool here, nor a bool an int)."""
    for key, item in value.items():
        kind = types.get(key)
        if kind is None or type(item) is not kind:
            return False
    return True


def _a_message(message: dict[str, Any]) -> bool:
    """message_id, date and a private chat, as de_json reads them."""
    chat, date = message.get("chat"), message.get("date")
    return (
        type(message.get("message_id")) is int and type(date) is int and 0 <= date < _DATE_LIMIT
        and isinstance(chat, dict) and _fields(chat, _CHAT_KEYS_PRIVATE) and chat.get("type") == "private"
        and _an_id(chat.get("id")) is not None
    )


def _a_user(user: Any) -> bool:
    return (
        isinstance(user, dict) and _fields(user, _USER_KEYS) and all(key in user for key in _USER_REQUIRED)
        and _an_id(user["id"]) is not None
    )


def _entities(entities: Any) -> bool:
    if entities is None:
        return True
    return isinstance(entities, list) and all(
        isinstance(entity, dict) and _fields(entity, _ENTITY_KEYS) and {"type", "offset", "length"} <= entity.keys()
        for entity in entities
    )


def _inline_keyboard(markup: Any) -> bool:
    if markup is None:
        return True
    if not (isinstance(markup, dict) and markup.keys() == {"inline_keyboard"}):
        return False
    rows = markup["inline_keyboard"]
    return isinstance(rows, list) and all(
        isinstance(row, list) and all(
            isinstance(button, dict) and _fields(button, _BUTTON_KEYS) and "text" in button for button in row
        )
        for row in rows
    )
