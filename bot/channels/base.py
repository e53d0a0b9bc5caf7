"""What the runtime (``bot.runtime``) asks of a messaging channel, in the spirit of httpx's
client/transport split: the runtime claims stored updates, keeps each chat in order, runs the
engine and retries; the channel reads its own updates, renders a turn into its own API calls and
sends them. The Telegram adapter (``bot.channels.telegram.channel``) and the WhatsApp one
(``bot.channels.whatsapp.channel``) implement ``Channel``; one process may run several.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from flows.replies import Notice, Reply
from sqlalchemy.ext.asyncio import AsyncSession

from bot.reads import Read


class Call(Protocol):
    """One request to the channel's API, kept (``as_json``) in the inbox until the channel took it."""

    def as_json(self) -> dict[str, Any]: ...


CallT = TypeVar("CallT", bound=Call)


class Channel(Protocol[CallT]):
    name: str  # the inbox's ``channel`` of its updates (``bot.store.channels``): telegram, whatsapp, ...
    # Answers it may hold at once, sent or not, before the runtime records them delivered (its
    # sender's workers): what a crash could send twice (``bot.runtime.processor``, ``_Gate``).
    sends_at_once: int

    def read(self, payload: dict[str, Any]) -> Read:
        """Never raises: what cannot be read comes back with ``failed``."""
        ...

    async def answer(
        self, session: AsyncSession, read: Read, replies: list[Reply], notices: list[Notice],
    ) -> list[CallT]:
        """The calls answering an engine's turn, inside its transaction."""
        ...

    def render_notice(self, notice: Notice) -> list[CallT]: ...

    def forget(self, read: Read) -> list[CallT]:
        """The calls that delete the person's message ``read`` came from, sent ahead of the turn's
        answer, where the channel can (a secret typed: ``flows.turn.Forget``); [] where it cannot."""
        ...

    def decode(self, kept: dict[str, Any]) -> CallT:
        """A call back from its ``as_json``."""
        ...

    async def send(self, calls: Sequence[CallT], *, notice: bool = False) -> list[asyncio.Future[Any]]:
        """Queue the calls in order; each future resolves once the call was sent or skipped for good."""
        ...

    async def drain(self, within: float) -> None:
        """Wait (at most ``within`` seconds) until what was queued was sent."""
        ...
