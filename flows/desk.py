"""The staff desk as the engine sees it, whichever desk it is (Telegram forum topics, Chatwoot).

Out to the desk: a turn that hands a chat over, relays the person's words, answers a staff member
or has news for the staff (``StaffNotice``) writes ``DeskJob``s (open, post, close, notice) in its
own transaction; ``bot.desks.worker`` carries them out after commit, in order per chat, through the
``bot.desks.base.Desk`` port. Nothing of a desk runs inside the engine's transaction.

In from the desk: what a staff member does in a conversation is a ``StaffEvent`` (``flows.events``:
``StaffReply``, ``StaffCommand``, ``Resolved``), run by the engine for the subscriber's chat
(``flows.staff.desk``); what the subscriber must hear goes to their own channel as a notice.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any


class PostKind(StrEnum):
    """Who a post speaks for, and whether the subscriber could ever see it."""

    SUBSCRIBER = "subscriber"  # the person's own words (``author``: their name as the desk shows it)
    BOT = "bot"  # what the bot told the person (desks that follow every chat only)
    STAFF = "staff"  # a staff member's reply, as the subscriber got it (desks that do not show it already)
    CARD = "card"  # the handoff's summary card: private, for the staff only
    NOTE = "note"  # the bot's word to the staff (a command's outcome, usage): private, never relayed


@dataclass(frozen=True, slots=True)
class Attachment:
    """A message the subscriber's channel holds (a photo, a document), for a desk that can copy it."""

    channel: str  # the channel holding it ("telegram", "whatsapp")
    chat_id: int
    message_id: int
    kind: str  # photo, document, location, contact, voice, ...
    # A photo's or a document's file as that channel fetches it (Telegram's file_id), for a channel
    # that cannot copy the message and sends the file instead (WhatsApp); its name and type.
    file: str | None = None
    name: str = ""
    mime: str | None = None


@dataclass(frozen=True, slots=True)
class DeskChat:
    """The subscriber chat a desk conversation is about, as known when the job was written."""

    chat_id: int
    channel: str  # the subscriber's channel ("telegram", "whatsapp"; "" in the jobs of a staff event)
    language: str  # the subscriber's language (pt_BR, en, es); staff texts are in the staff's
    name: str  # how staff see the person: their name on the channel, or the customer code
    ticket_id: int | None = None  # the conversation's ticket in the ISP (None: a person not identified)
    customer_code: int | None = None
    contract: int | None = None
    # What the desk may show beside the conversation (the tax id already masked): contract, plan, ...
    attributes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class DeskPost:
    """One message into a desk conversation. ``text`` is the templates' Telegram HTML (``bot.i18n.
    plain_text`` gives plain text); ``author`` names the speaker where the kind needs one."""

    kind: PostKind
    text: str
    author: str = ""
    attachment: Attachment | None = None


@dataclass(frozen=True, slots=True)
class OpenConversation:
    """Hand the chat to the staff: make sure it has a conversation (the desk's reference is kept
    with the handoff), marked as wanting a person; ``title`` names it, ``reason`` says why
    (asked, sales, unidentified, gave_up, ...). The card follows as a ``CARD`` post."""

    title: str
    reason: str


@dataclass(frozen=True, slots=True)
class PostMessage:
    post: DeskPost


@dataclass(frozen=True, slots=True)
class CloseConversation:
    """The chat is the bot's again: ``resolved`` when its ticket was finished, else handed back as is."""

    resolved: bool


@dataclass(frozen=True, slots=True)
class StaffNotice:
    """A word to the staff about the person, outside any handed-over conversation (a cancel done in
    the chat, a suspension, a contact's deadline close to its end): ``text`` in the staff's language."""

    text: str


DeskJob = OpenConversation | PostMessage | CloseConversation | StaffNotice


@dataclass(frozen=True, slots=True)
class StaffMember:
    """Who acts at the desk. ``chat_id``: their own chat with the bot (a Telegram user id), counted
    only when linked as staff (``ispbot invite staff``), whose ISP user then acts; else
    ``system_user``, the ISP user the desk vouches for (None: the operator's ``ISPBOT_ISP_USER``)."""

    name: str
    chat_id: int | None = None
    system_user: str | None = None


def job_payload(chat: DeskChat, job: DeskJob) -> tuple[str, dict[str, Any]]:
    """A job as stored (``desk_jobs``): its kind ("open", "post", "close", "notice") and its JSON."""
    body: dict[str, Any] = {"chat": asdict(chat)}
    match job:
        case OpenConversation(title=title, reason=reason):
            return "open", {**body, "title": title, "reason": reason}
        case PostMessage(post=post):
            return "post", {**body, "post": asdict(post)}
        case CloseConversation(resolved=resolved):
            return "close", {**body, "resolved": resolved}
        case StaffNotice(text=text):
            return "notice", {**body, "text": text}
    raise TypeError(f"not a desk job: {type(job).__name__}")  # pragma: no cover - the match is exhaustive


def read_job(kind: str, payload: dict[str, Any]) -> tuple[DeskChat, DeskJob]:
    """``job_payload`` back."""
    chat_fields = dict(payload["chat"])
    chat_fields["attributes"] = tuple(tuple(pair) for pair in chat_fields.get("attributes", ()))
    chat = DeskChat(**chat_fields)
    if kind == "open":
        return chat, OpenConversation(payload["title"], payload["reason"])
    if kind == "post":
        fields = dict(payload["post"])
        held = fields.pop("attachment", None)
        return chat, PostMessage(DeskPost(
            kind=PostKind(fields["kind"]), text=fields["text"], author=fields.get("author", ""),
            attachment=Attachment(**held) if held else None,
        ))
    if kind == "close":
        return chat, CloseConversation(bool(payload["resolved"]))
    if kind == "notice":
        return chat, StaffNotice(str(payload["text"]))
    raise ValueError(f"unknown desk job kind {kind!r}")
