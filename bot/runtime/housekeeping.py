"""What the bot does on its own clock, beside the updates: outage notices and the handoff queue's
"your place in the queue" every minute, the metrics gauges read from the database, the staff warned
of contact deadlines close to their end every ten minutes (through the staff desk; logged without one),
and old inbox rows and contacts past their legal term pruned every hour. A failed round is logged
and tried again a minute later. Beside it, ``run_restarts`` looks at restarted connections every
``restart_poll_seconds`` (``flows.restarts``) and sends what it tells the chats, and ``run_notices``
runs a round of the notices the bot writes first every ``ISPBOT_NOTICE_EVERY`` minutes
(``flows.notices``: its notices go to the channels as it makes them, behind the answers to people).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

from flows.deadlines import DeadlineWatch
from flows.notices import NoticeRound
from flows.outages import OutageNotifier
from flows.restarts import RestartChecks

from bot import metrics
from bot.runtime.processor import Processor
from bot.settings import BotSettings
from bot.store import KEPT_YEARS, Contacts, ContestedBills, Database, DeskJobs, Handoffs, RestartWatches, utcnow
from bot.store.channels import ChannelIds

log = logging.getLogger(__name__)

NOTICE_EVERY = 60.0  # seconds between looks for ended outages to tell the watchers about
PRUNE_EVERY = 3600.0
DEADLINES_EVERY = 600.0
KEEP_INBOX_FOR = 2  # days: Telegram never redelivers an update that old
KEEP_UPDATE_IDS_FOR = 8  # days a WhatsApp wamid is remembered: Meta retries a webhook for up to 7
KEEP_RESTART_WATCHES_FOR = 1  # days: a watch is answered within minutes


class Housekeeping:
    def __init__(
        self, database: Database, settings: BotSettings, notifier: OutageNotifier, processor: Processor,
        *, deadlines: DeadlineWatch | None = None, restarts: RestartChecks | None = None,
        notices: NoticeRound | None = None,
    ) -> None:
        self.database = database
        self.settings = settings
        self.notifier = notifier
        self.processor = processor
        self.deadlines = deadlines
        self.restarts = restarts
        self.notices = notices

    async def tell_waiting(self) -> None:
        """Subscribers nobody in the staff answered yet hear their place in the queue (once)."""
        settings = self.settings
        notices = await self.processor.engine.waiting_notices(
            utcnow(), timedelta(minutes=settings.handoff_wait_minutes), settings.handoff_minutes_each,
        )
        await self.processor.send_notices(notices)

    async def refresh_metrics(self) -> None:
        """The gauges read from the database: conversations with the staff now, the desk's jobs,
        deadlines running."""
        async with self.database.transaction() as session:
            metrics.HANDOFFS_OPEN.set(await Handoffs().count_open(session))
            for job_state, jobs in (await DeskJobs().counts(session)).items():
                metrics.DESK_JOBS.labels(job_state.value).set(jobs)
        if self.deadlines is not None:
            running, closing, overdue = await self.deadlines.counts()
            for state, count in (("running", running), ("closing", closing), ("overdue", overdue)):
                metrics.CONTACT_DEADLINES.labels(state).set(count)

    async def warn_deadlines(self) -> None:
        """The staff desk hears of each deadline close to its end, once (its jobs, written by the watch)."""
        if self.deadlines is None:
            return
        warnings = await self.deadlines.check()
        if not warnings:
            return
        if not self.deadlines.desk:
            log.warning("%d contact deadline(s) close to their end and no staff desk to tell: "
                        "see `ispbot contacts due`", len(warnings))
        elif (wake := self.processor.engine.on_desk_jobs) is not None:
            wake()

    async def prune(self) -> None:
        """Old inbox rows, and contacts past their legal term (``KEPT_YEARS``: kept that long, no longer)."""
        async with self.database.transaction() as session:
            await self.processor.inbox.prune(session, utcnow() - timedelta(days=KEEP_INBOX_FOR))
            await ChannelIds().prune_updates(session, utcnow() - timedelta(days=KEEP_UPDATE_IDS_FOR))
            await Contacts().purge(session, utcnow() - timedelta(days=365 * KEPT_YEARS + 1))
            await ContestedBills().purge(session, utcnow() - timedelta(days=365 * KEPT_YEARS + 1))
            await RestartWatches().prune(session, utcnow() - timedelta(days=KEEP_RESTART_WATCHES_FOR))

    async def run(self, stop: asyncio.Event) -> None:
        """Outage notices, the queue and the gauges every minute; old inbox rows every hour."""
        pruned_at = warned_at = 0.0
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            try:
                await self.processor.send_notices(await self.notifier.check())
                await self.tell_waiting()
                await self.refresh_metrics()
                if loop.time() - warned_at >= DEADLINES_EVERY:
                    warned_at = loop.time()
                    await self.warn_deadlines()
                if loop.time() - pruned_at >= PRUNE_EVERY:
                    pruned_at = loop.time()
                    await self.prune()
            except Exception as exc:
                log.error("housekeeping failed (%s); trying again in a minute", type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), NOTICE_EVERY)

    async def run_restarts(self, stop: asyncio.Event) -> None:
        """Restarted connections looked at every ``restart_poll_seconds``, the chats told what was seen."""
        if self.restarts is None:
            return
        every = self.restarts.engine.policy.restart_poll_seconds
        while not stop.is_set():
            try:
                await self.processor.send_notices(await self.restarts.check())
            except Exception as exc:
                log.error("looking at restarted connections failed (%s); trying again", type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)

    async def run_notices(self, stop: asyncio.Event) -> None:
        """A round of notices every ``ISPBOT_NOTICE_EVERY`` minutes (none when 0). The first waits one
        interval too: a bot restarted in a loop does not read the ISP's bills at each start."""
        every = self.settings.notice_every * 60.0
        if self.notices is None or not every:
            return
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)
            if stop.is_set():
                return
            try:
                await self.notices.run(send=self.processor.send_round, channels=self.processor.serves)
            except Exception as exc:
                log.error("a round of notices failed (%s); trying again at the next one", type(exc).__name__)
