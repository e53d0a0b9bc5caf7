"""What the engine hands back to a channel: rendered, language-resolved, channel-neutral replies.

Text is Telegram HTML (the templates' markup, with every variable escaped). Buttons carry opaque
tokens the engine keeps in the chat's state; a channel puts the token in the callback data as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.i18n import Translations

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
    """A reply sent on the bot's own initiative (an outage ended, a technician is on the way).

    ``kind`` names which notice it is (``outage_over``, ``staff_answer``...: the keys of
    ``locales/*/whatsapp_templates.yaml``), and ``values`` its text's variables as plain text in
    ``language``: where a channel may send only approved templates (WhatsApp, after 24 hours) it
    sends that kind's template with these values as its parameters."""

    chat_id: int
    reply: Reply
    kind: str = "notice"
    values: Mapping[str, str] = field(default_factory=dict)
    language: str | None = None


def notice(
    translations: Translations, chat_id: int, language: str, kind: str, key: str, /, **variables: Any,
) -> Notice:
    """The notice ``kind`` saying ``key`` to ``chat_id`` in ``language``, its variables kept for a template."""
    values = {name: translations.plain(language, value) for name, value in variables.items()}
    return Notice(chat_id, Message(translations.render(language, key, **variables)), kind, values, language)
