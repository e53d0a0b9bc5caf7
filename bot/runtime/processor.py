"""From the inbox to the engine to the channel: each chat's updates in order, chats side by side.

One loop claims due updates from the inbox in batches (``bot.store.inbox``: a chat's updates come as
an in-order run that no other worker holds meanwhile) and runs each chat's run in a task of its own,
at most ``concurrency`` at a time. A run that waited past half its lease is put back, not started late.

Exactly once: the engine's turn and the inbox's "done, answered by these calls" commit in one
transaction, only while the update is still pending. The calls then go to the channel
(``bot.channels.base.Channel``), at most its ``sends_at_once`` unrecorded (``_Gate``); the next claim
records that it sent them, and what a dead process left unsent is sent again by ``resend_undelivered``
(every minute, and at once after a take-over: ``bot.runtime.heartbeat``). What the database refused
(recording a delivery, putting an update back) is tried again soon, not left to the lease.

Failures: an update the channel cannot read is set aside and its chat goes on; a database or other
failure puts the update back with a growing delay, set aside after ``max_attempts``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from flows.engine import Engine
from flows.replies import Notice, Reply
from sqlalchemy.ext.asyncio import AsyncSession

from bot import metrics
from bot.channels.base import Call, Channel
from bot.desks.base import Desk
from bot.reads import Read
from bot.runtime.update_log import update_done
from bot.store import Answered, Database, Inbox, InboxItem, UpdateTakenError, utcnow
from bot.store.channels import channel_of_chat
from bot.wakeup import Wakeup

log = logging.getLogger(__name__)

# Chats processed at once (``ISPBOT_CONCURRENCY``'s default). The turns side by side share one core,
# so each takes longer the more run beside it; more slots pay only while turns wait on a slow ISP,
# whose calls are bounded anyway (``ISPBOT_ISP_MAX_CONCURRENCY``). How 12 was chosen: bench/RESULTS.md.
DEFAULT_CONCURRENCY = 12
LEASE = timedelta(minutes=2)
SWEEP_EVERY = 60.0  # seconds between looks for answers a dead process did not send
MAX_ATTEMPTS = 5
RESEND_BATCH = 1000
SEND_GRACE = 10.0  # seconds a stopping process waits for Telegram to take what it queued
# Updates claimed at once (at least; twice ``concurrency`` when that is more), and a new claim when
# fewer than ``concurrency`` wait: a claim's statements cost about the same whatever its size.
CLAIM_SIZE = 128
# Updates of one chat per claim: a chat with a backlog takes turns with the others instead of holding
# a slot (and the CPU) for its whole backlog while a newcomer's single update waits behind it.
RUN_LIMIT = 2
# A claim finds nothing new unless updates came, answers were confirmed or updates were put back (all
# known to this process); what only time brings (a retry, another process's lease ending) is looked for this often.
LOOK_EVERY = 1.0
# After a claim that brought fewer updates than there are slots, the next waits this long (seconds)
# whatever changed: in a surge most chats wait for Telegram to take their last answer, each confirmed
# answer frees one, and a claim after each read every update waiting behind the others for one or
# two updates (bench/RESULTS.md has what that cost). A person waits that much more.
SMALL_CLAIM_PAUSE = 0.02
# Answers Telegram accepted are recorded with the next claim, in its transaction (what frees their
# chats is read by that claim anyway), or on their own once the oldest waited this long (seconds): a
# transaction of its own after each send cost a commit for two or three answers in a burst. Once
# ``RECORD_AT_MOST`` wait, they are recorded at once: until then they hold room in their channel's
# gate (``_Gate``): half a gate of 32, so a full gate is freed by two records, not four (each a
# transaction of its own: what the overhead benchmark measured, in bench/RESULTS.md).
RECORD_DELIVERED_WITHIN = 0.1
RECORD_AT_MOST = 16
# A round of notices is this many calls ahead of the channels at most (``send_round``): at Telegram's
# 30 a second, five seconds' worth, so the channel never waits for the round to make the next ones.
ROUND_AHEAD = 150
# Updates of a channel this process does not run (another process of the bot does) wait this long
# before this process looks at them again.
NOT_MINE_DELAY = timedelta(minutes=1)


class _Gate:
    """A channel's answers handed to it and not yet recorded as delivered (sent, on the wire or
    queued there): at most ``room`` more. They are what a crash sends again, so a crash sends twice
    no more answers than the channel's ``sends_at_once``, whatever the records' batching; the answers
    beyond wait here, in order, and go as records free room (``Processor._recorded``). Nothing else
    waits on it: the channel's workers hold no room (notices, desk messages, dead letters go on), nor
    do the processor's slots. While the database is down, what was sent keeps its room until its
    record is written (tried again every ``RECORD_DELIVERED_WITHIN``) and the answers behind it wait:
    the bound holds through the outage, and once the database is back they go at the first record
    (few wait: no turn commits meanwhile)."""

    __slots__ = ("admitting", "channel", "room", "waiting")

    def __init__(self, channel: Channel[Any]) -> None:
        self.channel = channel
        self.room = channel.sends_at_once
        self.waiting: deque[tuple[int, Sequence[Call]]] = deque()  # (update id, its calls), in order
        self.admitting = False  # one ``_admit`` at a time hands them over, so they reach the channel in order


class Processor:
    def __init__(
        self, engine: Engine, database: Database, channels: Channel[Any] | Sequence[Channel[Any]], *,
        concurrency: int = DEFAULT_CONCURRENCY, inbox: Inbox | None = None, max_attempts: int = MAX_ATTEMPTS,
        desk: Desk | None = None,
    ) -> None:
        """``channels``: the adapters this process runs, each under its ``name``: an update is read
        and answered by its inbox row's channel, a notice sent by its chat's (``bot.store.channels``).
        ``desk``: the staff desk, offered every row first to read what is its own (the staff group's
        messages, Chatwoot's webhook events; ``Desk.read``), the channel reads the rest."""
        self.engine = engine
        self.database = database
        listed = [channels] if not isinstance(channels, Sequence) else list(channels)
        self.channels: Mapping[str, Channel[Any]] = {channel.name: channel for channel in listed}
        # Whose chats each serves: its own, or those it stands in for (the demo's console, Telegram's).
        self._by_chats: Mapping[str, Channel[Any]] = {getattr(c, "serves", c.name): c for c in listed}
        self.channel = listed[0]  # the first: where a single-channel caller looks
        self.desk = desk
        self.inbox = inbox or Inbox(lease=LEASE, owner=str(uuid.uuid4()))
        self.max_attempts = max_attempts
        self._concurrency = concurrency
        self._waiting: deque[tuple[float, list[InboxItem]]] = deque()  # (claimed at, a chat's run)
        self._wake = Wakeup()
        self._progress = asyncio.Event()  # set whenever an update is finished: fetching may go on
        self._tasks: set[asyncio.Task[None]] = set()  # one per chat run in hand
        self._delivered: list[int] = []  # sent, not recorded yet
        self._gates: dict[str, _Gate] = {}  # by channel name, made at its first answer
        self._holding: dict[int, list[_Gate]] = {}  # update id: the gate whose room its sent answer holds
        self._record_by = 0.0  # monotonic time by which ``_delivered`` is recorded even if no claim comes
        self._unsettled: list[list[InboxItem]] = []  # runs to put back once the database answers again
        self._last_sweep = float("-inf")
        self._inbox_changed = True  # since the last claim: worth claiming again
        self._next_look = 0.0  # monotonic time of the next claim however quiet the inbox
        self._claim_after = 0.0  # monotonic time before which no claim is made (``SMALL_CLAIM_PAUSE``)
        self._round_unsent: set[asyncio.Future[Any]] = set()  # a round's calls handed to the channels
        self._round_room = asyncio.Event()  # set when no more than ``ROUND_AHEAD`` of them are unsent

    # ---- public ------------------------------------------------------------------------------
    @property
    def serves(self) -> frozenset[str]:
        """The channels whose chats this process sends notices to (``bot.store.channels``' names)."""
        return frozenset(self._by_chats)

    def wake(self) -> None:
        """New updates are in the inbox."""
        self._changed()

    def _changed(self) -> None:
        self._inbox_changed = True
        self._wake.set()

    def resend_soon(self) -> None:
        """Work of a stopped process was freed: claim it and send its answers now, not at the next sweep."""
        self._last_sweep = float("-inf")
        self._wake.set()

    async def progressed(self, within: float) -> None:
        """Wait until some update was finished (or ``within`` seconds)."""
        self._progress.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._progress.wait(), within)

    async def run(self, stop: asyncio.Event, *, idle_wait: float = 1.0) -> None:
        """Process until ``stop`` is set, then let the chats in hand finish."""
        try:
            while not stop.is_set():
                await self._sweep_if_due()
                started = await self.step()
                if not started:
                    wait, paused = idle_wait, self._claim_after - time.monotonic()
                    if self._inbox_changed and paused > 0:  # held back by ``SMALL_CLAIM_PAUSE``: claim when it ends
                        wait = min(wait, paused)
                    if self._delivered:  # recorded by a claim, or on their own when none came in time
                        wait = min(wait, self._record_by - time.monotonic())
                    await self._wake.pause(wait)
        finally:
            await self.drain()

    async def step(self) -> int:
        """Claim a batch when few runs wait, then start runs while slots are free; how many updates
        were claimed or started (0: nothing to do until a run finishes or updates arrive)."""
        claimed, waiting = 0, sum(len(run) for _, run in self._waiting)
        now = time.monotonic()
        if waiting < self._concurrency and now >= self._claim_after and (self._inbox_changed or now >= self._next_look):
            claimed = await self._claim(max(CLAIM_SIZE, 2 * self._concurrency) - waiting)
        started = 0
        while self._waiting and len(self._tasks) < self._concurrency:
            claimed_at, run = self._waiting.popleft()
            task = asyncio.create_task(self._run_chat(run, claimed_at))
            self._tasks.add(task)
            task.add_done_callback(self._finished)
            started += len(run)
        return claimed + started

    async def _claim(self, limit: int) -> int:
        self._inbox_changed, self._next_look = False, time.monotonic() + LOOK_EVERY
        delivered, self._delivered = self._delivered, []
        try:
            async with self.database.transaction() as session:
                await self.inbox.delivered(session, delivered)
                items = await self.inbox.claim_pending(session, limit=limit, per_chat=RUN_LIMIT)
        except Exception as exc:
            self._record_later(delivered)
            self._inbox_changed = True
            log.error("could not read the inbox (%s): is the database up? retrying", type(exc).__name__)
            await asyncio.sleep(1.0)
            return 0
        await self._recorded(delivered)
        if len(items) == limit:
            self._inbox_changed = True  # more may be due
        elif len(items) < self._concurrency:
            self._claim_after = time.monotonic() + SMALL_CLAIM_PAUSE
        runs: dict[tuple[bool, int], list[InboxItem]] = {}
        for item in items:  # in update_id order, so each chat's run stays in order
            key = (True, item.chat_id) if item.chat_id is not None else (False, item.update_id)
            runs.setdefault(key, []).append(item)
        now = time.monotonic()
        self._waiting.extend((now, run) for run in runs.values())
        return len(items)

    async def drain(self) -> None:
        """Wait for the chats in hand and the channel's sending, then record what it sent."""
        if self._waiting:
            runs = [run for _, run in self._waiting]
            self._waiting.clear()
            await self._release(runs)
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        # What the channels did not send yet is resent by whoever runs next. Each record frees room
        # for answers waiting in a gate: sent in turn, while the grace lasts and records are written.
        grace = time.monotonic() + SEND_GRACE
        while True:
            await asyncio.gather(*(channel.drain(within=max(grace - time.monotonic(), 0.0))
                                   for channel in self.channels.values()))
            waiting = self._waiting_answers()
            await self._flush_delivered()
            if not waiting or self._waiting_answers() == waiting or time.monotonic() >= grace:
                break
        await self._settle_put_backs()

    async def resend_undelivered(self) -> int:
        """Send again the answers a process processed but did not see accepted; how many updates."""
        async with self.database.transaction() as session:
            items = await self.inbox.undelivered(session, limit=RESEND_BATCH)
        if len(items) == RESEND_BATCH:
            self.resend_soon()  # more where they came from: the next turn, not the next sweep
        for item in items:
            if (channel := self.channels.get(item.channel)) is None:
                continue  # another process's channel: it sends them, once this lease ends
            await self._deliver(channel, item.update_id, [channel.decode(c) for c in item.answer or []])
        if items:
            log.warning("sending again the answers of %d updates a stopped process had not sent", len(items))
        return len(items)

    async def send_notices(self, notices: Iterable[Notice]) -> list[asyncio.Future[Any]]:
        """Messages the bot sends on its own (an outage ended): to the channel, after the replies; a
        future for each call, done once it was sent or skipped for good."""
        futures: list[asyncio.Future[Any]] = []
        for notice in notices:
            channel = self._by_chats.get(channel_of_chat(notice.chat_id))
            if channel is None:
                log.warning("a notice for a chat on %s, which this process does not run, was not sent",
                            channel_of_chat(notice.chat_id))
                continue
            futures += await channel.send(channel.render_notice(notice), notice=True)
        return futures

    async def send_round(self, notices: Iterable[Notice]) -> None:
        """A round's notices (``flows.notices``), as ``send_notices``; returns once no more than
        ``ROUND_AHEAD`` of the round's calls are left unsent, so the round makes its notices as the
        channels take them: its turns share the loop with the answers to people a few at a time."""
        for future in await self.send_notices(notices):
            if not future.done():
                self._round_unsent.add(future)
                future.add_done_callback(self._round_sent)
        while len(self._round_unsent) > ROUND_AHEAD:
            self._round_room.clear()
            await self._round_room.wait()

    def _round_sent(self, future: asyncio.Future[Any]) -> None:
        self._round_unsent.discard(future)
        if len(self._round_unsent) <= ROUND_AHEAD:
            self._round_room.set()

    # ---- one chat ----------------------------------------------------------------------------
    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._progress.set()
        self._wake.set()  # the chat's later updates (and whatever waited for a slot) can go now
        if not task.cancelled() and task.exception() is not None:
            log.error("a chat's updates failed: %s", type(task.exception()).__name__)

    async def _run_chat(self, items: list[InboxItem], claimed_at: float) -> None:
        if time.monotonic() - claimed_at > LEASE.total_seconds() / 2:
            await self._release([items])  # its lease may end mid-run: claim it afresh
            return
        metrics.CHATS_IN_FLIGHT.inc()
        try:
            for index, item in enumerate(items):
                if not await self._process(item):
                    # Put back this one and the rest, in order: the chat waits for it.
                    await self._put_back(items[index:])
                    return
        finally:
            metrics.CHATS_IN_FLIGHT.dec()

    async def _process(self, item: InboxItem) -> bool:
        """Handle one update; False when it must be tried again later."""
        started, tally = time.perf_counter(), metrics.count_isp_calls()
        channel = self.channels.get(item.channel)
        if channel is None:
            await self._not_mine(item)
            return True
        read = (self.desk and self.desk.read(item.payload)) or channel.read(item.payload)
        if read.incoming is None:  # unreadable (this update only, never its chat), or nothing for the bot
            await self._settle(item, failed=read.failed)
            update_done(item.update_id, read.kind, "ignored" if read.failed is None else "skipped",
                        chat_id=item.chat_id, started=started, tally=tally, error=read.error)
            return True
        kind, chat_id, position = read.kind, read.incoming.chat_id, None
        try:
            calls, position = await self._turn(channel, item, read)
        except UpdateTakenError:
            update_done(item.update_id, kind, "taken", chat_id=chat_id, started=started, tally=tally)
            return True
        except Exception as exc:
            update_done(item.update_id, kind, "error", chat_id=chat_id, started=started, tally=tally, error=exc)
            return False
        await self._deliver(channel, item.update_id, calls)
        metrics.UPDATE_SECONDS.observe(time.perf_counter() - started)
        update_done(item.update_id, kind, "answered", chat_id=chat_id, started=started, tally=tally, position=position)
        return True

    async def _turn(
        self, channel: Channel[Any], item: InboxItem, read: Read,
    ) -> tuple[list[Call], tuple[str | None, str | None]]:
        """The engine's turn, and where the chat stands after it."""
        assert read.incoming is not None  # noqa: S101 - _process turns only what the channel read
        calls: list[Call] = []
        elsewhere: list[Notice] = []  # for chats of another channel: sent by it once the turn committed
        deleted: list[Call] = []  # the person's message, where a secret was typed and the channel can delete it

        async def forget(session: AsyncSession, words: list[str], secret: bool) -> None:
            # Called by the engine before ``record_answer``, in the same transaction.
            await self.inbox.forget(session, item.update_id, words)
            deleted[:] = channel.forget(read) if secret else []

        async def record_answer(session: AsyncSession, replies: list[Reply], notices: list[Notice]) -> Answered:
            if notices:
                elsewhere[:] = [n for n in notices if self._by_chats.get(channel_of_chat(n.chat_id)) is not channel]
                notices = [n for n in notices if self._by_chats.get(channel_of_chat(n.chat_id)) is channel]
            # The person's message deleted after the answer: the answer is not held back by the chat's pace.
            rendered = [*await channel.answer(session, read, replies, notices), *deleted]
            calls[:] = rendered  # sent only if the turn commits, with this answer written by the engine
            return self.inbox.answered(item.update_id, [c.as_json() for c in rendered])

        turn = await self.engine.turn(read.incoming, within=record_answer, forget=forget)
        if elsewhere:
            await self.send_notices(elsewhere)
        return calls, turn.position

    async def _settle(self, item: InboxItem, failed: str | None = None) -> None:
        """Finish an update that needs no answer (or cannot have one)."""
        async with self.database.transaction() as session:
            if failed is None:
                await self.inbox.answer(session, item.update_id, [])
            else:
                await self.inbox.mark_failed(session, [item.update_id], failed)
        self._changed()  # its chat's next update is free

    async def _not_mine(self, item: InboxItem) -> None:
        """An update of a channel this process does not run: left for a process that runs it."""
        log.warning("update %s is a %s update, a channel this process does not run: left for another process",
                    item.update_id, item.channel)
        async with self.database.transaction() as session:
            await self.inbox.mark_retry(session, [item.update_id], utcnow() + NOT_MINE_DELAY, "channel not run here")

    async def _release(self, runs: list[list[InboxItem]]) -> None:
        """Hand back claimed updates never started: due again now, the claim not counted."""
        ids = [item.update_id for run in runs for item in run]
        try:
            async with self.database.transaction() as session:
                await self.inbox.release(session, ids)
            self._changed()
        except Exception as exc:  # their leases end by themselves
            log.warning("could not hand back %d claimed updates (%s); they wait for their lease to end",
                        len(ids), type(exc).__name__)

    async def _put_back(self, items: list[InboxItem]) -> None:
        head = items[0]
        ids = [item.update_id for item in items]
        try:
            async with self.database.transaction() as session:
                if head.attempts >= self.max_attempts:
                    log.error("update %s failed %d times: set aside", head.update_id, head.attempts)
                    await self.inbox.mark_failed(session, [head.update_id], "failed too many times")
                    await self.inbox.mark_retry(session, ids[1:], utcnow(), "waited behind a failed update")
                else:
                    delay = timedelta(seconds=min(2 ** head.attempts, 60))
                    await self.inbox.mark_retry(session, ids, utcnow() + delay, "processing failed")
            self._changed()
        except Exception:  # the database may be what failed: try again at the next turn (the lease holds them)
            self._unsettled.append(items)

    async def _settle_put_backs(self) -> None:
        runs, self._unsettled = self._unsettled, []
        for run in runs:
            await self._put_back(run)

    # ---- delivery ----------------------------------------------------------------------------
    async def _deliver(self, channel: Channel[Any], update_id: int, calls: Sequence[Call]) -> None:
        if not calls:
            return
        gate = self._gates.get(channel.name)
        if gate is None:
            gate = self._gates[channel.name] = _Gate(channel)
        gate.waiting.append((update_id, calls))
        await self._admit(gate)

    async def _admit(self, gate: _Gate) -> None:
        """Hand the channel the answers waiting for room, in order."""
        if gate.admitting:
            return  # the one under way takes them too
        gate.admitting = True
        try:
            while gate.waiting and gate.room > 0:
                update_id, calls = gate.waiting.popleft()
                gate.room -= 1
                try:
                    futures = await gate.channel.send(calls)
                except Exception as exc:  # left unrecorded: sent again once this process is gone
                    futures = []
                    log.error("could not hand update %s's answer to %s (%s)", update_id, gate.channel.name,
                              type(exc).__name__)
                if not futures:
                    gate.room += 1
                    continue
                self._when_sent(gate, update_id, futures)
        finally:
            gate.admitting = False

    def _when_sent(self, gate: _Gate, update_id: int, futures: list[asyncio.Future[Any]]) -> None:
        remaining = len(futures)

        def sent(_: Any) -> None:  # sent or skipped for good: either way nothing to send again
            nonlocal remaining
            remaining -= 1
            if remaining == 0:
                self._holding.setdefault(update_id, []).append(gate)
                if not self._delivered:
                    self._record_by = time.monotonic() + RECORD_DELIVERED_WITHIN
                self._delivered.append(update_id)
                if len(self._delivered) == RECORD_AT_MOST:
                    self._record_by = time.monotonic()
                self._changed()  # the next claim records it and may take the chat's next update (``bot.store.inbox``)

        for future in futures:
            future.add_done_callback(sent)

    async def _flush_delivered(self) -> None:
        if not self._delivered:
            return
        ids, self._delivered = self._delivered, []
        try:
            async with self.database.transaction() as session:
                await self.inbox.delivered(session, ids)
            self._changed()  # their chats' next updates are free
        except Exception as exc:
            self._record_later(ids)  # the database is down: record them when it is back
            log.warning("could not record %d delivered answers (%s); trying again", len(ids), type(exc).__name__)
            return
        await self._recorded(ids)

    async def _recorded(self, ids: list[int]) -> None:
        """These updates' answers are recorded as sent: their room goes to the answers waiting for it."""
        for update_id in ids:
            gates = self._holding[update_id]
            gates.pop().room += 1
            if not gates:
                del self._holding[update_id]
        for gate in self._gates.values():
            if gate.waiting:
                await self._admit(gate)

    def _waiting_answers(self) -> int:
        return sum(len(gate.waiting) for gate in self._gates.values())

    def _record_later(self, ids: list[int]) -> None:
        """Sent answers the database did not record: first in line again, tried with the next claim or
        ``RECORD_DELIVERED_WITHIN`` from now, not at once."""
        self._delivered[:0] = ids
        self._record_by = time.monotonic() + RECORD_DELIVERED_WITHIN

    async def _sweep_if_due(self) -> None:
        if self._delivered and time.monotonic() >= self._record_by:
            await self._flush_delivered()  # no claim took them meanwhile (every slot busy, say)
        await self._settle_put_backs()
        now = time.monotonic()
        if now - self._last_sweep < SWEEP_EVERY:
            return
        self._last_sweep = now
        try:
            await self.resend_undelivered()
        except Exception as exc:
            log.error("could not look for unsent answers (%s); is the database up?", type(exc).__name__)
