"""The sender under a surge, on a virtual clock: replies before the bot's own notices, a chat's
queued texts joined into one send, and notices as paid broadcasts when the operator allows them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from bot.channels.telegram.render import ApiCall
from bot.channels.telegram.sender import Rate, Sender

from tests.telegram_sender.test_sender import VirtualClock, max_in_window


@dataclass
class Recorder:
    """Every call with its params, at virtual time."""

    clock: VirtualClock
    calls: list[tuple[float, dict[str, Any]]] = field(default_factory=list)

    async def __call__(self, method: str, params: dict[str, Any]) -> Any:
        self.calls.append((self.clock.now, params))
        return {"message_id": len(self.calls)}

    def chats(self) -> list[int]:
        return [params["chat_id"] for _, params in self.calls]

    def texts(self, chat_id: int) -> list[str]:
        return [params["text"] for _, params in self.calls if params["chat_id"] == chat_id]


def text(chat_id: int, body: str, keyboard: str | None = None, **extra: Any) -> ApiCall:
    params: dict[str, Any] = {"chat_id": chat_id, "text": body, "parse_mode": "HTML", **extra}
    if keyboard is not None:
        params["reply_markup"] = {"inline_keyboard": [[{"text": keyboard, "callback_data": keyboard}]]}
    return ApiCall("sendMessage", params)


async def run(clock: VirtualClock, sender: Sender, go: Any) -> Any:
    result = await asyncio.wait_for(clock.run(go()), timeout=20)
    await asyncio.wait_for(sender.aclose(), timeout=5)
    return result


async def test_replies_go_out_before_notices_queued_earlier() -> None:
    clock = VirtualClock()
    api = Recorder(clock)
    sender = Sender(api, clock=clock.time, sleep=clock.sleep)
    replied_at: list[float] = []

    async def go() -> None:
        for chat_id in range(1, 91):  # three seconds' worth of "the outage is over"
            await sender.submit_all([text(chat_id, "voltou")], notice=True)
        await clock.sleep(1.5)  # a person writes in the middle of it
        futures = [await sender.submit(text(chat_id, "resposta")) for chat_id in range(500, 505)]
        await asyncio.gather(*futures)
        replied_at.append(clock.now)
        await sender.drain()

    await run(clock, sender, go)
    assert sorted(api.chats()) == [*range(1, 91), *range(500, 505)]
    # The replies took the next free slots (30 a second: well within half a second), ahead of the
    # notices that were waiting; the notices all went out still.
    assert replied_at[0] <= 1.5 + 0.5
    first_reply = api.chats().index(500)
    assert api.chats()[first_reply:first_reply + 5] == list(range(500, 505))
    assert max_in_window([at for at, _ in api.calls], 1.0) <= 30


async def test_a_person_who_writes_as_a_broadcast_starts_is_answered_at_once() -> None:
    """The notices do not go as a burst that fills the second's 30 sends: they are spread over it,
    so a reply never waits a whole second behind them."""
    clock = VirtualClock()
    api = Recorder(clock)
    sender = Sender(api, clock=clock.time, sleep=clock.sleep)
    replied_at: list[float] = []

    async def go() -> None:
        for chat_id in range(1, 91):
            await sender.submit_all([text(chat_id, "voltou")], notice=True)
        await clock.sleep(0.05)
        await asyncio.gather(await sender.submit(text(500, "resposta")))
        replied_at.append(clock.now)
        await sender.drain()

    await run(clock, sender, go)
    assert replied_at[0] <= 0.05 + 2 / 30  # the next slot, not the next second
    notices = [at for at, params in api.calls if params["chat_id"] != 500]
    assert len(notices) == 90 and max(notices) <= 3.1  # still 30 a second
    assert max_in_window([at for at, _ in api.calls], 1.0) <= 30


class LateClock(VirtualClock):
    """A busy loop: every sleeper wakes 10 ms late."""

    async def sleep(self, delay: float) -> None:
        await super().sleep(delay + 0.01)


async def test_notices_woken_late_by_a_busy_loop_still_go_at_thirty_a_second() -> None:
    """Each notice has its slot on a schedule: one that went late lets the next catch up, so 300 take
    ten seconds, not 300 times (1/30 s + the lateness), and never a burst past the limit."""
    clock = LateClock()
    api = Recorder(clock)
    sender = Sender(api, clock=clock.time, sleep=clock.sleep)

    async def go() -> None:
        for chat_id in range(1, 301):
            await sender.submit_all([text(chat_id, "vence em 3 dias")], notice=True)
        await sender.drain()

    await run(clock, sender, go)
    times = [at for at, _ in api.calls]
    assert len(times) == 300 and max(times) <= 10.5
    assert max_in_window(times, 1.0) <= 30 and max_in_window(times, 0.2) <= 6 + 3  # spread, as before


async def test_texts_queued_behind_a_chats_limit_go_as_one_message_with_the_newest_keyboard() -> None:
    clock = VirtualClock()
    api = Recorder(clock)
    sender = Sender(api, clock=clock.time, sleep=clock.sleep)

    async def go() -> list[Any]:
        first = await sender.submit(text(9, "primeira", "a"))
        await first  # the chat just got a message: what comes next waits a second anyway
        futures = [
            *await sender.submit_all([text(9, "dois", "b"), text(9, "três", "c")]),  # one turn: two keyboards
            *await sender.submit_all([text(9, "quatro")]),
            *await sender.submit_all([text(9, "cinco", "e")]),
        ]
        return list(await asyncio.gather(*futures))

    results = await run(clock, sender, go)
    # The turn's own two messages stay apart (each keeps its buttons); the later turns join the second.
    assert api.texts(9) == ["primeira", "dois", "três\n\nquatro\n\ncinco"]
    markups = [params.get("reply_markup") for _, params in api.calls]
    assert markups[2] == {"inline_keyboard": [[{"text": "e", "callback_data": "e"}]]}
    assert results[1] == results[2] == results[3]  # every joined call is answered by the one send
    assert [at for at, _ in api.calls] == [0.0, 1.0, 2.0]


async def test_joining_stops_at_4096_characters_a_reply_keyboard_and_a_notice() -> None:
    clock = VirtualClock()
    api = Recorder(clock)
    sender = Sender(api, clock=clock.time, sleep=clock.sleep)
    contact = {"keyboard": [[{"text": "Enviar meu número", "request_contact": True}]], "one_time_keyboard": True}

    async def go() -> None:
        await (await sender.submit(text(3, "oi")))
        for call in (text(3, "x" * 3000), text(3, "y" * 1500), text(3, "z" * 10)):
            await sender.submit_all([call])
        await sender.submit_all([ApiCall("sendMessage", {"chat_id": 3, "text": "número?", "reply_markup": contact})])
        await sender.submit_all([text(3, "a fila andou")], notice=True)
        await sender.drain()

    await run(clock, sender, go)
    assert api.texts(3) == ["oi", "x" * 3000, "y" * 1500 + "\n\n" + "z" * 10, "número?", "a fila andou"]


async def test_paid_broadcast_sends_notices_at_its_own_rate_and_replies_without_it() -> None:
    clock = VirtualClock()
    api = Recorder(clock)
    sender = Sender(api, clock=clock.time, sleep=clock.sleep, paid_broadcast=Rate(1000, 1.0))

    async def go() -> None:
        for chat_id in range(1, 301):
            await sender.submit_all([text(chat_id, "voltou")], notice=True)
        for chat_id in range(1000, 1060):
            await sender.submit(text(chat_id, "resposta"))
        await sender.drain()

    await run(clock, sender, go)
    paid = [(at, params) for at, params in api.calls if params.get("allow_paid_broadcast") is True]
    free = [(at, params) for at, params in api.calls if "allow_paid_broadcast" not in params]
    assert sorted(params["chat_id"] for _, params in paid) == list(range(1, 301))
    assert sorted(params["chat_id"] for _, params in free) == list(range(1000, 1060))
    assert max(at for at, _ in paid) < 3  # 300 notices: not ten seconds at 30 a second
    assert max_in_window([at for at, _ in free], 1.0) <= 30  # replies keep the free limit


async def test_without_paid_broadcast_notices_share_the_overall_limit() -> None:
    clock = VirtualClock()
    api = Recorder(clock)
    sender = Sender(api, clock=clock.time, sleep=clock.sleep)

    async def go() -> None:
        for chat_id in range(1, 61):
            await sender.submit_all([text(chat_id, "voltou")], notice=True)
        await sender.drain()

    await run(clock, sender, go)
    assert all("allow_paid_broadcast" not in params for _, params in api.calls)
    assert max_in_window([at for at, _ in api.calls], 1.0) == 30
