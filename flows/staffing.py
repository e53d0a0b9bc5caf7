"""``Staff`` (``ctx.staff``): a subscriber's turn and the staff desk.

A step hands the chat over (``handoff``, recorded by ``open_handoff``), passes the person's words on
to the staff member handling it (``relay``), tells the desk something about the person (``tell``: a
cancel, a suspension) and tells the person what to expect of the staff (``say_expectation``). What
the engine makes of it are desk jobs written with the turn (``flows.desk``, ``flows.deskwork``).
"""

from __future__ import annotations

from typing import Any

from bot.i18n import DEFAULT_LANGUAGE
from bot.store import UNIDENTIFIED
from sqlalchemy.ext.asyncio import AsyncSession

from flows.chat import RECENT, Chat, Repositories
from flows.queue import Expectation, expectation
from flows.replies import Handoff, ToStaff
from flows.speech import Replies


class Staff:
    def __init__(self, chat: Chat, session: AsyncSession, repos: Repositories, reply: Replies) -> None:
        self._chat = chat
        self._session = session
        self._repos = repos
        self._reply = reply
        self.notices: list[str] = []  # words for the staff desk about this chat (``tell``)

    @property
    def recent(self) -> list[str]:
        """The person's last few messages, oldest first (the staff's card shows them)."""
        return list(self._chat.state.data.get(RECENT, []))

    def handoff(self, reason: str, **summary: str) -> None:
        """Ask for a person; the staff side (when configured) opens a topic with this summary."""
        self._reply.replies.append(Handoff(reason=reason, ticket=self._chat.state.current_ticket, summary=summary))

    def relay(self, text: str, kind: str | None = None) -> None:
        """Pass what the person said to the staff member handling the conversation (no reply here);
        a ``kind`` of media is copied as the person sent it."""
        self._reply.replies.append(ToStaff(text, self._chat.message_id if kind else None, kind))

    def tell(self, key: str, /, **variables: Any) -> None:
        """Tell the staff desk something about this person (a cancel, a suspension), in the staff's
        language: a desk job written with the turn (``flows.desk.StaffNotice``); nothing without a desk."""
        self.notices.append(self._chat.render_in(DEFAULT_LANGUAGE, key, **variables))

    async def open_handoff(self, ticket: int) -> bool:
        """Record that the conversation (of ticket ``ticket``) waits for a person; False when it already did.
        A chat linked to no customer hands over with ``UNIDENTIFIED`` as its ticket: it has none."""
        link = self._chat.link
        customer = link.customer_code if link is not None else None
        _, new = await self._repos.handoffs.open(self._session, self._chat.chat_id, ticket_id=ticket,
                                                 customer_code=UNIDENTIFIED if customer is None else customer)
        return new

    async def say_expectation(self, *, queued: bool) -> None:
        """Tell the person what to expect of the staff (``flows.queue``): outside the desk's hours, when
        it opens; open, their place in line and the wait (``queued``: in the desk's line, else a
        ticket answered from the ISP system, with no line to tell); the hours when they are known."""
        chat = self._chat
        policy, now = chat.policy, chat.coordinator.now()
        if queued:
            expected = await expectation(self._session, self._repos.handoffs, policy, chat.chat_id, now)
        else:
            hours = policy.desk_hours
            closed = hours is not None and not hours.open_at(now)
            expected = Expectation(None if hours is None else not closed, 0, 0,
                                   hours.next_opening(now) if hours is not None and closed else None)
        if queued or expected.open is not None:
            self._reply.say("human.expect", queued=queued, **expected.said(now, policy.support_hours))
