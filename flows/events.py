"""What a person did, as the engine sees it: no channel's types, only facts.

A channel (Telegram, the terminal demo, a test) turns its own updates into one of these and hands it
to ``Engine.handle`` inside an ``Incoming`` that says which chat it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flows.desk import Attachment, StaffMember


@dataclass(frozen=True, slots=True)
class Start:
    """``/start``, with the deep-link payload when the person opened a ``t.me/bot?start=…`` link."""

    payload: str | None = None


@dataclass(frozen=True, slots=True)
class Command:
    """A command other than ``/start``: ``name`` without the slash, lower case."""

    name: str
    args: str = ""


@dataclass(frozen=True, slots=True)
class Text:
    text: str


@dataclass(frozen=True, slots=True)
class Choice:
    """A button was pressed. ``token`` is the opaque token the engine put on it, nothing more;
    ``typed``: the text that named the button, when the person wrote rather than tapped."""

    token: str
    typed: str | None = None


@dataclass(frozen=True, slots=True)
class Location:
    latitude: float
    longitude: float
    live: bool = False  # a later position of a live location (Telegram sends those as message edits)


@dataclass(frozen=True, slots=True)
class Contact:
    """A shared contact. ``own`` says it is the sender's own (Telegram's ``contact.user_id`` matches)."""

    phone: str
    own: bool


@dataclass(frozen=True, slots=True)
class FileRef:
    """A file the person sent, as the channel can fetch it later (``ref``: Telegram's file_id, the
    console's path); ``size`` in bytes when the channel knows it before fetching."""

    ref: str
    name: str
    size: int | None = None
    mime: str | None = None


# A message's kind when the channel cannot read it at all (WhatsApp's ``unsupported``, an order, a
# Flow's reply, a type newer than the bot): the person is told what the bot reads.
UNREADABLE = "unreadable"
# The kinds of media the bot reads (a receipt, a ticket's picture); the others are answered with what it reads.
READ_MEDIA = ("photo", "document")


def place(latitude: float, longitude: float, *, live: bool = False) -> Location | Media:
    """A shared position as the engine's event; one no place on Earth has (NaN, infinite, out of
    range: a forged or broken client's) is a message the bot cannot read, answered as such."""
    if -90.0 <= latitude <= 90.0 and -180.0 <= longitude <= 180.0:  # NaN compares False
        return Location(latitude, longitude, live=live)
    return Media(UNREADABLE)


@dataclass(frozen=True, slots=True)
class Media:
    kind: str  # photo, document, video, voice, sticker, ... or UNREADABLE
    caption: str = ""
    file: FileRef | None = None  # photos and documents: what a receipt is sent as


@dataclass(frozen=True, slots=True)
class StaffReply:
    """A staff member wrote in a desk conversation (``ref``: the desk's reference of it), meant for the
    subscriber. ``text`` is their words (a medium's caption or description); ``kind`` names a medium
    (photo, document, ...; None: text); ``attachment`` is the message where the desk keeps it (copied
    when the subscriber's channel can: Telegram to Telegram), ``url`` where it can be fetched (Chatwoot)."""

    ref: str
    staff: StaffMember
    text: str
    kind: str | None = None
    attachment: Attachment | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class StaffCommand:
    """A command a staff member gave in a desk conversation: assign, status, note, close, bot (the
    name without the slash, lower case; a desk without commands of its own reads ``/note ...`` from
    a private note, say)."""

    ref: str
    staff: StaffMember
    name: str
    args: str = ""


@dataclass(frozen=True, slots=True)
class Resolved:
    """The desk itself ended the conversation (Chatwoot's "resolve"): the chat is the bot's again."""

    ref: str
    staff: StaffMember


StaffEvent = StaffReply | StaffCommand | Resolved


@dataclass(frozen=True, slots=True)
class Told:
    """News the bot itself brings a chat after a turn (a restarted connection seen back, or not): for
    step ``step`` of flow ``flow``, whatever the chat is doing meanwhile (``Engine`` decides whether
    that step may ask its question there). ``data``: JSON values for the step. Never a person's doing."""

    flow: str
    step: str
    data: dict[str, Any] = field(default_factory=dict)


Event = Start | Command | Text | Choice | Location | Contact | Media | StaffReply | StaffCommand | Resolved | Told


@dataclass(frozen=True, slots=True)
class Incoming:
    chat_id: int
    event: Event
    # The language the person's client reports (Telegram's language_code); used until they pick one.
    client_language: str | None = None
    sender_name: str | None = None
    sender_id: int | None = None  # the person's own id (in a group chat, not the chat's)
    message_id: int | None = None  # the channel's reference of the message (to copy it to the staff)
    # The sender's own phone number as the channel vouches for it (WhatsApp's wa_id): proof for a link
    # without asking to share a contact.
    proved_phone: str | None = None
    asks_contact: bool = True  # whether the channel can ask the person to share their own contact
    # The channel it came by (``bot.store.channels``: "telegram", "whatsapp", ...; "" unsaid): what texts
    # call it ("this Telegram"), and the staff desk copies media within one channel.
    channel: str = ""


def describe(event: Event) -> str:
    """A short, plain description of an event, for the mirror of a ticket's conversation."""
    match event:
        case Text(text=text):
            return text
        case Start(payload=payload):
            return "/start" if not payload else "/start (link)"
        case Command(name=name, args=args):
            return f"/{name} {args}".strip()
        case Choice():
            return "[button]"
        case Location(latitude=lat, longitude=lon):
            return f"[location] {lat:.6f}, {lon:.6f}"
        case Contact():
            return "[contact]"
        case Media(kind=kind, caption=caption, file=file):
            return " ".join(part for part in (f"[{kind}]", file.name if file else "", caption) if part)
        case StaffReply(text=text, kind=kind):
            return " ".join(part for part in (f"[{kind}]" if kind else "", text) if part)
        case StaffCommand(name=name, args=args):
            return f"/{name} {args}".strip()
        case Resolved():
            return "[resolved]"
        case Told():
            return ""  # the bot's own news: nothing the person said
    return "[?]"  # pragma: no cover - the match above is exhaustive
