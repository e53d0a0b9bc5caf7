"""The rules for a write whose outcome is unknown, held by ``flows.writes``. ``WriteOnce``: the try is
kept and the person told, the next try reads back first, and within SETTLE the person is asked to wait.
``send_once``: read back at once, unsure when not found. ``WriteState``: after any failure the state is
read back at once, and set or not it is acted on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from bot.isp import IspApiError, IspTimeout, IspUnreachable
from bot.isp.errors import Generation
from flows.writes import SETTLE, Found, Sent, Unsure, Wait, WriteOnce, WriteState, send_once

import flows

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class Turn:
    """One flow's data, a clock and what the write asked the person, across turns."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.now = START
        self.asked: list[str] = []

    def write(self) -> WriteOnce:
        return WriteOnce(self.data, lambda: self.now, "opening", ask=self.asked.append, unsure="unsure", wait="wait")


def timeout() -> IspTimeout:
    error = IspTimeout("no answer")
    error.outcome_unknown = True
    return error


async def lost() -> int:
    raise timeout()


async def answered() -> int:
    return 7


async def nothing(tried: datetime) -> int | None:
    return None


async def test_an_answer_is_sent_back_and_nothing_is_kept() -> None:
    turn = Turn()
    assert await turn.write().send(answered) == Sent(7)
    assert turn.asked == []
    assert await turn.write().recall(nothing) is None


async def test_an_unknown_outcome_keeps_the_try_and_asks_whether_it_landed() -> None:
    turn = Turn()
    assert await turn.write().send(lost) is None
    assert turn.asked == ["unsure"]
    seen: list[datetime] = []

    async def landed(tried: datetime) -> int | None:
        seen.append(tried)
        return 7

    turn.now += timedelta(seconds=30)
    assert await turn.write().recall(landed) == Found(7)
    assert seen == [START]


async def test_an_unfound_try_is_waited_for_within_settle_then_written_again() -> None:
    turn = Turn()
    await turn.write().send(lost)
    turn.now += SETTLE - timedelta(seconds=1)
    assert isinstance(await turn.write().recall(nothing), Wait)
    assert turn.asked == ["unsure", "wait"]
    turn.now += timedelta(seconds=1)
    assert await turn.write().recall(nothing) is None


async def test_the_latest_try_is_the_one_waited_for() -> None:
    turn = Turn()
    await turn.write().send(lost)
    turn.now += SETTLE
    await turn.write().send(lost)
    assert isinstance(await turn.write().recall(nothing), Wait)


async def test_a_try_of_something_else_is_not_read_back() -> None:
    turn = Turn()
    await turn.write().send(lost, what="first note")
    assert await turn.write().recall(nothing, what="another note") is None
    assert isinstance(await turn.write().recall(nothing, what="first note"), Wait)


async def test_a_failure_that_wrote_nothing_is_the_engines() -> None:
    turn = Turn()

    async def unreachable() -> int:
        raise IspUnreachable("refused")

    with pytest.raises(IspUnreachable):
        await turn.write().send(unreachable)
    assert turn.asked == []
    assert await turn.write().recall(nothing) is None


# ---- a write that adds something, where no question follows ----------------------------------------
async def test_send_once_reads_a_lost_answer_back_at_once_from_before_the_try() -> None:
    read_from: list[datetime] = []

    async def there(tried: datetime) -> int | None:
        read_from.append(tried)
        return 7

    assert await send_once(answered, there, lambda: START) == Sent(7)
    assert read_from == []
    assert await send_once(lost, there, lambda: START) == Found(7)
    assert read_from == [START]


async def test_send_once_is_unsure_when_the_try_is_not_found_or_cannot_be_read() -> None:
    async def down(tried: datetime) -> int | None:
        raise IspUnreachable("refused")

    assert isinstance(await send_once(lost, nothing, lambda: START), Unsure)
    assert isinstance(await send_once(lost, down, lambda: START), Unsure)


async def test_send_once_raises_a_failure_that_wrote_nothing_and_reads_nothing() -> None:
    async def unreachable() -> int:
        raise IspUnreachable("refused")

    async def never(tried: datetime) -> int | None:
        raise AssertionError("nothing to read back: the write never reached the ISP")

    with pytest.raises(IspUnreachable):
        await send_once(unreachable, never, lambda: START)


# ---- a write that sets a state ---------------------------------------------------------------------
class Light:
    """A state (on or off) whose write may fail, what a flow did about a miss, what it asked."""

    def __init__(self, on: bool | None = False) -> None:
        self.on = on
        self.reads = 0
        self.missed: list[bool] = []
        self.asked: list[str] = []

    async def read(self) -> bool | None:
        self.reads += 1
        return self.on

    def write(self, *, missed: bool = True, unsure: bool = False) -> WriteState[bool]:
        return WriteState(read_back=self.read, landed=lambda on: on, missed=self.missed.append if missed else None,
                          ask=self.asked.append if unsure else None, unsure="unsure" if unsure else None)


async def test_a_state_write_that_answered_reads_nothing_back() -> None:
    light = Light()
    assert await light.write().send(answered) == Sent(7)
    assert light.reads == 0


async def test_a_state_write_that_landed_though_it_failed_goes_on_as_answered() -> None:
    light = Light(on=True)
    assert await light.write().send(lost) == Found(True)
    assert light.missed == []


async def test_a_state_not_set_takes_the_flows_path_or_is_the_engines() -> None:
    light = Light()

    async def unreachable() -> int:
        raise IspUnreachable("refused")  # outcome known: read back all the same

    assert await light.write().send(unreachable) is None
    assert light.missed == [False]
    with pytest.raises(IspUnreachable):
        await light.write(missed=False).send(unreachable)
    assert light.reads == 2


async def test_when_the_read_back_fails_too_the_flow_asks_or_the_engine_tells() -> None:
    light = Light()

    async def down() -> bool | None:
        raise IspUnreachable("down")

    write = WriteState(read_back=down, landed=bool, missed=light.missed.append, ask=light.asked.append,
                       unsure="unsure")
    assert await write.send(lost) is None
    assert light.asked == ["unsure"]
    with pytest.raises(IspUnreachable):
        await WriteState(read_back=down, landed=bool).send(lost)
    light.on = True
    assert await light.write(unsure=True).recall() == Found(True)


async def test_a_read_back_that_told_the_person_ends_the_write_and_a_refusal_is_not_read_back() -> None:
    light = Light(on=None)
    assert await light.write().send(lost) is None
    assert light.missed == []

    async def refused() -> int:
        raise IspApiError(operation="light_update", generation=Generation.V2, code=15)

    with pytest.raises(IspApiError):
        await light.write().send(refused)
    assert light.reads == 1


async def test_a_state_write_needs_its_question_to_ask_and_a_path_for_a_miss_to_read_again() -> None:
    with pytest.raises(ValueError, match="go together"):
        WriteState(read_back=Light().read, landed=bool, ask=print)
    with pytest.raises(LookupError):
        await Light().write(missed=False).recall()


def test_only_flows_writes_decides_what_a_failure_to_reach_the_isp_means() -> None:
    """The rules live in one place: no flow handles ``IspTransportError`` itself (the engine, and its
    staff turn at the desk, tell what the rules leave to it)."""
    root = Path(flows.__file__).parent
    handling = [str(p.relative_to(root)) for p in sorted(root.rglob("*.py"))
                if "IspTransportError" in p.read_text(encoding="utf-8")]
    assert handling == ["engine.py", "staff_turn.py", "writes.py"]
