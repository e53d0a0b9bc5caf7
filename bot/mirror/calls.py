"""Outbox entries as ``chat_messages`` calls: each entry becomes one or more wire entries (long
content split, see ``split``), and a ticket's entries are packed, in order, into calls of at most
``per_call`` wire entries. An entry's pieces always travel in the same call, so a stored entry is
either wholly recorded by the ISP or not at all."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import ValidationError

from bot.isp.models.v2_requests import ChatMessage, ChatMessages, ChatOrigin
from bot.mirror.split import MAX_CONTENT, split_content
from bot.store import OutboxEntry

DEFAULT_PER_CALL = 20


class InvalidEntry(ValueError):
    """The entry breaks a rule of the request (an empty content, a customer 0): sending it again
    can never succeed. The message names fields only, never their values (personal data)."""


def wire_messages(entry: OutboxEntry, limit: int = MAX_CONTENT) -> list[ChatMessage]:
    """The ``chat_messages`` entries that carry ``entry`` (several when its content is long)."""
    message = entry.message
    try:
        return [
            ChatMessage(
                record=message.record, customer=message.customer, ticket_id=message.ticket_id,
                attendant=message.attendant, content=piece, origin=ChatOrigin(message.origin.value),
                contact=message.contact,
            )
            for piece in split_content(message.content, limit)
        ]
    except ValidationError as exc:
        problems = ", ".join(f"{'.'.join(map(str, e['loc'])) or 'entry'} ({e['type']})" for e in exc.errors())
        raise InvalidEntry(f"not a valid chat_messages entry: {problems}") from None


@dataclass
class Call:
    """One ``chat_messages`` request: these entries of one ticket, in order."""

    entries: list[OutboxEntry] = field(default_factory=list)
    messages: list[ChatMessage] = field(default_factory=list)

    @property
    def ids(self) -> list[int]:
        return [entry.id for entry in self.entries]

    def request(self) -> ChatMessages:
        return ChatMessages(messages=self.messages)


def pack(pairs: Iterable[tuple[OutboxEntry, Sequence[ChatMessage]]], per_call: int = DEFAULT_PER_CALL) -> list[Call]:
    """Consecutive calls of at most ``per_call`` wire entries (an entry longer than that alone)."""
    calls: list[Call] = []
    current = Call()
    for entry, messages in pairs:
        if current.entries and len(current.messages) + len(messages) > per_call:
            calls.append(current)
            current = Call()
        current.entries.append(entry)
        current.messages.extend(messages)
    if current.entries:
        calls.append(current)
    return calls
