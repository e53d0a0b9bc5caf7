"""What the engine hands back to a channel: rendered, language-resolved, channel-neutral replies.

Text is Telegram HTML (the templates' markup, with every variable escaped). Buttons carry opaque
tokens the engine keeps in the chat's state; a channel puts the token in the callback data as is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flows.desk import Attachment


@dataclass(frozen=True, slots=True)
class Button:
    label: str  # plain text, not HTML: button labels are never parsed as markup
    token: str


@dataclass(frozen=True, slots=True)
class Message:
    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class AskLocation:
    """Ask for the phone's position with a one-time "share my location" keyboard."""

    text: str
    button: str


@dataclass(frozen=True, slots=True)
class AskContact:
    """Ask for the person's own phone number with a one-time "share my contact" keyboard."""

    text: str
    button: str


@dataclass(frozen=True, slots=True)
class Document:
    url: str
    caption: str


@dataclass(frozen=True, slots=True)
class Upload:
    """A file the bot made or fetched (a PIX QR code, a bill's PDF), sent as its bytes: ``photo``
    shows as a picture, ``document`` as a file named ``filename``."""

    kind: str  # "photo" or "document"
    data: bytes = field(repr=False)
    filename: str
    caption: str = ""


@dataclass(frozen=True, slots=True)
class Handoff:
    """The conversation needs a person: the staff side takes it from here."""

    reason: str
    ticket: int | None = None
    summary: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToStaff:
    """What the person said while a staff member handles the conversation, for the staff's topic:
    ``text`` in plain words, and the channel's own reference of the message (a photo is copied as is)."""

    text: str
    message_id: int | None = None
    kind: str | None = None  # photo, document, location, ... (None: text)


@dataclass(frozen=True, slots=True)
class Copy:
    """A message kept elsewhere (a staff member's photo at the desk), copied as it is by a channel
    that holds it (``attachment.channel``); any other shows nothing (a ``Message`` describes it)."""

    attachment: Attachment


@dataclass(frozen=True, slots=True)
class RoleMenu:
    """The chat took another role (an invite redeemed): a channel shows that role's commands."""

    role: str
    language: str


Reply = Message | AskLocation | AskContact | Document | Upload | Handoff | ToStaff | Copy | RoleMenu


@dataclass(frozen=True, slots=True)
class Notice:
    """A reply sent on the bot's own initiative (an outage ended, a technician is on the way). ``kind``
    names what it is, for a channel that sends kinds differently (WhatsApp, outside its 24-hour window,
    sends a template: ``bot.channels.whatsapp.templates``); "notice" is the kind every channel knows."""

    chat_id: int
    reply: Reply
    kind: str = "notice"
