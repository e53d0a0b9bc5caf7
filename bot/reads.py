"""What a channel or a desk made of an update stored in the inbox (``Read``): the one word both kinds
of adapter answer the processor with. Its own module, below ``bot.channels`` and ``bot.desks``, so
that neither has to import the other to speak it.
"""

from __future__ import annotations

from dataclasses import dataclass

from flows.events import Incoming


@dataclass(frozen=True, slots=True)
class Read:
    """What the channel (or the desk) made of a stored update. ``incoming`` None: nothing for the bot
    (settled without an answer), or, with ``failed``, an update it cannot read (set aside, logged by id)."""

    kind: str  # for the update's log line: text, choice, staff_text, unparseable, ...
    incoming: Incoming | None = None
    failed: str | None = None
    error: Exception | None = None
    reference: str | None = None  # the channel's own id of the message (WhatsApp's wamid, to mark it read)
