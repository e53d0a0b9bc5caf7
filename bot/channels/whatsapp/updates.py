"""What Meta posts to the webhook, taken apart, and one stored message read as the engine's event.

A post holds entries of changes; a ``messages`` change holds the senders (``contacts``), their
``messages`` and the ``statuses`` of what the bot sent. Each message and each status is one inbox
update of its own, kept by its id (the ``wamid``; a status by ``wamid:status``), with what reading
it needs beside it: the sender's ``wa_id`` (their number, which WhatsApp verified) or, when WhatsApp
withholds the number (a person with a username), their business-scoped user id; their profile name.

Ids longer than their columns (PostgreSQL refuses them, and the post would be answered 503 for as
long as Meta retries it): a message's id is kept by its digest, still once however often it comes;
a message from a sender id too long to keep, or a status of a message id the bot could not have
sent, is dropped on purpose with one WARNING line. Meta's own ids are a fraction of those lengths.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from flows.events import UNREADABLE, Choice, Command, Contact, Event, FileRef, Incoming, Media, Start, Text, place
from sqlalchemy import String

from bot.reads import Read
from bot.store.models import ChannelChatRow, ChannelUpdateRow, MessageStatusRow

log = logging.getLogger(__name__)

MEDIA_PREFIX = "wa-media:"  # a FileRef of WhatsApp: the media id follows (``bot.channels.whatsapp.files``)
MORE_PREFIX = "wa:more:"  # kept in step with ``render.MORE``
# Languages by the country code a number or user id begins with; others read English.
_SPANISH_CODES = ("34", "52", "54", "56", "57", "51", "58", "593", "591", "595", "598", "502", "503", "504",
                  "505", "506", "507", "53", "1809", "1829", "1849")
_SPANISH_COUNTRIES = {"ES", "MX", "AR", "CL", "CO", "PE", "VE", "EC", "BO", "PY", "UY", "GT", "SV", "HN", "NI",
                      "CR", "PA", "CU", "DO"}


def _length(model: Any) -> int:
    """The length of a table's ``external_id`` column."""
    kind = model.__table__.c.external_id.type
    assert isinstance(kind, String) and kind.length is not None  # noqa: S101 - the models say so
    return kind.length


# The columns' lengths: a sender's id, a message's id, a status's message id.
SENDER_LENGTH = _length(ChannelChatRow)
KEY_LENGTH = _length(ChannelUpdateRow)
STATUS_ID_LENGTH = _length(MessageStatusRow)


@dataclass(frozen=True, slots=True)
class Posted:
    """One message or status of a post: ``key`` the id it is kept once by, ``sender`` the person's
    id the chat is known by (None: a status for nobody known), ``payload`` what the inbox keeps."""

    key: str
    sender: str | None
    payload: dict[str, Any]
    timestamp: int


def posted(body: dict[str, Any], phone_number_id: str | None = None) -> list[Posted]:
    """The messages and statuses of a webhook post, oldest first (only this number's, when named)."""
    found: list[Posted] = []
    for entry in _list(body.get("entry")):
        for change in _list(entry.get("changes") if isinstance(entry, dict) else None):
            if not isinstance(change, dict) or change.get("field") != "messages":
                continue
            value = change.get("value")
            if not isinstance(value, dict):
                continue
            metadata = value.get("metadata")
            number = metadata.get("phone_number_id") if isinstance(metadata, dict) else None
            if phone_number_id is not None and number is not None and str(number) != phone_number_id:
                continue  # another number of the same app: not this bot's
            found += _messages(value)
            found += _statuses(value)
    found.sort(key=lambda item: item.timestamp)  # Meta does not promise order across posts or within
    return found


def _names(value: dict[str, Any]) -> dict[str, str | None]:
    """The senders' profile names, by wa_id and by user id."""
    names: dict[str, str | None] = {}
    for contact in _list(value.get("contacts")):
        if isinstance(contact, dict):
            profile = contact.get("profile")
            name = profile.get("name") if isinstance(profile, dict) else None
            for key in (contact.get("user_id"), contact.get("wa_id")):
                if isinstance(key, str):
                    names[key] = name if isinstance(name, str) else None
    return names


def _messages(value: dict[str, Any]) -> list[Posted]:
    names, found = _names(value), []
    for message in _list(value.get("messages")):
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            continue
        phone = _str(message.get("from"))
        user = _str(message.get("from_user_id"))
        sender = user or phone
        if sender is None:
            continue
        if len(sender) > SENDER_LENGTH or (phone is not None and len(phone) > SENDER_LENGTH):
            log.warning("WhatsApp: a message from a sender id of %d characters (at most %d are kept) was dropped",
                        max(len(sender), len(phone or "")), SENDER_LENGTH)
            continue
        payload = {"message": message, "wa_id": phone, "user_id": user,
                   "name": names.get(sender) or names.get(phone or "")}
        found.append(Posted(_key(message["id"]), sender, payload, _int(message.get("timestamp"))))
    return found


def _key(wamid: str) -> str:
    """What a message is kept once by: its id, or the digest of one too long for the column."""
    if len(wamid) <= KEY_LENGTH:
        return wamid
    return "sha256:" + hashlib.sha256(wamid.encode("utf-8", "surrogatepass")).hexdigest()


