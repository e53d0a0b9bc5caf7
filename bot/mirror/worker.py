"""The delivery worker: the ``chat_messages`` outbox mirrored into the ISP system.

Each round claims up to ``batch`` due entries (a lease: no other worker, in this process or
another, gets them meanwhile; ``bot.store.queue``), groups them by ticket and sends each ticket's
entries in order, ``per_call`` wire entries per ``chat_messages`` call, a few tickets at a time.
An accepted call's entries are sent; a refused or failed one waits, with the ticket's later entries
behind it so order holds, or ends dead (``MirrorWorker`` lists the outcomes).

Delivery is at least once: a call whose answer never came (a timeout) may have been recorded, and
it is sent again. A worker never starts a call once its lease is nearly over, or after ``stop``:
those entries are handed back at once instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot import metrics
from bot.isp import ErrorName, InvalidRequestError, IspApiError, IspClient, IspError
from bot.mirror.backoff import CAP, retry_delay
from bot.mirror.calls import DEFAULT_PER_CALL, Call, InvalidEntry, pack, wire_messages
from bot.mirror.split import MAX_CONTENT
from bot.store import Database, Outbox, OutboxEntry, utcnow
from bot.store.outbox import DEFAULT_LEASE
from bot.wakeup import Wakeup

log = logging.getLogger("bot.mirror")

Clock = Callable[[], datetime]
Sleep = Callable[[float], Awaitable[None]]

# Entries are packed into a call only within one claim, per ticket: with many conversations
# interleaved, a small claim held about one entry per ticket and every entry cost a call of its own
# (bench/RESULTS.md, "Mirror"). A claim never outlives its lease: calls not started when it nears
# its end are handed back.
DEFAULT_BATCH = 1000
LEASE_MARGIN = timedelta(seconds=30)  # more than one call can take (the ISP client's timeout)
ERROR_TEXT_MAX = 300


@dataclass
class _Tally:
    sent: int = 0
    retried: int = 0
    dead: int = 0
    released: int = 0


class MirrorWorker:
    """Delivers the outbox. Outcomes, per ``chat_messages`` call:

    - accepted: the entries are marked sent;
    - the web service could not be reached, timed out, answered garbage, or refused with any other
      code: the call's entries and the ticket's later ones wait (``retry_delay``: exponential with
      jitter, capped at 5 minutes) and the ticket's later entries stay behind them, so order holds;
      an ISP refusal (not an outage) repeated ``refusals_before_dead`` times ends in the dead state;
    - error 16, ticket not found: the ticket's claimed entries go to the dead state at once, for
      ``ispbot mirror status`` to show and ``ispbot mirror retry`` to requeue;
    - an entry no request could carry (an empty content) is dead at once, alone.
    """

    def __init__(
        self,
        database: Database,
        client: IspClient,
        *,
        batch: int = DEFAULT_BATCH,
        per_call: int = DEFAULT_PER_CALL,
        concurrency: int = 2,
        content_limit: int = MAX_CONTENT,
        lease: timedelta = DEFAULT_LEASE,
        idle: float = 2.0,
        backoff_cap: timedelta = CAP,
        refusals_before_dead: int = 10,
        stats_every: float = 15.0,
        clock: Clock = utcnow,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if batch < 1 or per_call < 1 or concurrency < 1:
            raise ValueError("batch, per_call and concurrency must be at least 1")
        if lease <= LEASE_MARGIN:
            raise ValueError(f"the lease must be longer than {LEASE_MARGIN}")
        self.database = database
        self.client = client
        self.outbox = Outbox(lease=lease)
        self.batch = batch
        self.per_call = per_call
        self.content_limit = content_limit
        self.lease = lease
        self.idle = idle
        self.backoff_cap = backoff_cap
        self.refusals_before_dead = refusals_before_dead
        self.stats_every = stats_every
        self.clock = clock
        self.sleep = sleep
        self._slots = asyncio.Semaphore(concurrency)
        self._wake = Wakeup()
        self._stop: asyncio.Event | None = None
        # Tickets this worker put off because the ISP was unreachable, with the time each waits for.
        self._outage_waits: dict[int, datetime] = {}

    # ---- the loop ---------------------------------------------------------------------------------
    def wake(self) -> None:
        """New entries were committed: look now rather than at the end of the idle pause."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until ``stop`` is set. A call in flight is finished (its outcome recorded); no
        new call starts after ``stop``. A database error is logged and the round tried again later."""
        self._stop = stop
        failures = 0
        stats_at: datetime | None = None
        try:
            while not stop.is_set():
                pause = self.idle
                try:
                    claimed = await self._round()
                    if failures:
                        log.info("mirror: delivery rounds work again after %d failed", failures)
                    failures = 0
                except Exception as exc:  # the database is unreachable, most likely: never let the worker die
                    failures += 1
                    if failures == 1:  # one line a streak; the traceback for whoever debugs
                        log.warning("mirror: a delivery round failed (%s); trying again, with growing pauses, "
                                    "until it works", type(exc).__name__)
                    log.debug("mirror: delivery round %d in a row failed", failures, exc_info=True)
                    claimed = 0
                    pause = max(pause, retry_delay(failures, cap=self.backoff_cap).total_seconds())
                now = self.clock()
                if stats_at is None or (now - stats_at).total_seconds() >= self.stats_every:
                    stats_at = now
                    with contextlib.suppress(Exception):
                        await self.refresh_metrics()
                if claimed and not stop.is_set():
                    continue  # more may be due right away
                await self._wake.pause(pause, stop, sleep=self.sleep)
        finally:
            self._stop = None

    async def refresh_metrics(self) -> None:
        """Outbox depth by state and the oldest pending entry's age, into the Prometheus gauges."""
        async with self.database.transaction() as session:
            stats = await self.outbox.stats(session, now=self.clock())
        for state, count in stats.depth.items():
            metrics.MIRROR_OUTBOX.labels(state=state.value).set(count)
        age = stats.oldest_pending_age
        metrics.MIRROR_LAG.set(max(0.0, age.total_seconds()) if age is not None else 0.0)

    # ---- one round --------------------------------------------------------------------------------
    async def deliver_once(self) -> int:
        """One round: claim what is due and try to deliver it; how many entries the ISP accepted."""
        tally = _Tally()
        await self._round(tally)
        return tally.sent

    async def _round(self, tally: _Tally | None = None) -> int:
        """One round; how many entries it claimed."""
        tally = tally if tally is not None else _Tally()
        now = self.clock()
        async with self.database.transaction() as session:
            entries = await self.outbox.claim_batch(session, self.batch, now=now)
        if not entries:
            return 0
        lease_end = now + self.lease
        tickets: dict[int, list[OutboxEntry]] = {}
        for entry in entries:
            tickets.setdefault(entry.message.ticket_id, []).append(entry)
        results = await asyncio.gather(
            *(self._deliver_ticket(ticket, group, lease_end, tally) for ticket, group in tickets.items()),
            return_exceptions=True,
        )
        for ticket, result in zip(tickets, results, strict=True):
            if isinstance(result, BaseException):
                # Its entries stay leased and are handed out again when the lease runs out.
                log.error("mirror: delivering ticket %s failed", ticket, exc_info=result)
        return len(entries)

    async def _deliver_ticket(
        self, ticket: int, entries: Sequence[OutboxEntry], lease_end: datetime, tally: _Tally,
    ) -> None:
        async with self._slots:
            pairs = []
            for entry in entries:
                try:
                    pairs.append((entry, wire_messages(entry, self.content_limit)))
                except InvalidEntry as exc:
                    await self._dead(ticket, [entry.id], str(exc), tally)
            calls = pack(pairs, self.per_call)
            for index, call in enumerate(calls):
                waiting = [entry_id for later in calls[index:] for entry_id in later.ids]
                if (self._stop is not None and self._stop.is_set()) or self.clock() >= lease_end - LEASE_MARGIN:
                    await self._release(waiting, tally)
                    return
                try:
                    await self.client.chat_messages(call.request())
                except IspApiError as exc:
                    if exc.known is ErrorName.TICKET_NOT_FOUND:
                        await self._dead(ticket, waiting, _error_text(exc), tally)
                        return
                    if _attempts(call) >= self.refusals_before_dead:
                        await self._dead(ticket, call.ids, _error_text(exc), tally)
                        continue
                    await self._retry(ticket, waiting, call, _error_text(exc), tally)
                    return
                except InvalidRequestError as exc:  # nothing was sent, and it never could be
                    await self._dead(ticket, call.ids, _error_text(exc), tally)
                    continue
                except IspError as exc:  # an outage: unreachable, timed out, a 5xx, an open circuit
                    self._outage_waits[ticket] = await self._retry(ticket, waiting, call, _error_text(exc), tally)
                    return
                await self._mark(tally, "sent", call.ids)
                self._outage_waits.pop(ticket, None)
                await self._end_outage_waits()

    # ---- outcomes ---------------------------------------------------------------------------------
    async def _mark(self, tally: _Tally, outcome: str, ids: Collection[int], error: str = "",
                    retry_at: datetime | None = None) -> None:
        async with self.database.transaction() as session:
            if outcome == "sent":
                await self.outbox.mark_sent(session, ids, now=self.clock())
                tally.sent += len(ids)
            elif outcome == "dead":
                await self.outbox.mark_dead(session, ids, error)
                tally.dead += len(ids)
            else:
                assert retry_at is not None  # noqa: S101
                await self.outbox.mark_retry(session, ids, retry_at, error)
                if outcome == "retry":
                    tally.retried += len(ids)
                else:
                    tally.released += len(ids)
        if outcome != "released":
            metrics.MIRROR_DELIVERIES.labels(outcome=outcome).inc(len(ids))

    async def _retry(
        self, ticket: int, ids: Collection[int], call: Call, error: str, tally: _Tally,
    ) -> datetime:
        """Put these entries off by the backoff; the time they wait for."""
        delay = retry_delay(_attempts(call), cap=self.backoff_cap)
        log.info("mirror: ticket %s: %d entries wait %.0f s: %s", ticket, len(ids), delay.total_seconds(), error)
        retry_at = self.clock() + delay
        await self._mark(tally, "retry", ids, error, retry_at=retry_at)
        return retry_at

    async def _end_outage_waits(self) -> None:
        """The ISP accepted a call: the tickets put off while it was unreachable need not wait out
        their backoff (which, doubling, had grown as long as the outage): they are due now.

        Without this a 10,000-entry backlog took 73 s to drain after a 60 s outage, most of it the
        tickets' retry times coming due one by one (bench/mirror_drain.py). Refusals keep their wait.
        """
        if not self._outage_waits:
            return
        waits, self._outage_waits = self._outage_waits, {}
        try:
            async with self.database.transaction() as session:
                due = await self.outbox.retry_now(session, waits, self.clock())
        except Exception as error:  # only a shortcut: the tickets wait out their backoff after all
            log.warning("mirror: could not bring forward the tickets put off by the outage: %s", type(error).__name__)
            return
        if due:
            log.info("mirror: the ISP answers again: %d entries of %d tickets are due now", due, len(waits))
            self.wake()

    async def _dead(self, ticket: int, ids: Collection[int], error: str, tally: _Tally) -> None:
        log.warning("mirror: ticket %s: %d entries dead (ispbot mirror status): %s", ticket, len(ids), error)
        await self._mark(tally, "dead", ids, error)

    async def _release(self, ids: Collection[int], tally: _Tally) -> None:
        """Hand back entries this worker will not send after all (stopping, lease nearly over)."""
        if ids:
            await self._mark(tally, "released", ids, "not sent: the worker stopped", retry_at=self.clock())


def _attempts(call: Call) -> int:
    """Failed tries in a row so far, this one included (each claim counts one)."""
    return max(entry.attempts for entry in call.entries)


def _error_text(exc: IspError) -> str:
    """What the outbox keeps as the last error: the client's message (operation, code, the ISP's
    description; never the key) with the exception's kind, shortened."""
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= ERROR_TEXT_MAX else text[: ERROR_TEXT_MAX - 1] + "…"
