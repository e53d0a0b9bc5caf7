"""The outgoing sender: each chat's requests in order, chats side by side, within WhatsApp's limits.

Two buckets: the number's throughput (``rate`` a second, 80 by default) and, per person, Meta's pair
limit (a burst, then one every few seconds); a chat waiting for its own holds no worker (a timer makes
it ready again). The next message is picked once the throughput has a slot, one picker at a time: a
reply goes before every notice waiting then, the notices evenly spread (a burst would hold back a reply
written just after). A chat stays in one worker's hands until its queue is empty.
Meta's answers decide the rest (``CloudApiError.meaning``): throttled (130429), pair (131056), Meta's
transient errors, an unreachable network or a page that is not the Graph API's (``UnreadableAnswer``)
wait and go again until ``horizon`` (one WARNING when failures begin, one INFO when a request goes
again); an expired or revoked token (190) is said once a minute and waits for a new one; outside the
24-hour window (131047) the request goes as its notice's template (``on_held``) or is held (a dead
letter, counted by kind); any other refusal is a dead letter with Meta's reason. Logs never carry a text.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx
from flows.files import FileTooLarge, FileUnavailable

from bot import metrics
from bot.channels.whatsapp.client import CloudApi, CloudApiError, describe
from bot.channels.whatsapp.render import WaCall
from bot.logs import chat_ref
from bot.store.dead_letters import HELD

log = logging.getLogger(__name__)

Resolve = Callable[[int], Awaitable[str | None]]
DeadLetter = Callable[[WaCall, str], Awaitable[None]]
Held = Callable[[WaCall, str], Awaitable[bool]]  # True: sent otherwise (a template)
Sent = Callable[[WaCall, str], None]  # a message accepted, with its wamid
Fetch = Callable[[str], Awaitable[bytes]]  # a file another channel holds, by its reference
Sleep = Callable[[float], Awaitable[None]]

HORIZON = 24 * 3600.0
BACKOFF_CAP = 60.0
TOKEN_LOG_EVERY = 60.0
# How far behind its schedule the notices' pace may catch up, in seconds: after a stall of the loop
# (a busy turn, SQLite's checkpoint) that many seconds' worth may go back to back, within the
# throughput's window. Telegram's sender allows three sends; here, at 80 a second, three made up for
# none of the tenth-of-a-second stalls of a loaded loop: a round of 1,000 reminders went at 72-76 a
# second (1.15 times its bound), with this at 80 (1.02; bench/RESULTS.md, "A round of notices"). A
# reply is picked before them whatever they owe: it waits at most for the window's next slot.
NOTICE_CATCH_UP = 0.25


def held(call: WaCall, reason: str) -> str:
    """Count a message outside the 24-hour window with no template for it (by its kind of notice;
    ``answer`` for a turn's own) and say why it is held, for its dead letter."""
    kind = call.notice or "answer"
    metrics.WHATSAPP_HELD.labels(kind).inc()
    return f"{HELD} outside the 24-hour window and no template for {kind} ({reason})"


@dataclass(frozen=True, slots=True)
class Pace:
    """At most ``burst`` at once, then one every ``every`` seconds."""

    burst: float
    every: float


PAIR = Pace(burst=20, every=6.0)  # Meta: about one message every 6 seconds to one person, bursts allowed


class Window:
    """At most ``count`` sends in any ``period`` seconds, as Meta counts the number's throughput: a
    send that starts late (a busy event loop) is made up within the second, never past the count."""

    __slots__ = ("count", "period", "sent")

    def __init__(self, count: int, period: float) -> None:
        self.count, self.period = count, period
        self.sent: deque[float] = deque()

    def wait_time(self, now: float) -> float:
        while self.sent and self.sent[0] + self.period <= now:
            self.sent.popleft()
        return 0.0 if len(self.sent) < self.count else self.sent[0] + self.period - now

    def record(self, now: float) -> None:
        self.sent.append(now)

    def moved(self, at: float, to: float) -> None:
        """Count the send recorded at ``at`` at ``to`` (when Meta answered: it may have counted it
        then), so that the next second's sends never arrive early."""
        with contextlib.suppress(ValueError):  # gone already when it took longer than the period
            self.sent.remove(at)
        index = len(self.sent)
        while index and self.sent[index - 1] > to:
            index -= 1
        self.sent.insert(index, to)


class Bucket:
    __slots__ = ("burst", "every", "last", "tokens")

    def __init__(self, pace: Pace, now: float) -> None:
        self.burst, self.every = pace.burst, pace.every
        self.tokens, self.last = pace.burst, now

    def wait_time(self, now: float) -> float:
        self.tokens = min(self.burst, self.tokens + (now - self.last) / self.every)
        self.last = now
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) * self.every

    def take(self) -> None:
        self.tokens -= 1


