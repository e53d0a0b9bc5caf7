"""The outgoing sender: each chat's calls in order, chats concurrently, within Telegram's limits.

One bounded FIFO queue per chat and a ready queue of chat ids served by a fixed set of workers; a
chat id is ready at most once, so one worker handles a chat at a time (its order holds). A chat that
must wait (its own rate, a 429's ``retry_after``) holds no worker: a timer makes it ready again.
Only the overall limit makes a worker wait. Chats with a reply waiting go before chats with only
notices (``notice=True``), which go evenly spread over the overall limit on a schedule that catches
up when they went late, or at ``paid_broadcast``'s own rate. Texts still queued behind a chat's
limit are joined into the one about to go (``_join``). Telegram's errors are told apart by meaning
(``_send``, ``failures``). Logs carry the method, a hash of the chat id and the kind of failure:
never the text or the token.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from telegram.error import ChatMigrated, RetryAfter, TelegramError

from bot import metrics
from bot.channels.telegram import raw
from bot.channels.telegram.failures import Failure, Meaning, read_failure
from bot.channels.telegram.render import MAX_TEXT, ApiCall, utf16_len
from bot.logs import chat_ref

log = logging.getLogger(__name__)

Call = Callable[[str, dict[str, Any]], Awaitable[Any]]
Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]
DeadLetter = Callable[[ApiCall, str], Awaitable[None]]

NETWORK_HORIZON = 24 * 3600.0  # seconds a call is retried while Telegram cannot be reached
NETWORK_BACKOFF_CAP = 60.0
# Notices that may go back to back after their schedule fell behind (a busy loop): the round catches
# up that much, while a reply waits behind no more than that many sends.
NOTICE_CATCH_UP = 3

# The methods that take allow_paid_broadcast (edits do not).
_PAID_METHODS = frozenset({"sendMessage", "sendDocument", "sendLocation", "sendPhoto", "copyMessage"})
# The methods whose answer is the message sent (copyMessage's: its id): an ``ok`` without it is no delivery.
_MESSAGE_METHODS = _PAID_METHODS


@dataclass(frozen=True, slots=True)
class Rate:
    """At most ``count`` sends in any ``period`` seconds."""

    count: int
    period: float


class Window:
    """A sliding-window limit (at most N sends in any T seconds) over an injected clock, so tests
    drive it with a fake one (aiolimiter reads the loop's clock: it could not). Telegram's: 30 a
    second overall, 1 a second per private chat, 20 a minute per group (negative chat id). A send
    counts from Telegram's answer (``moved``), so a window never lets the next one arrive early."""

    __slots__ = ("_sent", "rate")

    def __init__(self, rate: Rate) -> None:
        self.rate = rate
        self._sent: deque[float] = deque()

    def wait_time(self, now: float) -> float:
        """Seconds until one more send fits (0 when it fits now)."""
        # ``sent + period <= now``, not ``sent <= now - period``: in floating point the two can
        # disagree at the boundary, and the wait below must then be 0 only if the entry went.
        while self._sent and self._sent[0] + self.rate.period <= now:
            self._sent.popleft()
        if len(self._sent) < self.rate.count:
            return 0.0
        return self._sent[0] + self.rate.period - now

    def record(self, now: float) -> None:
        self._sent.append(now)

    def moved(self, at: float, to: float) -> None:
        """Count the send recorded at ``at`` at ``to`` instead."""
        with contextlib.suppress(ValueError):  # gone already when it took longer than the period
            self._sent.remove(at)
        index = len(self._sent)
        while index and self._sent[index - 1] > to:
            index -= 1
        self._sent.insert(index, to)

    def full_after_one(self, now: float) -> bool:
        """Whether one more send now would make the next one wait."""
        return self.wait_time(now) == 0 and len(self._sent) + 1 >= self.rate.count

    def idle(self, now: float) -> bool:
        return not self._sent or self._sent[-1] + self.rate.period <= now


@dataclass(slots=True)
class _Item:
    call: ApiCall
    future: asyncio.Future[Any]
    batch: int = 0  # the submit_all it came with: one turn, never joined with itself
    notice: bool = False  # sent on the bot's own account, after the replies
    paid: bool = False  # a notice sent as a paid broadcast
    absorbed: list[_Item] = field(default_factory=list)  # later calls joined into this one
    network_failures: int = 0
    failing_since: float | None = None  # first network failure of the current streak
    floods: int = 0


@dataclass(slots=True)
class _Chat:
    queue: asyncio.Queue[_Item]
    window: Window
    not_before: float = 0.0
    scheduled: bool = False
    ahead: deque[_Item] = field(default_factory=deque)  # a call being retried, or left over from joining
    pending: int = 0
    notices: int = 0  # of the pending calls


@dataclass(slots=True)
class SenderStats:
    sent: int = 0
    skipped: int = 0
    retried: int = 0
    by_error: dict[str, int] = field(default_factory=dict)


class Sender:
    """Delivers :class:`ApiCall` s through ``call(method, params)``; see the module docstring."""

    def __init__(
        self,
        call: Call,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        workers: int = 32,
        per_chat_queue: int = 256,
        overall: Rate = Rate(30, 1.0),
        private_chat: Rate = Rate(1, 1.0),
        group_chat: Rate = Rate(20, 60.0),
        network_horizon: float = NETWORK_HORIZON,
        network_backoff_cap: float = NETWORK_BACKOFF_CAP,
        on_dead: DeadLetter | None = None,
        paid_broadcast: Rate | None = None,
        max_flood_retries: int = 20,
        max_idle_chats: int = 10_000,
    ) -> None:
        if workers < 1 or per_chat_queue < 1:
            raise ValueError("workers and per_chat_queue must be positive")
        self._call = call
        self._clock = clock
        self._sleep = sleep
        self._workers_wanted = workers
        self._per_chat_queue = per_chat_queue
        self._overall = Window(overall)
        # Notices on the overall limit go evenly spread over it: a burst of them would fill the window
        # and hold back for its whole period the reply to a person who writes just after. Each has its
        # slot on a schedule (``_notice_slot``), not a fixed gap after the last: a notice sent late (a
        # busy loop wakes a sleeper late) lets the next ones catch up, so lateness does not add up.
        self._notice_gap = overall.period / overall.count
        self._notice_slot = float("-inf")  # when the next notice may go
        self._paid = Window(paid_broadcast) if paid_broadcast is not None else None
        self._private = private_chat
        self._group = group_chat
        self._network_horizon = network_horizon
        self._network_backoff_cap = network_backoff_cap
        self._on_dead = on_dead
        self._max_flood_retries = max_flood_retries
        self._max_idle_chats = max_idle_chats
        self._chats: dict[int, _Chat] = {}
        self._ready: asyncio.PriorityQueue[tuple[int, int, int]] = asyncio.PriorityQueue()  # (priority, order, chat)
        self._order = itertools.count()
        self._batches = itertools.count(1)
        self._workers: list[asyncio.Task[None]] = []
        self._timers: set[asyncio.Task[None]] = set()
        self._pending = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._gate = asyncio.Lock()  # one worker picks the next call at a time
        self._closed = False
        self.stats = SenderStats()

    # --- public API ---------------------------------------------------------------------------

    async def submit(self, call: ApiCall, *, notice: bool = False, batch: int | None = None) -> asyncio.Future[Any]:
        """Queue one call; waits while the chat's queue is full. The future resolves to the API's
        result, or to ``None`` when the call was skipped (blocked user, chat not found, ...).
        ``notice``: the bot writes on its own account (after replies; a paid broadcast if enabled)."""
        if self._closed:
            raise RuntimeError("sender is closed")
        self._start()
        chat_id = call.chat_id
        chat = self._chats.get(chat_id)
        if chat is None:
            self._prune()
            rate = self._group if chat_id < 0 else self._private
            chat = _Chat(asyncio.Queue(self._per_chat_queue), Window(rate))
            self._chats[chat_id] = chat
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        paid = notice and self._paid is not None and call.method in _PAID_METHODS
        if paid:
            call = ApiCall(call.method, {**call.params, "allow_paid_broadcast": True})
        item = _Item(call, future, batch=next(self._batches) if batch is None else batch, notice=notice, paid=paid)
        chat.pending += 1
        chat.notices += notice
        self._pending += 1
        self._idle.clear()
        try:
            await chat.queue.put(item)
        except BaseException:
            chat.pending -= 1
            chat.notices -= notice
            self._done_one()
            raise
        if not chat.scheduled:
            chat.scheduled = True
            self._schedule(chat_id, chat)
        return future

    async def submit_all(self, calls: Iterable[ApiCall], *, notice: bool = False) -> list[asyncio.Future[Any]]:
        """Queue calls in order: one turn, or the parts of a split message (never joined with each other)."""
        batch = next(self._batches)
        return [await self.submit(call, notice=notice, batch=batch) for call in calls]

    async def drain(self, within: float | None = None) -> bool:
        """Wait until every queued call was sent or skipped (at most ``within`` seconds); whether they were."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), within)
        return self._idle.is_set()

    async def aclose(self, within: float | None = None) -> None:
        """Drain (at most ``within`` seconds: Telegram may be unreachable; what is left unsent stays
        unconfirmed, for the inbox to hand out again), then stop the workers and timers."""
        await self.drain(within)
        self._closed = True
        tasks = [*self._workers, *self._timers]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._workers.clear()
        self._timers.clear()

    async def __aenter__(self) -> Sender:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # --- internals ----------------------------------------------------------------------------

    def _start(self) -> None:
        if not self._workers:
            self._workers = [asyncio.create_task(self._work()) for _ in range(self._workers_wanted)]

    def _prune(self) -> None:
        if len(self._chats) < self._max_idle_chats:
            return
        now = self._clock()
        for chat_id in [
            cid
            for cid, chat in self._chats.items()
            if not chat.pending and not chat.scheduled and chat.window.idle(now) and chat.not_before <= now
        ]:
            del self._chats[chat_id]

    def _done_one(self) -> None:
        self._pending -= 1
        if self._pending == 0:
            self._idle.set()

    def _schedule(self, chat_id: int, chat: _Chat) -> None:
        """Put a chat on the ready queue: ahead of the notices when a reply of it is waiting."""
        priority = 0 if chat.pending > chat.notices else 1
        self._ready.put_nowait((priority, next(self._order), chat_id))

    def _requeue(self, chat_id: int, chat: _Chat, delay: float) -> None:
        """Put a chat back on the ready queue, now or after ``delay`` without holding a worker."""
        if delay <= 0:
            self._schedule(chat_id, chat)
            return
        timer = asyncio.create_task(self._later(chat_id, delay))
        self._timers.add(timer)
        timer.add_done_callback(self._timers.discard)

    async def _later(self, chat_id: int, delay: float) -> None:
        await self._sleep(delay)
        self._schedule(chat_id, self._chats[chat_id])

    async def _work(self) -> None:
        while True:
            chat_id, chat, item, (lane, picked_at) = await self._next()
            retry_in = await self._send(chat_id, chat, item)
            # Telegram counts a send when it reaches it, some time after it was picked: counted from
            # its answer, the sends a window lets go later cannot reach Telegram early, however
            # unevenly the network (or a busy event loop) carries them.
            answered = self._clock()
            lane.moved(picked_at, answered)
            chat.window.record(answered)
            if retry_in is not None:
                chat.ahead.appendleft(item)
                chat.not_before = self._clock() + retry_in
                self._requeue(chat_id, chat, retry_in)
                continue
            for done in (item, *item.absorbed):
                chat.pending -= 1
                chat.notices -= done.notice
                self._done_one()
            if chat.pending:
                self._requeue(chat_id, chat, chat.window.wait_time(self._clock()))
            else:
                chat.scheduled = False

    async def _next(self) -> tuple[int, _Chat, _Item, tuple[Window, float]]:
        """The next call to send: the best ready chat's (a reply before a notice), picked once the
        overall limit has a slot, so the choice is made when a send can go; with the window it took
        a slot of, and when."""
        async with self._gate:  # one picker at a time keeps the windows exact
            while True:
                await self._until_fits(self._overall)
                _, _, chat_id = await self._ready.get()
                chat = self._chats[chat_id]
                now = self._clock()
                wait = max(chat.not_before - now, chat.window.wait_time(now))
                if wait > 0:
                    self._requeue(chat_id, chat, wait)
                    continue
                item = self._take(chat, now)
                window = self._paid if item.paid and self._paid is not None else self._overall
                paced = item.notice and window is self._overall
                if paced:
                    while (wait := self._notice_slot - self._clock()) > 0:
                        await self._sleep(wait)
                await self._until_fits(window)
                picked_at = self._clock()
                window.record(picked_at)
                if paced:  # behind the schedule, ``NOTICE_CATCH_UP`` more go at once at most: never a burst
                    earliest = picked_at - NOTICE_CATCH_UP * self._notice_gap
                    self._notice_slot = max(self._notice_slot, earliest) + self._notice_gap
                return chat_id, chat, item, (window, picked_at)

    async def _until_fits(self, window: Window) -> None:
        while (wait := window.wait_time(self._clock())) > 0:
            await self._sleep(wait)

    @staticmethod
    def _take(chat: _Chat, now: float) -> _Item:
        """The chat's next call, with the texts queued behind it joined in when they would wait for
        the chat's limit anyway; the first that cannot join stays at the head."""
        item = chat.ahead.popleft() if chat.ahead else chat.queue.get_nowait()
        if not chat.window.full_after_one(now):
            return item
        while chat.ahead or not chat.queue.empty():
            later = chat.ahead.popleft() if chat.ahead else chat.queue.get_nowait()
            if not _join(item, later):
                chat.ahead.appendleft(later)
                break
        return item

    def _count(self, error: str) -> None:
        self.stats.by_error[error] = self.stats.by_error.get(error, 0) + 1
        metrics.TELEGRAM_CALLS.labels(error).inc()

    async def _send(self, chat_id: int, chat: _Chat, item: _Item) -> float | None:
        """Send one call. Returns the delay before retrying it, or ``None`` when it is finished.

        Only ``ok: true`` with the sent message is delivered. A failure means what
        ``failures.read_failure`` says: a 429 is sent again after ``retry_after`` (that chat only); a
        migrated chat gets it at its new id; Telegram's refusal of the message is a dead letter
        (``on_dead``) with Telegram's words; anything else is transient, retried with a doubling
        backoff up to ``network_backoff_cap`` for ``network_horizon`` (a day: Telegram keeps a bot's
        updates that long), then a dead letter. One line per failure, at WARNING for the first of a
        call's streak, at DEBUG for its retries. An exception that is no Bot API failure is a bug: its
        traceback is logged and the call kept as a dead letter. A sender never crash-loops."""
        method, params = item.call.method, item.call.params
        try:
            result = await self._call(method, params)
        except TelegramError as exc:
            return await self._failed(chat_id, item, read_failure(exc), exc)
        except Exception as exc:
            log.exception("telegram %s to chat %s: unexpected %s, kept as a dead letter", method, chat_ref(chat_id),
                          type(exc).__name__)
            await self._dead(item, f"unexpected {type(exc).__name__}")
            return None
        if method in _MESSAGE_METHODS and not (isinstance(result, dict) and "message_id" in result):
            return await self._failed(chat_id, item, Failure(Meaning.TRANSIENT, "ok without the sent message"))
        self._delivered(chat_id, item, result)
        return None

    async def _failed(
        self, chat_id: int, item: _Item, failure: Failure, exc: TelegramError | None = None,
    ) -> float | None:
        """What became of a call that failed as ``failure`` says (raising ``exc``): see ``_send``."""
        method, ref = item.call.method, chat_ref(chat_id)
        self._count(type(exc).__name__ if exc is not None else "UnreadableAnswer")
        if failure.meaning is Meaning.DONE:
            self._delivered(chat_id, item, True)
            return None
        if failure.meaning is Meaning.FINAL and method == "deleteMessage":
            # A secret's message the person deleted first (or too old to delete): nothing to send again.
            log.info("telegram deleteMessage in chat %s refused (%s): left as it is", ref, failure.kind)
            self._finish(item, None)
            return None
        if failure.meaning is Meaning.FLOOD:
            assert isinstance(exc, RetryAfter)  # noqa: S101 - only a RetryAfter means flood
            item.floods += 1
            if item.floods > self._max_flood_retries:
                log.error("telegram %s to chat %s: still flooded after %d retries, kept as a dead letter",
                          method, ref, item.floods)
                await self._dead(item, "flood control")
                return None
            delay = max(raw.retry_after_seconds(exc), 0.0)
            level = logging.WARNING if item.floods == 1 else logging.DEBUG
            log.log(level, "telegram %s to chat %s: flood control, retry in %.1fs", method, ref, delay)
            self.stats.retried += 1
            return delay
        if failure.meaning is Meaning.MOVED:
            assert isinstance(exc, ChatMigrated)  # noqa: S101 - only a ChatMigrated means moved
            new_id = int(exc.new_chat_id)
            log.info("telegram chat %s migrated to %s, resending", ref, chat_ref(new_id))
            moved = await self.submit(ApiCall(method, {**item.call.params, "chat_id": new_id}))
            moved.add_done_callback(lambda f: self._finish(item, None if f.cancelled() else f.result()))
            return None
        if failure.meaning is Meaning.FINAL:
            log.warning("telegram %s to chat %s refused (%s), kept as a dead letter", method, ref, failure.kind)
            await self._dead(item, failure.kind)
            return None
        item.network_failures += 1
        now = self._clock()
        item.failing_since = now if item.failing_since is None else item.failing_since
        if now - item.failing_since >= self._network_horizon:
            log.error("telegram %s to chat %s: %s, failing for %.0fs (%d tries), kept as a dead letter",
                      method, ref, failure.kind, now - item.failing_since, item.network_failures)
            await self._dead(item, failure.kind)
            return None
        delay = min(2.0 ** min(item.network_failures - 1, 30), self._network_backoff_cap)
        level = logging.WARNING if item.network_failures == 1 else logging.DEBUG
        log.log(level, "telegram %s to chat %s: %s, retry in %.1fs", method, ref, failure.kind, delay)
        self.stats.retried += 1
        return delay

    def _delivered(self, chat_id: int, item: _Item, result: Any) -> None:
        self.stats.sent += 1
        metrics.TELEGRAM_CALLS.labels("ok").inc()
        if item.network_failures:
            log.info("telegram %s to chat %s delivered after %d failed tries", item.call.method, chat_ref(chat_id),
                     item.network_failures)
        self._finish(item, result)

    async def _dead(self, item: _Item, reason: str) -> None:
        """Keep the call as a dead letter (``ispbot undelivered``) before calling it done: a crash
        meanwhile leaves its update unconfirmed, to be answered again, not lost."""
        if self._on_dead is not None:
            await self._on_dead(item.call, reason)
        self._skip(item)

    def _skip(self, item: _Item) -> None:
        self.stats.skipped += 1
        self._finish(item, None)

    @staticmethod
    def _finish(item: _Item, result: Any) -> None:
        for done in (item, *item.absorbed):
            if not done.future.done():
                done.future.set_result(result)


def _join(earlier: _Item, later: _Item) -> bool:
    """Join ``later`` into ``earlier`` when they can go as one message; whether they could. Only
    plain texts of different turns (a turn is joined already: ``render_turn``), a blank line
    between, up to 4,096 characters, order kept, the newest inline keyboard kept."""
    first, second = earlier.call, later.call
    if earlier.batch == later.batch or earlier.notice != later.notice:
        return False
    if first.method != "sendMessage" or second.method != "sendMessage":
        return False
    if any(first.params.get(key) != second.params.get(key) for key in ("chat_id", "message_thread_id", "parse_mode")):
        return False
    markups = (first.params.get("reply_markup"), second.params.get("reply_markup"))
    if any(markup is not None and "inline_keyboard" not in markup for markup in markups):
        return False  # a reply keyboard (share your contact) or its removal goes as it was
    text = f"{first.params['text']}\n\n{second.params['text']}"
    if utf16_len(text) > MAX_TEXT:
        return False
    params = {**first.params, **second.params, "text": text}
    newest = markups[1] or markups[0]  # the older buttons would be stale by now
    if newest is not None:
        params["reply_markup"] = newest
    earlier.call = ApiCall("sendMessage", params)
    earlier.batch = later.batch
    earlier.absorbed += [later, *later.absorbed]
    return True
