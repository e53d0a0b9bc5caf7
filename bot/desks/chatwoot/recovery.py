"""Agents' messages whose webhook never reached the bot, read back from Chatwoot.

Chatwoot posts an API inbox's webhook once: a post that fails (the bot down, a proxy, a 503) is not
sent again, the message marked ``failed`` (``Webhooks::Trigger#handle_error``: only an agent bot's
webhook is treated otherwise). So a reply an agent wrote meanwhile would be lost.

``ChatwootRecovery`` reads it back: at start and then every ``interval`` seconds, it lists the
inbox's open and pending conversations (those agents may be writing in) and, for each whose last
activity is newer than what it read last, the messages after the last one it read (at start: the
latest, back to ``WINDOW``), and keeps each through the webhook's own intake, as if Chatwoot had
posted it. The inbox keeps an agent's message once by its id, so one that did arrive, or arrives
later, is not kept twice. A conversation the bot still holds handed over but an agent resolved
meanwhile (its status change lost the same way) is asked for by its id and its resolve kept, once
per handoff. ``WINDOW`` is shorter than the inbox keeps its rows
(``bot.runtime.housekeeping.KEEP_INBOX_FOR``), so a message is never read back after its row is gone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from bot.desks.chatwoot.client import ChatwootClient, ChatwootGone
from bot.desks.chatwoot.intake import ChatwootIntake
from bot.store import Handoffs
from bot.wakeup import Wakeup

log = logging.getLogger(__name__)

INTERVAL = 60.0  # seconds between rounds
WINDOW = 36 * 3600  # seconds back a message is read again at start (the inbox keeps rows 2 days)
PAGES = 40  # pages of 25 conversations per status, at most, a round
BACK = 10  # pages of 20 messages read back in one conversation at start, at most
STATUSES = ("open", "pending")
REMEMBERED = 10_000


class ChatwootRecovery:
    def __init__(self, client: ChatwootClient, intake: ChatwootIntake, *, interval: float = INTERVAL,
                 clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.intake = intake
        self.interval = interval
        self.clock = clock
        self._read: OrderedDict[int, tuple[int, int]] = OrderedDict()  # conversation: (last activity, last id)
        self._wake = Wakeup()
        self._failing = False

    def wake(self) -> None:
        """Look now (a webhook was refused: what it carried is read back)."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                found = await self.round()
                if self._failing:
                    log.info("chatwoot: reading missed messages works again")
                self._failing = False
                if found:
                    log.info("chatwoot: %d agent message(s) whose webhook never came were read back", found)
            except Exception as exc:  # Chatwoot or the database down: one line a streak, tried next round
                if not self._failing:
                    log.warning("chatwoot: could not read back missed messages (%s); trying every %.0f s",
                                type(exc).__name__, self.interval)
                self._failing = True
            await self._wake.pause(self.interval, stop)

    async def round(self) -> int:
        """One pass over the conversations agents may be writing in: how many events it kept."""
        kept, listed = 0, set()
        for status in STATUSES:
            for page in range(1, PAGES + 1):
                conversations = await self.client.conversations(status, page)
                for conversation in conversations:
                    listed.add(str(conversation.get("id")))
                    kept += await self._conversation(conversation)
                if len(conversations) < 25:
                    break
        return kept + await self._resolved(listed)

    async def _resolved(self, listed: set[str]) -> int:
        """Handoffs the bot holds open whose conversation an agent resolved meanwhile (that webhook
        lost too): the resolve is kept as if posted, once per handoff, and hands the chat back."""
        async with self.intake.database.session() as session:
            handoffs = await Handoffs().open_at_desk(session)
        kept = 0
        for handoff in handoffs:
            ref = handoff.desk_ref
            if ref is None or ref in listed or not ref.isdecimal():
                continue  # open or pending in Chatwoot: nothing was missed
            try:
                conversation = await self.client.conversation_json(int(ref))
            except ChatwootGone:
                continue
            if conversation.get("status") != "resolved":
                continue
            payload = {**conversation, "event": "conversation_status_changed",
                       "updated_at": handoff.opened_at.timestamp()}  # one key a handoff: kept once
            kept += 1 if await self.intake.store(payload, {}, recovered=True) else 0
        return kept

    async def _conversation(self, conversation: dict[str, Any]) -> int:
        conversation_id, activity = conversation.get("id"), conversation.get("last_activity_at")
        if not isinstance(conversation_id, int):
            return 0
        activity = activity if isinstance(activity, int) else 0
        known = self._read.get(conversation_id)
        if known is not None and activity and activity <= known[0]:
            return 0  # nothing new since it was read
        if known is None and activity and activity < self.clock() - WINDOW:
            return 0
        last = known[1] if known is not None else await self._start(conversation_id)
        kept, newest = 0, last
        while True:
            messages = await self.client.messages_after(conversation_id, newest)
            for message in messages:
                newest = max(newest, int(message["id"]))
                kept += await self._keep(conversation, message)
            if len(messages) < 100:
                break
        self._read[conversation_id] = (activity, newest)
        self._read.move_to_end(conversation_id)
        while len(self._read) > REMEMBERED:
            self._read.popitem(last=False)
        return kept

    async def _start(self, conversation_id: int) -> int:
        """The id to read after in a conversation not read yet: just before its messages of the last
        ``WINDOW`` (older ones were delivered, or are older than any the inbox would know again);
        with none that recent, its newest."""
        since, before, oldest, latest = self.clock() - WINDOW, None, None, 0
        for _ in range(BACK):
            page = await self.client.messages_before(conversation_id, before)
            if not page:
                break
            ids = [int(m["id"]) for m in page]
            latest = max(latest, *ids)
            recent = [int(m["id"]) for m in page if _int(m.get("created_at")) >= since]
            if recent:
                oldest = min(recent)
            if len(recent) < len(page) or len(page) < 20:
                break
            before = min(ids)
        return oldest - 1 if oldest is not None else latest

    async def _keep(self, conversation: dict[str, Any], message: dict[str, Any]) -> int:
        """An agent's message as its webhook would have posted it, kept once."""
        if _int(message.get("created_at")) < self.clock() - WINDOW:
            return 0
        payload = {**message, "event": "message_created", "conversation": conversation}
        return 1 if await self.intake.store(payload, {}, recovered=True) else 0


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0

