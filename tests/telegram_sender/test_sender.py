"""The outgoing sender on a virtual clock: per-chat order, concurrency across chats, the overall,
per-chat and per-group limits, 429s that delay only their chat, and errors skipped, not looped."""

from __future__ import annotations

import asyncio
import datetime as dtm
import heapq
import itertools
import logging
from collections import Counter, defaultdict
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from bot.channels.telegram.render import ApiCall, render
from bot.channels.telegram.sender import Rate, Sender, chat_ref
from flows.replies import Button, Message
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TimedOut

T = TypeVar("T")
TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"  # the published sample token shape


class VirtualClock:
    """Time moves only when every task is waiting on it: then it jumps to the earliest sleeper."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def time(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(delay, 0.0), next(self._seq), future))
        await future

    @staticmethod
    async def settle() -> None:
        loop = asyncio.get_running_loop()
        for _ in range(10_000):
            await asyncio.sleep(0)
            if not getattr(loop, "_ready", None):
                for _ in range(3):  # a few more turns for callbacks scheduled by the last ones
                    await asyncio.sleep(0)
                if not getattr(loop, "_ready", None):
                    return

    async def run(self, awaitable: Awaitable[T], max_steps: int = 50_000) -> T:
        task = asyncio.ensure_future(awaitable)
        for _ in range(max_steps):
            await self.settle()
            if task.done():
                return task.result()
            if not self._sleepers:
                task.cancel()
                raise AssertionError("nothing is sleeping and the task is not done: deadlock")
            wake, _, future = heapq.heappop(self._sleepers)
            self.now = max(self.now, wake)
            if not future.done():
                future.set_result(None)
        task.cancel()
        raise AssertionError("too many clock steps")


@dataclass
class Sent:
    at: float
    method: str
    chat_id: int
    text: str


@dataclass
class FakeBotApi:
    """Records every call at virtual time; raises the errors queued for a chat, one per call."""

    clock: VirtualClock
    sent: list[Sent] = field(default_factory=list)
    attempts: list[Sent] = field(default_factory=list)
    errors: dict[int, list[Exception]] = field(default_factory=lambda: defaultdict(list))

    async def __call__(self, method: str, params: dict[str, Any]) -> Any:
        record = Sent(self.clock.now, method, int(params["chat_id"]), str(params.get("text", "")))
        self.attempts.append(record)
        queued = self.errors.get(record.chat_id)
        if queued:
            raise queued.pop(0)
        self.sent.append(record)
        return {"message_id": len(self.sent), "chat": {"id": record.chat_id}}

    def texts(self, chat_id: int) -> list[str]:
        return [s.text for s in self.sent if s.chat_id == chat_id]


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def api(clock: VirtualClock) -> FakeBotApi:
    return FakeBotApi(clock)


def make_sender(api: FakeBotApi, clock: VirtualClock, **kwargs: Any) -> Sender:
    return Sender(api, clock=clock.time, sleep=clock.sleep, **kwargs)


def msg(chat_id: int, text: str) -> ApiCall:
    return ApiCall("sendMessage", {"chat_id": chat_id, "text": text, "parse_mode": "HTML"})


async def submit_and_drain(sender: Sender, clock: VirtualClock, calls: list[ApiCall]) -> list[Any]:
    async def go() -> list[Any]:
        futures = await sender.submit_all(calls)
        await sender.drain()
        return [f.result() for f in futures]

    results = await asyncio.wait_for(clock.run(go()), timeout=20)
    await asyncio.wait_for(sender.aclose(), timeout=5)
    return results


def max_in_window(times: list[float], period: float) -> int:
    times = sorted(times)
    best, start = 0, 0
    for end, t in enumerate(times):
        while times[start] + period <= t:  # as the sender's ``Window`` counts
            start += 1
        best = max(best, end - start + 1)
    return best


async def test_200_chats_keep_their_order_within_the_overall_and_per_chat_limits(
    api: FakeBotApi, clock: VirtualClock
) -> None:
    sender = make_sender(api, clock)
    chats = range(1, 201)
    calls = [msg(chat, f"{chat}:{n}") for n in range(3) for chat in chats]  # interleaved across chats
    results = await submit_and_drain(sender, clock, calls)

    assert len(api.sent) == 600 and all(r is not None for r in results)
    for chat in chats:
        assert api.texts(chat) == [f"{chat}:0", f"{chat}:1", f"{chat}:2"]
        times = [s.at for s in api.sent if s.chat_id == chat]
        assert max_in_window(times, 1.0) == 1  # one a second per private chat
    assert max_in_window([s.at for s in api.sent], 1.0) <= 30  # 30 a second overall
    per_second = Counter(int(s.at) for s in api.sent)
    assert max(per_second.values()) <= 30
    # Concurrency across chats: 600 calls at 30 a second take about 20 simulated seconds, not 600.
    assert clock.now <= 21


async def test_a_429_delays_only_its_chat_and_the_call_is_sent_after_retry_after(
    api: FakeBotApi, clock: VirtualClock
) -> None:
    sender = make_sender(api, clock)
    api.errors[1] = [RetryAfter(5)]
    calls = [msg(1, "a0"), msg(1, "a1")] + [msg(chat, f"{chat}:{n}") for chat in (2, 3) for n in range(3)]
    await submit_and_drain(sender, clock, calls)

    assert api.texts(1) == ["a0", "a1"]  # nothing lost, order kept
    first_try = next(s for s in api.attempts if s.chat_id == 1)
    retried = next(s for s in api.sent if s.text == "a0")
    assert retried.at >= first_try.at + 5
    assert next(s for s in api.sent if s.text == "a1").at >= retried.at + 1
    others = [s for s in api.sent if s.chat_id in (2, 3)]
    assert len(others) == 6
    assert all(s.at < first_try.at + 5 for s in others)  # the other chats went on meanwhile
    assert api.texts(2) == ["2:0", "2:1", "2:2"]
    assert sender.stats.retried == 1


async def test_429_with_timedelta_retry_after(api: FakeBotApi, clock: VirtualClock) -> None:
    sender = make_sender(api, clock)
    api.errors[4] = [RetryAfter(dtm.timedelta(seconds=2.5))]
    await submit_and_drain(sender, clock, [msg(4, "x")])
    assert api.sent[0].at == pytest.approx(2.5)


async def test_a_group_gets_at_most_20_a_minute(api: FakeBotApi, clock: VirtualClock) -> None:
    sender = make_sender(api, clock)
    group = -1001234
    await submit_and_drain(sender, clock, [msg(group, str(n)) for n in range(45)] + [msg(7, "private")])

    times = [s.at for s in api.sent if s.chat_id == group]
    assert api.texts(group) == [str(n) for n in range(45)]
    assert max_in_window(times, 60.0) == 20
    assert times[20] >= 60 and times[40] >= 120
    assert next(s for s in api.sent if s.chat_id == 7).at < 1  # a private chat is not held up by the group


async def test_split_message_parts_arrive_in_order(api: FakeBotApi, clock: VirtualClock) -> None:
    sender = make_sender(api, clock)
    text = "\n".join(f"linha {i} <b>ok</b>" for i in range(1000))
    parts = render(Message(text, ((Button("ok", "tok"),),)), 55)
    assert len(parts) > 3
    await submit_and_drain(sender, clock, [*parts, msg(56, "other")])
    assert "\n".join(api.texts(55)) == text
    assert [s.chat_id for s in api.sent].count(55) == len(parts)


def keeper(dead: list[tuple[ApiCall, str]]) -> Any:
    async def keep(call: ApiCall, error: str) -> None:
        dead.append((call, error))
    return keep


async def test_blocked_user_is_a_dead_letter_logged_without_text_or_token(
    api: FakeBotApi, clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    dead: list[tuple[ApiCall, str]] = []
    sender = make_sender(api, clock, on_dead=keeper(dead))
    blocked = 987654321
    api.errors[blocked] = [
        Forbidden("Forbidden: bot was blocked by the user"),
        NetworkError(f"httpx.ConnectError for https://api.telegram.org/bot{TOKEN}/sendMessage"),
    ]
    results = await submit_and_drain(
        sender,
        clock,
        [msg(blocked, "seu CPF 123.456.789-00"), msg(blocked, "segunda"), msg(2, "outro chat")],
    )

    assert results[0] is None  # not delivered: kept
    assert [(call.params["text"], error) for call, error in dead] == [
        ("seu CPF 123.456.789-00", "Forbidden: bot was blocked by the user"),
    ]
    assert api.texts(blocked) == ["segunda"]  # the next call to that chat still goes (after a network retry)
    assert api.texts(2) == ["outro chat"]
    assert sender.stats.skipped == 1 and sender.stats.retried == 1
    logs = caplog.text
    assert "blocked by the user" in logs
    assert chat_ref(blocked) in logs
    assert str(blocked) not in logs
    assert "CPF" not in logs and "segunda" not in logs
    assert TOKEN not in logs and TOKEN.split(":")[1] not in logs


async def test_refusals_of_the_message_are_dead_letters_after_one_try_and_not_modified_is_done(
    api: FakeBotApi, clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    dead: list[tuple[ApiCall, str]] = []
    sender = make_sender(api, clock, on_dead=keeper(dead))
    api.errors[10] = [BadRequest("Chat not found")]
    api.errors[11] = [BadRequest("Message is not modified: specified new message content is the same")]
    api.errors[12] = [BadRequest("Message can't be edited")]
    edit = [ApiCall("editMessageText", {"chat_id": c, "message_id": 1, "text": "t"}) for c in (11, 12)]
    results = await submit_and_drain(sender, clock, [msg(10, "x"), *edit, msg(13, "ok")])
    assert len(api.attempts) == 4  # one try each: no retry loop on a permanent error
    assert api.texts(13) == ["ok"]
    assert sender.stats.by_error["BadRequest"] == 3
    assert [(call.chat_id, error) for call, error in dead] == [
        (10, "BadRequest: Chat not found"), (12, "BadRequest: Message can't be edited"),
    ]
    assert results[1] is True  # the message already says it
    assert "Chat not found" in caplog.text


async def test_network_errors_are_retried_with_capped_backoff_until_telegram_answers(
    api: FakeBotApi, clock: VirtualClock, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    sender = make_sender(api, clock, network_backoff_cap=60.0)
    refused = NetworkError("cannot connect (Connection refused)")
    api.errors[20] = [TimedOut() if n % 2 else refused for n in range(40)]  # 40 tries: half an hour unreachable
    results = await submit_and_drain(sender, clock, [msg(20, "x"), msg(20, "y"), msg(21, "z")])
    assert api.texts(20) == ["x", "y"]  # nothing given up, the chat's order kept
    assert results[2] == {"message_id": 1, "chat": {"id": 21}}  # other chats did not wait
    tries = [a.at for a in api.attempts if a.chat_id == 20]
    gaps = [later - earlier for earlier, later in itertools.pairwise(tries)]
    assert gaps[:7] == [1, 2, 4, 8, 16, 32, 60] and max(gaps) == 60
    said = [record for record in caplog.records if record.name == "bot.channels.telegram.sender"]
    assert [r.levelname for r in said] == ["WARNING", "INFO"]  # the streak's first failure, then its end
    assert "cannot connect (Connection refused), retry in 1.0s" in said[0].getMessage()
    assert "delivered after 40 failed tries" in said[1].getMessage()
    assert all(r.exc_info is None for r in caplog.records)


async def test_past_the_horizon_a_call_is_a_dead_letter_and_the_chat_goes_on(
    api: FakeBotApi, clock: VirtualClock,
) -> None:
    dead: list[tuple[ApiCall, str]] = []
    sender = make_sender(api, clock, network_horizon=600.0, on_dead=keeper(dead))
    api.errors[20] = [TimedOut() for _ in range(30)]
    results = await submit_and_drain(sender, clock, [msg(20, "x"), msg(20, "y")])
    assert [(call.params["text"], error) for call, error in dead] == [("x", "timed out")]
    assert results[0] is None and api.texts(20) == ["y"]


async def test_an_unexpected_error_is_a_bug_logged_with_its_traceback_and_its_call_kept(
    api: FakeBotApi, clock: VirtualClock, caplog: pytest.LogCaptureFixture,
) -> None:
    dead: list[tuple[ApiCall, str]] = []
    sender = make_sender(api, clock, on_dead=keeper(dead))
    api.errors[30] = [RuntimeError("boom")]
    await submit_and_drain(sender, clock, [msg(30, "a"), msg(30, "b")])
    assert api.texts(30) == ["b"]
    assert [(call.params["text"], error) for call, error in dead] == [("a", "unexpected RuntimeError")]
    assert any(record.exc_info is not None for record in caplog.records)


async def test_chat_migrated_resends_to_the_new_chat(api: FakeBotApi, clock: VirtualClock) -> None:
    sender = make_sender(api, clock)
    api.errors[-40] = [ChatMigrated(-10040)]
    results = await submit_and_drain(sender, clock, [msg(-40, "hello")])
    assert api.texts(-10040) == ["hello"]
    assert results[0] == {"message_id": 1, "chat": {"id": -10040}}


async def test_per_chat_queue_is_bounded_and_submit_waits(api: FakeBotApi, clock: VirtualClock) -> None:
    sender = make_sender(api, clock, workers=2, per_chat_queue=2)

    async def go() -> int:
        for n in range(6):
            await sender.submit(msg(50, str(n)))
        waited_until = clock.now
        await sender.drain()
        return int(waited_until)

    waited = await asyncio.wait_for(clock.run(go()), timeout=10)
    await asyncio.wait_for(sender.aclose(), timeout=5)
    # Order kept; what waited behind the chat's limit went joined.
    assert "\n\n".join(api.texts(50)) == "\n\n".join(str(n) for n in range(6))
    assert waited >= 1  # the producer was held back while the chat's queue was full


async def test_custom_rates_and_closed_sender(api: FakeBotApi, clock: VirtualClock) -> None:
    sender = make_sender(api, clock, overall=Rate(2, 1.0), private_chat=Rate(10, 1.0))
    await submit_and_drain(sender, clock, [msg(60, str(n)) for n in range(6)])
    assert max_in_window([s.at for s in api.sent], 1.0) == 2
    with pytest.raises(RuntimeError, match="closed"):
        await sender.submit(msg(60, "late"))
