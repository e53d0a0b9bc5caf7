"""What the console channel keeps in the inbox, as JSON: a typed line as an update (the event the
terminal made of it, like the callback data of a tapped button) and ``Shown``, the console's one
kind of call: a message to a chat of the terminal, kept until it was printed.

A turn's replies to the chat that typed are one ``Shown`` (one message a turn, as on Telegram); what
the turn tells other chats, and what the bot says on its own, one ``Shown`` each.
"""

from __future__ import annotations

import base64
from dataclasses import asdict, dataclass
from typing import Any

from flows.events import Choice, Command, Contact, Event, FileRef, Incoming, Location, Media, Start, Text
from flows.replies import AskContact, AskLocation, Button, Document, Handoff, Message, Reply, Upload

_EVENTS: dict[str, type[Event]] = {
    kind.__name__: kind for kind in (Start, Command, Text, Choice, Location, Contact, Media)
}
# What a terminal shows; the staff's (ToStaff) and Telegram's command menu (RoleMenu) are not for it.
_REPLIES: dict[str, type[Reply]] = {
    kind.__name__: kind for kind in (Message, AskContact, AskLocation, Document, Upload, Handoff)
}


def update_payload(update_id: int, incoming: Incoming) -> dict[str, Any]:
    """A typed line as it is stored in the inbox."""
    return {
        "update_id": update_id, "chat_id": incoming.chat_id, "event": {"type": type(incoming.event).__name__,
                                                                        **asdict(incoming.event)},
        "language": incoming.client_language, "sender_name": incoming.sender_name,
    }


def incoming_of(payload: dict[str, Any]) -> Incoming:
    """``update_payload`` read back, the update's id as the message's; raises on anything else."""
    fields = dict(payload["event"])
    kind = _EVENTS[fields.pop("type")]
    if kind is Media and fields.get("file") is not None:
        fields["file"] = FileRef(**fields["file"])
    return Incoming(
        int(payload["chat_id"]), kind(**fields), client_language=payload.get("language"),
        sender_name=payload.get("sender_name"), message_id=int(payload["update_id"]),
    )


def shows(reply: Reply) -> bool:
    return type(reply).__name__ in _REPLIES


def _reply_json(reply: Reply) -> dict[str, Any]:
    fields = asdict(reply)
    if isinstance(reply, Upload):
        fields["data"] = base64.b64encode(reply.data).decode("ascii")
    return {"type": type(reply).__name__, **fields}


def _reply_of(kept: dict[str, Any]) -> Reply:
    fields = dict(kept)
    kind = _REPLIES[fields.pop("type")]
    if kind is Message:
        fields["buttons"] = tuple(tuple(Button(**button) for button in row) for row in fields["buttons"])
    elif kind is Upload:
        fields["data"] = base64.b64decode(fields["data"])
    return kind(**fields)


@dataclass(frozen=True, slots=True)
class Shown:
    """A message to ``chat_id``. ``answers``: the update (the typed line) whose turn it shows, its
    buttons numbered; None for what the bot sent on its own, or to another chat."""

    chat_id: int
    replies: tuple[Reply, ...]
    answers: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"chat_id": self.chat_id, "replies": [_reply_json(r) for r in self.replies], "answers": self.answers}

    @classmethod
    def from_json(cls, kept: dict[str, Any]) -> Shown:
        return cls(int(kept["chat_id"]), tuple(_reply_of(r) for r in kept["replies"]), kept.get("answers"))
