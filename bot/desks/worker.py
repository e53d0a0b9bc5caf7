"""The desk worker: the desk jobs the engine's turns wrote (``bot.store.desk_jobs``), carried out
through the desk's port (``bot.desks.base.Desk``) after those turns committed.

Each round claims due jobs (a lease, kept while the desk takes its time: no other worker, here or
in another process, gets them meanwhile; a dead worker's come back when it ends), runs each chat's
jobs in order and chats side by side. Opening a conversation keeps the
desk's reference with the handoff, for the posts, the close and the staff's events that follow. A
job the desk could not take now waits (exponential, with jitter) with its chat's later jobs behind
it; one refused for good, or failing ``tries_before_dead`` times, is set aside (logged with the
desk's reason) and its chat goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from flows.desk import CloseConversation, OpenConversation, PostMessage, StaffNotice, read_job

from bot.desks.base import Desk, DeskRefused, DeskUnavailable
from bot.logs import chat_ref
from bot.mirror.backoff import retry_delay
from bot.store import Database, DeskJobEntry, DeskJobs, Handoffs, utcnow
from bot.wakeup import Wakeup

log = logging.getLogger("bot.desks")

Clock = Callable[[], datetime]
ERROR_TEXT_MAX = 300


class DeskWorker:
    def __init__(
        self, database: Database, desk: Desk, *, batch: int = 100, concurrency: int = 16, idle: float = 1.0,
        lease: timedelta = timedelta(minutes=2), tries_before_dead: int = 20,
        backoff_cap: timedelta = timedelta(minutes=5), clock: Clock = utcnow,
    ) -> None:
        self.database = database
        self.desk = desk
        self.jobs = DeskJobs(lease=lease)
        self.lease = lease
        self.handoffs = Handoffs()
        self.batch = batch
        self.idle = idle
        self.tries_before_dead = tries_before_dead
        self.backoff_cap = backoff_cap
        self.clock = clock
        self._slots = asyncio.Semaphore(concurrency)
        self._wake = Wakeup()

    def wake(self) -> None:
        """New jobs were committed: look now rather than after the idle pause."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Carry out jobs until ``stop``; a job in hand is finished first. A failed round (the database
        down) is logged and tried again after a growing pause."""
        failures = 0
        while not stop.is_set():
            pause = self.idle
            try:
                claimed = await self.round()
                failures = 0
            except Exception as exc:
                failures += 1
                log.error("desk: a round failed (%s, %d in a row); is the database up?", type(exc).__name__, failures)
                claimed = 0
                pause = max(pause, retry_delay(failures, cap=self.backoff_cap).total_seconds())
            if not claimed:
                await self._wake.pause(pause, stop)

    async def round(self) -> int:
        """Claim due jobs and carry them out; how many were claimed."""
        async with self.database.transaction() as session:
            claimed = await self.jobs.claim(session, self.batch, self.clock())
        by_chat: dict[int, list[DeskJobEntry]] = {}
        for job in claimed:
            by_chat.setdefault(job.chat_id, []).append(job)
        keeper = asyncio.create_task(self._keep_leases([job.id for job in claimed]))
        try:
            await asyncio.gather(*(self._chat(jobs) for jobs in by_chat.values()))
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        return len(claimed)

    async def _keep_leases(self, ids: list[int]) -> None:
        """While the round's jobs are in hand (a desk waiting out a flood limit, say), keep them leased."""
        every = self.lease.total_seconds() / 3
        while True:
            await asyncio.sleep(every)
            try:
                async with self.database.transaction() as session:
                    await self.jobs.extend(session, ids, self.clock() + self.lease)
            except Exception as exc:  # the lease may end: another worker then repeats a job, never loses one
                log.warning("desk: could not keep the jobs in hand leased (%s)", type(exc).__name__)

    async def _chat(self, jobs: list[DeskJobEntry]) -> None:
        async with self._slots:
            for index, job in enumerate(jobs):
                if not await self._one(job):
                    async with self.database.transaction() as session:  # they wait behind the failed one
                        await self.jobs.release(session, [later.id for later in jobs[index + 1:]], self.clock())
                    return

    async def _one(self, job: DeskJobEntry) -> bool:
        """Carry out one job and record its outcome; False when the chat's later jobs must wait."""
        try:
            await self._carry_out(job)
        except DeskRefused as refused:
            await self._dead(job, f"refused: {refused}")
            return True
        except Exception as exc:
            reason = str(exc) if isinstance(exc, DeskUnavailable) else type(exc).__name__
            if job.attempts >= self.tries_before_dead:
                await self._dead(job, f"failed {job.attempts} times: {reason}")
                return True
            delay = retry_delay(job.attempts, cap=self.backoff_cap)
            log.warning("desk: %s job for chat %s not done (%s); trying again in %.0fs", job.kind.value,
                        chat_ref(job.chat_id), reason, delay.total_seconds())
            async with self.database.transaction() as session:
                await self.jobs.retry(session, [job.id], self.clock() + delay, reason[:ERROR_TEXT_MAX])
            return False
        async with self.database.transaction() as session:
            await self.jobs.done(session, [job.id], self.clock())
        return True

    async def _carry_out(self, job: DeskJobEntry) -> None:
        chat, what = read_job(job.kind.value, job.payload)
        ref = await self._ref(job)
        match what:
            case OpenConversation(title=title, reason=reason):
                if ref is not None or job.handoff_id is None:
                    return  # opened already (the same handoff's card again, or this job run twice)
                opened = await self.desk.open(chat, title, reason)
                async with self.database.transaction() as session:
                    await self.handoffs.set_desk_ref(session, job.handoff_id, opened)
            case PostMessage(post=post):
                if ref is None and not self.desk.follows_every_chat:
                    raise DeskRefused("no conversation to post into: its opening was set aside")
                await self.desk.post(ref, chat, post)
            case CloseConversation(resolved=resolved):
                if ref is None:
                    return  # never opened: nothing to close
                await self.desk.close(ref, chat, resolved=resolved)
            case StaffNotice(text=text):
                await self.desk.notify(chat, text)

    async def _ref(self, job: DeskJobEntry) -> str | None:
        if job.handoff_id is None:
            return None
        async with self.database.session() as session:
            handoff = await self.handoffs.get(session, job.handoff_id)
        return handoff.desk_ref if handoff is not None else None

    async def _dead(self, job: DeskJobEntry, reason: str) -> None:
        log.error("desk: %s job %d for chat %s set aside: %s", job.kind.value, job.id, chat_ref(job.chat_id), reason)
        async with self.database.transaction() as session:
            await self.jobs.dead(session, [job.id], reason[:ERROR_TEXT_MAX])

