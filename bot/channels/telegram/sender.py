"""The outgoing sender: each chat's calls in order, chats concurrently, within Telegram's limits.

Design: one FIFO queue per chat (bounded: ``submit`` waits when a chat's queue is full) and a ready
queue of chat ids served by a fixed set of worker tasks. A chat id is in the ready queue at most
once, so one chat is handled by one worker at a time (its order holds) while other chats go on
other workers. A chat that must wait (its own rate, or a 429's ``retry_after``) does not hold a
worker: a timer puts it back on the ready queue when its time comes, and the other chats keep
going. Only the overall limit makes a worker wait, since it applies to every chat alike.

Limits are sliding windows (at most N sends in any window of T seconds): 30 a second overall,
1 a second per private chat, 20 a minute per group (negative chat id). They run on an injected
``clock`` and ``sleep``, so tests drive them with a fake clock. aiolimiter was considered; it
reads the event loop's clock directly, so it cannot run on an injected one, and these windows
are a few lines of deque.

Errors, by what Telegram means:
- 429 (``RetryAfter``): the same call is sent again after ``retry_after``, for that chat only.
- ``ChatMigrated``: the group became a supergroup; the call is resent to the new chat id.
- ``Forbidden`` (blocked by the user, kicked), ``BadRequest`` (chat not found, message not
  modified, message too old to edit): permanent, logged and skipped.
- ``TimedOut`` / other ``NetworkError`` (refused, reset, DNS): Telegram did not say no, so the call
  is kept and retried, backoff doubling up to ``network_backoff_cap`` seconds, for as long as
  ``network_horizon`` (a day by default: Telegram itself keeps a bot's updates that long). Past it
  the call goes to ``on_dead`` (the channel keeps it as a dead letter for ``ispbot undelivered``).
- anything else: logged (class name only) and skipped; a sender never crash-loops.

Logs carry the method, a hash of the chat id and the error; never the text, never the token
(anything that looks like a bot token is scrubbed from error messages).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter

from bot import metrics
from bot.channels.telegram import raw
from bot.channels.telegram.render import ApiCall
from bot.logs import chat_ref

log = logging.getLogger(__name__)

Call = Callable[[str, dict[str, Any]], Awaitable[Any]]
Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]
DeadLetter = Callable[[ApiCall, str], None]

NETWORK_HORIZON = 24 * 3600.0  # seconds a call is retried while Telegram cannot be reached
NETWORK_BACKOFF_CAP = 60.0

_TOKEN = re.compile(r"\d{5,}:[A-Za-z0-9_-]{20,}")


def _scrub(text: str) -> str:
    return _TOKEN.sub("<token>", text)[:200]


@dataclass(frozen=True, slots=True)
class Rate:
    """At most ``count`` sends in any ``period`` seconds."""

    count: int
    period: float


class Window:
    """A sliding-window limit over an injected clock."""

    __slots__ = ("_sent", "rate")

    def __init__(self, rate: Rate) -> None:
        self.rate = rate
        self._sent: deque[float] = deque()

    def wait_time(self, now: float) -> float:
        """Seconds until one more send fits (0 when it fits now)."""
        while self._sent and self._sent[0] <= now - self.rate.period:
            self._sent.popleft()
        if len(self._sent) < self.rate.count:
            return 0.0
        return self._sent[0] + self.rate.period - now

    def record(self, now: float) -> None:
        self._sent.append(now)

    def idle(self, now: float) -> bool:
        return not self._sent or self._sent[-1] <= now - self.rate.period


@dataclass(slots=True)
class _Item:
    call: ApiCall
    future: asyncio.Future[Any]
    network_failures: int = 0
    failing_since: float | None = None  # first network failure of the current streak
    floods: int = 0


@dataclass(slots=True)
class _Chat:
    queue: asyncio.Queue[_Item]
    window: Window
    not_before: float = 0.0
    scheduled: bool = False
    head: _Item | None = None  # the call being retried, ahead of the queue
    pending: int = 0


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
        self._private = private_chat
        self._group = group_chat
        self._network_horizon = network_horizon
        self._network_backoff_cap = network_backoff_cap
        self._on_dead = on_dead
        self._max_flood_retries = max_flood_retries
        self._max_idle_chats = max_idle_chats
        self._chats: dict[int, _Chat] = {}
        self._ready: asyncio.Queue[int] = asyncio.Queue()
        self._workers: list[asyncio.Task[None]] = []
        self._timers: set[asyncio.Task[None]] = set()
        self._pending = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._overall_lock = asyncio.Lock()
        self._closed = False
        self.stats = SenderStats()

    # --- public API ---------------------------------------------------------------------------

    async def submit(self, call: ApiCall) -> asyncio.Future[Any]:
        """Queue one call; waits while the chat's queue is full. The future resolves to the API's
        result, or to ``None`` when the call was skipped (blocked user, chat not found, ...)."""
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
        chat.pending += 1
        self._pending += 1
        self._idle.clear()
        try:
            await chat.queue.put(_Item(call, future))
        except BaseException:
            chat.pending -= 1
            self._done_one()
            raise
        if not chat.scheduled:
            chat.scheduled = True
            self._ready.put_nowait(chat_id)
        return future

    async def submit_all(self, calls: Iterable[ApiCall]) -> list[asyncio.Future[Any]]:
        """Queue calls in order (for example the parts of a split message)."""
        return [await self.submit(call) for call in calls]

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

    def _requeue(self, chat_id: int, chat: _Chat, delay: float) -> None:
        """Put a chat back on the ready queue, now or after ``delay`` without holding a worker."""
        if delay <= 0:
            self._ready.put_nowait(chat_id)
            return
        timer = asyncio.create_task(self._later(chat_id, delay))
        self._timers.add(timer)
        timer.add_done_callback(self._timers.discard)

    async def _later(self, chat_id: int, delay: float) -> None:
        await self._sleep(delay)
        self._ready.put_nowait(chat_id)

    async def _work(self) -> None:
        while True:
            chat_id = await self._ready.get()
            chat = self._chats[chat_id]
            now = self._clock()
            wait = max(chat.not_before - now, chat.window.wait_time(now))
            if wait > 0:
                self._requeue(chat_id, chat, wait)
                continue
            item = chat.head
            if item is None:
                item = chat.queue.get_nowait()
            chat.head = None
            await self._acquire_overall()
            chat.window.record(self._clock())
            retry_in = await self._send(chat_id, chat, item)
            if retry_in is not None:
                chat.head = item
                chat.not_before = self._clock() + retry_in
                self._requeue(chat_id, chat, retry_in)
                continue
            chat.pending -= 1
            self._done_one()
            if chat.pending:
                self._requeue(chat_id, chat, chat.window.wait_time(self._clock()))
            else:
                chat.scheduled = False

    async def _acquire_overall(self) -> None:
        async with self._overall_lock:  # one waiter at a time keeps the window exact
            while (wait := self._overall.wait_time(self._clock())) > 0:
                await self._sleep(wait)
            self._overall.record(self._clock())

    def _count(self, error: str) -> None:
        self.stats.by_error[error] = self.stats.by_error.get(error, 0) + 1
        metrics.TELEGRAM_CALLS.labels(error).inc()

    async def _send(self, chat_id: int, chat: _Chat, item: _Item) -> float | None:
        """Send one call. Returns the delay before retrying it, or ``None`` when it is finished."""
        method, params = item.call.method, item.call.params
        ref = chat_ref(chat_id)
        try:
            result = await self._call(method, params)
        except RetryAfter as exc:
            item.floods += 1
            self._count("RetryAfter")
            delay = max(raw.retry_after_seconds(exc), 0.0)
            if item.floods > self._max_flood_retries:
                log.error("telegram %s to chat %s: still flooded after %d retries, dropped", method, ref, item.floods)
                self._skip(item)
                return None
            log.warning("telegram %s to chat %s: flood control, retry in %.1fs", method, ref, delay)
            self.stats.retried += 1
            return delay
        except ChatMigrated as exc:
            self._count("ChatMigrated")
            new_id = int(exc.new_chat_id)
            log.info("telegram chat %s migrated to %s, resending", ref, chat_ref(new_id))
            migrated = ApiCall(method, {**params, "chat_id": new_id})
            moved = await self.submit(migrated)
            moved.add_done_callback(lambda f: _relay(f, item.future))
            return None
        except (Forbidden, BadRequest) as exc:
            self._count(type(exc).__name__)
            log.warning("telegram %s to chat %s skipped: %s", method, ref, _scrub(exc.message))
            self._skip(item)
            return None
        except NetworkError as exc:  # TimedOut included; BadRequest is handled above
            item.network_failures += 1
            self._count(type(exc).__name__)
            now = self._clock()
            item.failing_since = now if item.failing_since is None else item.failing_since
            if now - item.failing_since >= self._network_horizon:
                log.error("telegram %s to chat %s: %s for %.0fs, kept as a dead letter", method, ref,
                          type(exc).__name__, now - item.failing_since)
                if self._on_dead is not None:
                    self._on_dead(item.call, type(exc).__name__)
                self._skip(item)
                return None
            delay = min(2.0 ** min(item.network_failures - 1, 30), self._network_backoff_cap)
            log.warning("telegram %s to chat %s: %s, retry in %.1fs", method, ref, type(exc).__name__, delay)
            self.stats.retried += 1
            return delay
        except Exception as exc:
            self._count(type(exc).__name__)
            log.error("telegram %s to chat %s failed: %s, skipped", method, ref, type(exc).__name__)
            self._skip(item)
            return None
        self.stats.sent += 1
        metrics.TELEGRAM_CALLS.labels("ok").inc()
        self._finish(item, result)
        return None

    def _skip(self, item: _Item) -> None:
        self.stats.skipped += 1
        self._finish(item, None)

    @staticmethod
    def _finish(item: _Item, result: Any) -> None:
        if not item.future.done():
            item.future.set_result(result)


def _relay(source: asyncio.Future[Any], target: asyncio.Future[Any]) -> None:
    if not target.done():
        target.set_result(None if source.cancelled() else source.result())
