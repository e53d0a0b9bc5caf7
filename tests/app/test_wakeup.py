"""The background loops pause between rounds until woken: a wake that comes while a round is at work
(what it woke for was committed after the round read the database) brings the next round at once,
not after the pause (an hour here; a minute for Chatwoot's read-back, a second or two for the rest)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, cast

import pytest
from bot.desks.chatwoot.recovery import ChatwootRecovery
from bot.desks.worker import DeskWorker
from bot.mirror.worker import MirrorWorker
from bot.runtime.processor import Processor
from bot.wakeup import Wakeup

HOUR = 3600.0
NOTHING: Any = None  # what a loop's round would use: never reached, the round is the test's


class QuietChannel:
    name, sends_at_once = "telegram", 1

    async def drain(self, within: float) -> None:
        return None


class Loop:
    """A background loop as its owner sees it: ``wake``, and ``run`` until a stop event."""

    def __init__(self, loop: Any, round_name: str, run: Callable[[asyncio.Event], Any]) -> None:
        self.loop, self.round_name, self.run = loop, round_name, run


def processor() -> Loop:
    made = Processor(NOTHING, NOTHING, cast(Any, QuietChannel()))

    async def nothing_due() -> None:
        return None

    made._sweep_if_due = nothing_due  # type: ignore[method-assign]
    return Loop(made, "step", lambda stop: made.run(stop, idle_wait=HOUR))


def mirror() -> Loop:
    made = MirrorWorker(NOTHING, NOTHING, idle=HOUR, stats_every=HOUR)
    return Loop(made, "_round", made.run)


def desk() -> Loop:
    made = DeskWorker(NOTHING, NOTHING, idle=HOUR)
    return Loop(made, "round", made.run)


def chatwoot_read_back() -> Loop:
    made = ChatwootRecovery(NOTHING, NOTHING, interval=HOUR)
    return Loop(made, "round", made.run)


@pytest.mark.parametrize("make", [processor, mirror, desk, chatwoot_read_back])
async def test_a_wake_during_a_round_brings_the_next_round_at_once(make: Callable[[], Loop]) -> None:
    made = make()
    rounds, second = 0, asyncio.Event()

    async def a_round() -> int:
        nonlocal rounds
        rounds += 1
        if rounds == 1:
            await asyncio.sleep(0)  # reading the database...
            made.loop.wake()  # ...while an update, an entry or a job is committed
        else:
            second.set()
        return 0  # found nothing (it read before the commit)

    setattr(made.loop, made.round_name, a_round)
    stop = asyncio.Event()
    running = asyncio.create_task(made.run(stop))
    async with asyncio.timeout(10):
        await second.wait()
    stop.set()
    made.loop.wake()
    await asyncio.wait_for(running, 10)


async def test_a_wake_before_the_pause_ends_it_at_once_and_only_that_pause() -> None:
    wakeup = Wakeup()
    wakeup.set()
    await asyncio.wait_for(wakeup.pause(HOUR), 5)
    with pytest.raises(TimeoutError):  # consumed: the next pause waits
        await asyncio.wait_for(wakeup.pause(HOUR), 0.05)


async def test_a_pause_ends_when_woken_or_stopped_whichever_comes_first() -> None:
    wakeup, stop = Wakeup(), asyncio.Event()
    pausing = asyncio.create_task(wakeup.pause(HOUR, stop))
    await asyncio.sleep(0.01)
    wakeup.set()
    await asyncio.wait_for(pausing, 5)
    pausing = asyncio.create_task(wakeup.pause(HOUR, stop))
    await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(pausing, 5)
    await asyncio.wait_for(wakeup.pause(HOUR, stop), 5)  # already stopped: no pause at all


async def test_a_pause_sleeps_with_the_sleep_it_is_given() -> None:
    asked: list[float] = []

    async def recorded(seconds: float) -> None:
        asked.append(seconds)

    await asyncio.wait_for(Wakeup().pause(HOUR, sleep=recorded), 5)
    assert asked == [HOUR]