@dataclass(slots=True)
class _Item:
    call: WaCall
    future: asyncio.Future[Any]
    notice: bool = False
    failures: int = 0
    failing_since: float | None = None


@dataclass(slots=True)
class _Chat:
    items: deque[_Item] = field(default_factory=deque)
    bucket: Bucket | None = None
    # Ready, waiting for a timer, or in a worker's hands: until the worker lets it go, a submit only
    # queues behind (a second worker would send the same head again and drop the one after it).
    scheduled: bool = False


class WaSender:
    def __init__(
        self, api: CloudApi, resolve: Resolve, *, on_dead: DeadLetter, on_held: Held | None = None,
        on_sent: Sent | None = None, fetch: Fetch | None = None, rate: int = 80, pair: Pace = PAIR,
        workers: int = 32,
        horizon: float = HORIZON, clock: Callable[[], float] = time.monotonic, backoff: float = 1.0,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        """``backoff``: seconds before the first try again after a throttle or a network failure
        (doubling, at most a minute; six times as long after a per-person refusal). ``fetch``: the
        bytes of a file another channel holds (an upload by ``ref``: a staff member's photo).
        ``clock`` and ``sleep``: time as the sender reads and waits for it (tests give a virtual one)."""
        self.api = api
        self.resolve = resolve
        self.on_dead = on_dead
        self.on_held = on_held
        self.on_sent = on_sent
        self.fetch = fetch
        self.overall = Window(rate, 1.0)
        # Each notice has its slot on a schedule (not a fixed gap after the last): one sent late (a
        # busy loop wakes a sleeper late) lets the next ones catch up, so lateness does not add up.
        self._notice_gap = 1.0 / rate
        self._notice_slot = float("-inf")  # when the next notice may go
        self._gate = asyncio.Lock()  # one worker picks the next message at a time
        self._sleep = sleep
        self._timers: set[asyncio.Task[None]] = set()
        self.backoff = backoff
        self.pair = pair
        self.horizon = horizon
        self.clock = clock
        self._chats: dict[int, _Chat] = {}
        self._replies: asyncio.Queue[int] = asyncio.Queue()
        self._notices: asyncio.Queue[int] = asyncio.Queue()
        self._ready = asyncio.Event()
        self._workers = [asyncio.create_task(self._work(), name=f"whatsapp-sender-{n}") for n in range(workers)]
        self._pending = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._token_logged = float("-inf")
        self._failing_since: float | None = None  # since when Meta or the network fail (a streak)
        self.failing: str | None = None  # what fails now, for /readyz (None: the last request went through)
        self.sent_count = 0
        self.errors: dict[str, int] = {}

    # ---- public ------------------------------------------------------------------------------
    async def submit_all(self, calls: Iterable[WaCall], *, notice: bool = False) -> list[asyncio.Future[Any]]:
        loop = asyncio.get_running_loop()
        futures = []
        for call in calls:
            future: asyncio.Future[Any] = loop.create_future()
            chat = self._chats.setdefault(call.chat_id, _Chat())
            chat.items.append(_Item(call, future, notice))
            self._pending += 1
            self._idle.clear()
            futures.append(future)
            self._schedule(call.chat_id)
        return futures

    async def drain(self, within: float | None = None) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), within)

    async def aclose(self, within: float = 0) -> None:
        await self.drain(within)
        for task in (*self._workers, *self._timers):
            task.cancel()
        await asyncio.gather(*self._workers, *self._timers, return_exceptions=True)

    # ---- the queue ---------------------------------------------------------------------------
    def _schedule(self, chat_id: int) -> None:
        """A chat with new requests: ready now, unless it is in hand already (queued, timed or being sent)."""
        chat = self._chats.get(chat_id)
        if chat is None or chat.scheduled or not chat.items:
            return
        chat.scheduled = True
        self._ready_now(chat_id)

    def _again(self, chat_id: int, after: float = 0.0) -> None:
        """The worker holding the chat hands it back: ready again now or ``after`` seconds from now,
        still in hand meanwhile."""
        if after > 0:
            timer = asyncio.get_running_loop().create_task(self._later(chat_id, after))
            self._timers.add(timer)
            timer.add_done_callback(self._timers.discard)
        else:
            self._ready_now(chat_id)

    async def _later(self, chat_id: int, after: float) -> None:
        await self._sleep(after)
        self._ready_now(chat_id)

    def _ready_now(self, chat_id: int) -> None:
        chat = self._chats.get(chat_id)
        if chat is None or not chat.items:
            if chat is not None:
                chat.scheduled = False
            return
        (self._notices if chat.items[0].notice else self._replies).put_nowait(chat_id)
        self._ready.set()

    async def _ready_chat(self) -> int:
        while True:
            for queue in (self._replies, self._notices):  # replies to people before the bot's own notices
                if not queue.empty():
                    return queue.get_nowait()
            self._ready.clear()
            await self._ready.wait()

    async def _work(self) -> None:
        while True:
            chat_id, chat, item, slot = await self._next()
            retry_after = await self._attempt(item)
            if slot is not None:  # counted from Meta's answer: the next second's sends never arrive early
                self.overall.moved(slot, self.clock())
            if retry_after is not None:
                self._again(chat_id, retry_after)
                continue
            chat.items.popleft()
            self._finish(item)
            if chat.items:
                self._again(chat_id)
                continue
            chat.scheduled = False
            if len(self._chats) > 10_000:
                self._chats.pop(chat_id, None)

    async def _next(self) -> tuple[int, _Chat, _Item, float | None]:
        """The next request: the best ready chat's (a reply before a notice), picked once the number's
        throughput has a slot, so the choice is made when a message can go; with when it took the
        slot (None for a read receipt: no message, neither limit counts it)."""
        async with self._gate:  # one picker at a time keeps the throughput exact
            while True:
                await self._overall_slot()
                chat_id = await self._ready_chat()
                chat = self._chats[chat_id]
                if not chat.items:
                    chat.scheduled = False
                    continue
                item = chat.items[0]
                if item.call.kind == "read":
                    return chat_id, chat, item, None
                wait = self._pace(chat)
                if wait > 0:  # the person's pace: their chat waits on a timer, holding no worker
                    self._again(chat_id, wait)
                    continue
                if item.notice:
                    while (wait := self._notice_slot - self.clock()) > 0:
                        await self._sleep(wait)
                    await self._overall_slot()
                picked = self.clock()
                self.overall.record(picked)
                if chat.bucket is not None:
                    chat.bucket.take()
                if item.notice:  # behind the schedule, ``NOTICE_CATCH_UP`` seconds' worth go at once at most
                    earliest = picked - NOTICE_CATCH_UP
                    self._notice_slot = max(self._notice_slot, earliest) + self._notice_gap
                return chat_id, chat, item, picked

    def _pace(self, chat: _Chat) -> float:
        """Seconds the person's pace holds their next message back (0: it may go)."""
        now = self.clock()
        if chat.bucket is None:
            chat.bucket = Bucket(self.pair, now)
        return chat.bucket.wait_time(now)

    async def _overall_slot(self) -> None:
        """Wait for the number's throughput to allow one more."""
        while (wait := self.overall.wait_time(self.clock())) > 0:
            await self._sleep(wait)

    def _finish(self, item: _Item) -> None:
        if not item.future.done():
            item.future.set_result(None)
        self._pending -= 1
        if self._pending == 0:
            self._idle.set()

    # ---- one request -------------------------------------------------------------------------
    async def _attempt(self, item: _Item) -> float | None:
        """Send; None when done with it (sent, held or dead), else seconds before another try."""
        call = item.call
        try:
            if call.kind == "read":
                with contextlib.suppress(CloudApiError):  # a receipt too old to mark: nothing lost
                    await self.api.mark_read(str(call.body["message_id"]))
                self._went_through()
                return None
            to = call.to or await self.resolve(call.chat_id)
            if to is None:
                await self._dead(item, "no WhatsApp number or user id is known for this chat")
                return None
            body = call.body
            if call.kind == "upload":
                body = await self._uploaded(call)
            wamid = await self.api.send(to, body)
        except CloudApiError as exc:
            return await self._refused(item, exc)
        except (FileUnavailable, FileTooLarge) as exc:
            await self._dead(item, f"the file could not be fetched from where it is kept ({type(exc).__name__})")
            return None
        except httpx.TransportError as exc:
            return await self._unreachable(item, describe(exc))
        except OSError as exc:
            return await self._unreachable(item, type(exc).__name__)
        except Exception as exc:  # a bug, or an answer of a shape never seen: this request only
            log.exception("WhatsApp: a %s for chat %s failed (%s)", call.method, chat_ref(call.chat_id),
                          type(exc).__name__)
            await self._dead(item, f"failed: {type(exc).__name__}")
            return None
        self.sent_count += 1
        self._went_through()
        if self.on_sent is not None:
            self.on_sent(call, wamid)
        return None

    async def _uploaded(self, call: WaCall) -> dict[str, Any]:
        media = call.body
        kind = str(media["type"])
        if "data" in media:
            data = base64.b64decode(media["data"])
        elif self.fetch is not None:  # held by another channel (``ref``): fetched only now
            data = await self.fetch(str(media["ref"]))
        else:
            raise FileUnavailable("no channel here holds the file")
        media_id = await self.api.upload(data, str(media["mime"]), str(media["filename"]))
        content: dict[str, Any] = {"id": media_id}
        if media.get("caption"):
            content["caption"] = media["caption"]
        if kind == "document":
            content["filename"] = media["filename"]
        return {"type": kind, kind: content}

    async def _refused(self, item: _Item, exc: CloudApiError) -> float | None:
        meaning = exc.meaning
        self.errors[meaning] = self.errors.get(meaning, 0) + 1
        metrics.WHATSAPP_ERRORS.labels(meaning).inc()
        item.failures += 1
        if meaning == "transient":
            self._failing(f"WhatsApp failed (code {exc.code}, status {exc.status})")
        elif meaning in ("throttled", "pair"):
            log.warning("WhatsApp: %s (code %s) for chat %s; sending again later", meaning, exc.code,
                        chat_ref(item.call.chat_id))
        if meaning in ("throttled", "pair", "transient"):
            base = self.backoff * (6.0 if meaning == "pair" else 1.0)
            if not self._past_horizon(item):
                return self._backoff(item, base)
            await self._dead(item, exc.reason)
            return None
        if meaning == "token":
            now = self.clock()
            if now - self._token_logged >= TOKEN_LOG_EVERY:
                self._token_logged = now
                log.error("WhatsApp refused the token (code %s: expired or revoked): set ISPBOT_WHATSAPP_TOKEN to "
                          "a permanent token of the Meta app's system user and restart; answers wait meanwhile",
                          exc.code)
            if not self._past_horizon(item):
                return self._backoff(item, self.backoff * 5.0)
            await self._dead(item, exc.reason)
            return None
        if meaning == "window" and self.on_held is not None and await self.on_held(item.call, exc.reason):
            return None
        if meaning == "window":
            await self._dead(item, held(item.call, exc.reason))
            return None
        log.error("WhatsApp refused a %s for chat %s: %s", item.call.method, chat_ref(item.call.chat_id), exc.reason)
        await self._dead(item, exc.reason)
        return None

    async def _unreachable(self, item: _Item, kind: str) -> float | None:
        """The network failed, or something other than the Graph API answered (``kind`` says which):
        nothing says Meta refused the message, so it waits and goes again."""
        item.failures += 1
        self.errors["network"] = self.errors.get("network", 0) + 1
        self._failing(f"WhatsApp could not be reached ({kind})", f"unreachable ({kind})")
        if self._past_horizon(item):
            await self._dead(item, f"WhatsApp unreachable for {self.horizon / 3600:g} hours ({kind})")
            return None
        return self._backoff(item, self.backoff)

    def _failing(self, what: str, state: str | None = None) -> None:
        """One WARNING line when failures begin (an outage fails every request tried meanwhile), DEBUG after."""
        self.failing = state or what
        if self._failing_since is None:
            self._failing_since = self.clock()
            log.warning("%s; the requests wait and go again", what)
        else:
            log.debug("%s; the requests wait and go again", what)

    def mark_unreachable(self, kind: str) -> None:
        """The Graph API could not be reached before anything was sent (at start): a streak begins."""
        self._failing(f"WhatsApp could not be reached at start ({kind})", f"unreachable ({kind})")

    def _went_through(self) -> None:
        self.failing = None
        if self._failing_since is not None:
            log.info("WhatsApp took a request again after %.0f s of failures; what waited goes now",
                     self.clock() - self._failing_since)
            self._failing_since = None

    def _past_horizon(self, item: _Item) -> bool:
        now = self.clock()
        if item.failing_since is None:
            item.failing_since = now
        return now - item.failing_since >= self.horizon

    @staticmethod
    def _backoff(item: _Item, base: float) -> float:
        return float(min(base * 2 ** (item.failures - 1), BACKOFF_CAP))

    async def _dead(self, item: _Item, reason: str) -> None:
        await self.on_dead(item.call, reason)
