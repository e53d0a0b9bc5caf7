"""The outage notifier: tells the chats that asked "tell me when it ends" that the outage ended.

The app runs ``OutageNotifier.check()`` every minute or so and sends the notices it returns. Each
watched event costs one ``FailOverEvents`` read per check, however many chats watch it.

- Watchers are claimed and their notices rendered in one transaction, so two bot processes never
  both tell a chat; the notice is then the caller's to send, at most once (an outage message twice
  would be worse than one lost).
- An event the ISP cannot be asked about now, or no longer knows (deleted by hand), is left for the
  next check rather than announcing a fix nobody made.
- The notice is in the chat's chosen language, else Brazilian Portuguese. An ended event drops the
  open outages the coordinator keeps, so the chat's next look at the connection does not tell it.
"""

from __future__ import annotations

import logging

from bot.i18n import DEFAULT_LANGUAGE, Translations, default_translations
from bot.isp import IspError
from bot.isp.models.v1_records import FailoverEvent, FailoverStatus
from bot.store import ChatStates, Database, OutageWatches

from flows.coordinator import IspCoordinator
from flows.replies import Notice, notice

log = logging.getLogger(__name__)


class OutageNotifier:
    def __init__(
        self, database: Database, coordinator: IspCoordinator, translations: Translations | None = None,
    ) -> None:
        self.database = database
        self.coordinator = coordinator
        self.translations = translations or default_translations()
        self.watches = OutageWatches()
        self.states = ChatStates()

    async def check(self) -> list[Notice]:
        """The notices for every watched event that has ended since the last check."""
        async with self.database.transaction() as session:
            events = await self.watches.pending_events(session)
        notices: list[Notice] = []
        for event_id in events:
            try:
                event = await self.coordinator.outage(event_id)
            except IspError as exc:
                log.warning("could not check failover event %s: %s", event_id, type(exc).__name__)
                continue
            if event is not None and event.Status is FailoverStatus.FINISHED:
                self.coordinator.forget_outages()  # "Minha conexão" must agree with the notice
                notices += await self._tell_watchers(event_id, event)
        return notices

    async def _tell_watchers(self, event_id: int, event: FailoverEvent) -> list[Notice]:
        notices: list[Notice] = []
        async with self.database.transaction() as session:
            for chat_id in await self.watches.claim_watchers(session, event_id):
                language = (await self.states.load(session, chat_id)).language or DEFAULT_LANGUAGE
                notices.append(notice(self.translations, chat_id, language, "outage_over", "outages.ended",
                                      up=event.UpTime))
        log.info("failover event %s ended: %d chats told", event_id, len(notices))
        return notices
