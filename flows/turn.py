"""What a turn hands back, and what a channel runs inside it: the same for a subscriber's turn
(``flows.engine``) and a staff member's event at the desk (``flows.staff_turn``).

A turn runs in one database transaction. ``Within`` records there that the update was handled, with
the replies and the notices to other chats, so the step and that record commit together or not at
all; ``Forget`` removes a secret's words from what the channel stored. ``Turn`` is what the turn
came to, for the channel to send and log.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.store import Answered, ChatState, Link, Role
from sqlalchemy.ext.asyncio import AsyncSession

from flows.replies import Notice, Reply

SAVE_ATTEMPTS = 3  # a turn whose save lost a race runs again, this many times at most

# Runs inside a turn's transaction with the turn's replies and its notices to other chats: a channel
# records there that the update was handled (and what answers it), so the step and that record commit
# together or not at all. Notices reach other chats only this way (a turn without it sends none).
# That record it may return instead of writing it (``Answered``): the engine writes it with the
# chat's state, in one statement where the database allows.
Within = Callable[[AsyncSession, list[Reply], list[Notice]], Awaitable[Answered | None]]
# Runs inside a turn's transaction, before ``Within``, when what the person sent was a secret or
# personal data the turn needed only for itself (``Flow.forgets``): the channel removes those words
# (given here) from what it stored of the update, and deletes the message itself where it can when
# the last argument says it was a secret (``Flow.secret_at``: a password, not a tax id).
Forget = Callable[[AsyncSession, list[str], bool], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Turn:
    """What one event came to: the replies to send, in order, and where the chat stands after it
    (flow, step; None, None when unknown), for a channel to log without a query."""

    replies: list[Reply]
    position: tuple[str | None, str | None] = (None, None)

    @classmethod
    def at(cls, replies: list[Reply], state: ChatState) -> Turn:
        return cls(replies, (state.flow, state.step))


async def record_unsaved(session: AsyncSession, within: Within | None, replies: list[Reply]) -> None:
    """``within`` for a turn that saves no state, and what it left to write."""
    if within is not None and (answered := await within(session, replies, [])) is not None:
        await answered.write(session)


def follow_link(state: ChatState, link: Link | None) -> None:
    """The chat's role is its link's; a chat whose technician or staff link ended is a stranger again."""
    role = link.role if link is not None else Role.SUBSCRIBER
    if role is not state.role:
        state.role = role
        state.flow = state.step = None
        state.current_ticket = None
