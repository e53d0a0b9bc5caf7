"""The rule for a write whose outcome is unknown, held by ``flows.writes.WriteOnce``: the try is kept
and the person told, the next try reads back first, and within SETTLE the person is asked to wait."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bot.isp import IspTimeout, IspUnreachable
from flows.writes import SETTLE, Found, Sent, Wait, WriteOnce

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
