"""What the bot does on its own clock, beside the updates: outage notices and the handoff queue's
"your place in the queue" every minute, the metrics gauges read from the database, and old inbox
rows pruned every hour. A failed round is logged and tried again a minute later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

from flows.outages import OutageNotifier

from bot import metrics
from bot.runtime.processor import Processor
from bot.settings import BotSettings
from bot.store import Database, DeskJobs, Handoffs, utcnow

log = logging.getLogger(__name__)

NOTICE_EVERY = 60.0  # seconds between looks for ended outages to tell the watchers about
PRUNE_EVERY = 3600.0
KEEP_INBOX_FOR = 2  # days: Telegram never redelivers an update that old


class Housekeeping:
    def __init__(
        self, database: Database, settings: BotSettings, notifier: OutageNotifier, processor: Processor,
    ) -> None:
        self.database = database
        self.settings = settings
        self.notifier = notifier
        self.processor = processor

    async def tell_waiting(self) -> None:
        """Subscribers nobody in the staff answered yet hear their place in the queue (once)."""
        settings = self.settings
        notices = await self.processor.engine.waiting_notices(
            utcnow(), timedelta(minutes=settings.handoff_wait_minutes), settings.handoff_minutes_each,
        )
        await self.processor.send_notices(notices)

    async def refresh_metrics(self) -> None:
        """The gauges read from the database: conversations with the staff now, the desk's jobs."""
        async with self.database.transaction() as session:
            metrics.HANDOFFS_OPEN.set(await Handoffs().count_open(session))
            for state, count in (await DeskJobs().counts(session)).items():
                metrics.DESK_JOBS.labels(state.value).set(count)

    async def prune(self) -> None:
        async with self.database.transaction() as session:
            await self.processor.inbox.prune(session, utcnow() - timedelta(days=KEEP_INBOX_FOR))

    async def run(self, stop: asyncio.Event) -> None:
        """Outage notices, the queue and the gauges every minute; old inbox rows every hour."""
        pruned_at = 0.0
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            try:
                await self.processor.send_notices(await self.notifier.check())
                await self.tell_waiting()
                await self.refresh_metrics()
                if loop.time() - pruned_at >= PRUNE_EVERY:
                    pruned_at = loop.time()
                    await self.prune()
            except Exception as exc:
                log.error("housekeeping failed (%s); trying again in a minute", type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), NOTICE_EVERY)
