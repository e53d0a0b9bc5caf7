"""The restart watch: connections the bot dropped for a restart (``flows.subscriber.restart``),
looked at after the turn that dropped them, until each is back or its wait runs out.

The app runs ``RestartChecks.check()`` every ``restart_poll_seconds``. Each due watch is claimed
(``bot.store.RestartWatches``: two processes never look at one at once), the customer's sessions read
through the coordinator: a new session of a dropped one's contract is "back"; none by ``give_up_at``
is "not back"; the ISP failing is "unknown" once the wait is over (before, it is looked at again).
The outcome is a turn of the chat's own (a ``Told`` event for the restart flow's ``checked`` step),
whose transaction marks the watch answered: a watch is told once, also across a restart of the bot,
and a second claimer's turn is undone. Its replies are the caller's to send as notices of kind
``restart_result`` (at most once, as the outage notices: twice would be worse than once lost).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any

from bot.isp import IspError
from bot.store import Answered, Database, RestartWatch, RestartWatches, UpdateTakenError
from bot.store.channels import channel_of_chat
from sqlalchemy.ext.asyncio import AsyncSession

from flows.engine import Engine
from flows.events import Incoming, Told
from flows.replies import Notice, Reply

log = logging.getLogger(__name__)

BACK, NOT_BACK, UNKNOWN = "back", "not_back", "unknown"  # what a watch saw (``Told.data["outcome"]``)
KIND = "restart_result"  # the notices' kind (a WhatsApp template may be named for it)
BATCH = 50
LEASE = timedelta(seconds=30)  # a claimed watch is another worker's again after this, if still unanswered


class RestartChecks:
    def __init__(self, engine: Engine, *, lease: timedelta = LEASE) -> None:
        self.engine = engine
        self.database: Database = engine.database
        self.coordinator = engine.coordinator
        self.lease = lease
        self.watches = RestartWatches()

    async def check(self) -> list[Notice]:
        """The notices of every watch due whose connection is back, or whose wait ran out."""
        now = self.coordinator.now()
        async with self.database.transaction() as session:
            due = await self.watches.claim(session, now, self.lease, BATCH)
        notices: list[Notice] = []
        # Side by side: one slow answer of the ISP does not hold the other chats' news back.
        for done in await asyncio.gather(*(self._one(watch, now) for watch in due), return_exceptions=True):
            if isinstance(done, BaseException):  # left claimed: looked at again when its lease ends
                log.error("a restart watch could not be looked at: %s", type(done).__name__)
            else:
                notices += done
        return notices

    async def _one(self, watch: RestartWatch, now: datetime) -> list[Notice]:
        seen = await self._look(watch, now)
        if seen is None:
            async with self.database.transaction() as session:
                await self.watches.later(session, watch.id, now + self._poll)
            return []
        return await self._tell(watch, seen)

    @property
    def _poll(self) -> timedelta:
        return timedelta(seconds=self.engine.policy.restart_poll_seconds)

    async def _look(self, watch: RestartWatch, now: datetime) -> dict[str, Any] | None:
        """What the watch saw (``Told.data``), or None: nothing to tell yet."""
        over = now >= watch.give_up_at
        try:
            sessions = await self.coordinator.sessions(watch.customer_code)
        except IspError as exc:
            log.warning("could not look at a restarted connection: %s", type(exc).__name__)
            return {"outcome": UNKNOWN} if over else None
        fresh = [s for s in sessions if s.session_id not in watch.sessions and s.contract_id in watch.contracts]
        if fresh:
            return {"outcome": BACK, "address": fresh[0].framed_ipv4_address or ""}
        if over:
            return {"outcome": NOT_BACK, "seconds": round((watch.give_up_at - watch.created_at).total_seconds())}
        return None

    async def _tell(self, watch: RestartWatch, seen: dict[str, Any]) -> list[Notice]:
        """The chat's turn for the outcome; its replies as notices (none when another worker told it)."""
        watches, now = self.watches, self.coordinator.now()

        async def answered(session: AsyncSession, _: list[Reply], __: list[Notice]) -> Answered | None:
            if not await watches.answered(session, watch.id, now):
                raise UpdateTakenError(watch.id)  # told by another worker: this turn is undone
            return None

        incoming = Incoming(watch.chat_id, Told("restart", "checked", seen), channel=channel_of_chat(watch.chat_id))
        try:
            turn = await self.engine.turn(incoming, within=answered)
        except UpdateTakenError:
            return []
        log.info("restart watch %s answered: %s", watch.id, seen["outcome"])
        return [Notice(watch.chat_id, reply, kind=KIND) for reply in turn.replies]