def _statuses(value: dict[str, Any]) -> list[Posted]:
    found = []
    for status in _list(value.get("statuses")):
        if not isinstance(status, dict) or not isinstance(status.get("id"), str):
            continue
        if len(status["id"]) > STATUS_ID_LENGTH:  # not an id of a message the bot sent: Meta's are short
            log.warning("WhatsApp: a status for a message id of %d characters (at most %d are kept) was dropped",
                        len(status["id"]), STATUS_ID_LENGTH)
            continue
        recipient = _str(status.get("recipient_user_id")) or _str(status.get("recipient_id"))
        if recipient is not None and len(recipient) > SENDER_LENGTH:
            recipient = None  # kept for nobody known, as a status without a recipient
        key = f"{status['id']}:{status.get('status')}"
        found.append(Posted(key, recipient, {"status": status}, _int(status.get("timestamp"))))
    return found


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def language_of(sender: str | None) -> str | None:
    """The language a person most likely reads, from the country their number or user id is of."""
    if not sender:
        return None
    if "." in sender:  # a user id: BR.1502576394655843
        country = sender.split(".", 1)[0].upper()
        return "pt-br" if country in {"BR", "PT", "AO", "MZ"} else "es" if country in _SPANISH_COUNTRIES else "en"
    if sender.startswith(("55", "351", "244", "258")):
        return "pt-br"
    return "es" if sender.startswith(_SPANISH_CODES) else "en"


def read(payload: dict[str, Any]) -> Read:
    """A stored message (its ``chat_id`` given at intake) as the engine's event (``incoming`` None:
    nothing for the bot); a status is the channel's own (recorded at intake, never the engine's)."""
    if "status" in payload:
        return Read("status")
    message = payload.get("message")
    chat_id = payload.get("chat_id") if isinstance(payload.get("chat_id"), int) else None
    if not isinstance(message, dict) or chat_id is None:
        return Read("unparseable", failed="not a WhatsApp message")
    event = _event(message)
    if event is None:
        return Read(f"other_{message.get('type')}")
    phone = payload.get("wa_id") if isinstance(payload.get("wa_id"), str) else None
    user = payload.get("user_id") if isinstance(payload.get("user_id"), str) else None
    incoming = Incoming(
        chat_id, event, client_language=language_of(phone or user),
        sender_name=payload.get("name") if isinstance(payload.get("name"), str) else None,
        proved_phone=f"+{phone}" if phone and phone.isdecimal() else None, asks_contact=False, channel="whatsapp",
    )
    kind = type(event).__name__.lower()
    return Read(kind, incoming, reference=str(message["id"]))


# Types Meta documents that are nothing for the bot to answer: a reaction to one of its messages, a
# system note (the person changed their number). Every other type it cannot read (``unsupported``,
# ``unknown``, an order, a Flow's reply, a type newer than this code) is answered with what it reads.
_QUIET = ("reaction", "system")


def _event(message: dict[str, Any]) -> Event | None:
    kind = message.get("type")
    if kind in _QUIET:
        return None
    found = _readable(message)
    return found if found is not None else Media(UNREADABLE)


def _readable(message: dict[str, Any]) -> Event | None:
    kind = message.get("type")
    found = message.get(kind) if isinstance(kind, str) else None
    content: dict[str, Any] = found if isinstance(found, dict) else {}
    if kind == "text":
        return _text(str(content.get("body", "")))
    if kind == "contacts":
        return _contact(message)
    if kind in ("image", "document", "video", "audio", "sticker"):
        return _media(str(kind), content)
    if kind == "interactive":
        reply = content.get(str(content.get("type")))
        if isinstance(reply, dict) and isinstance(reply.get("id"), str):
            return Choice(reply["id"])
        return None
    if kind == "button":  # a template's quick reply: its payload is the token, else its words
        if isinstance(content.get("payload"), str) and content["payload"]:
            return Choice(content["payload"])
        return Text(str(content.get("text", "")))
    if kind == "location":
        try:
            latitude, longitude = float(content["latitude"]), float(content["longitude"])
        except (KeyError, TypeError, ValueError):
            return None
        return place(latitude, longitude)
    if kind == "request_welcome":  # the person opened the chat for the first time: greeted
        return Start(None)
    return None


def _text(body: str) -> Event:
    stripped = body.strip()
    if stripped.startswith("/"):  # typed commands work as on Telegram: /menu, /start CODE
        name, _, args = stripped[1:].partition(" ")
        if name.lower() == "start":
            return Start(args.strip() or None)
        if name.isalnum():
            return Command(name.lower(), args.strip())
    return Text(body)


def _contact(message: dict[str, Any]) -> Event | None:
    for person in _list(message.get("contacts")):
        for phone in _list(person.get("phones")) if isinstance(person, dict) else []:
            number = (_str(phone.get("phone")) or _str(phone.get("wa_id"))) if isinstance(phone, dict) else None
            if number is not None:
                # Someone's card, never proof of the sender's own number (that is ``proved_phone``).
                return Contact(number, own=False)
    return None


def _media(kind: str, content: dict[str, Any]) -> Event:
    media_id = _str(content.get("id"))
    mime = _str(content.get("mime_type"))
    name = _str(content.get("filename")) or f"{kind}.{_extension(mime)}"
    file = None
    if media_id is not None and kind in ("image", "document"):
        file = FileRef(f"{MEDIA_PREFIX}{media_id}", name, mime=mime)
    label = {"image": "photo", "audio": "voice"}.get(kind, kind)
    return Media(label, str(content.get("caption") or ""), file)


def _extension(mime: Any) -> str:
    if not isinstance(mime, str) or "/" not in mime:
        return "bin"
    return {"jpeg": "jpg", "plain": "txt"}.get(mime.split("/", 1)[1].split(";")[0], mime.split("/", 1)[1][:8])
