"""A round of notices is handed to the channel as the channel sends (``Processor.send_round``): a round
for ten thousand subscribers does not queue them all at once ahead of the answers to people."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

from bot.runtime.processor import ROUND_AHEAD, Processor
from flows.replies import Message, Notice

BATCH = 50  # as the round hands them (flows.notices.SEND_BATCH)


class HeldChannel:
    """A channel that sends only when the test says so."""

    name = "telegram"

    def __init__(self) -> None:
        self.queued: list[asyncio.Future[Any]] = []

    def render_notice(self, notice: Notice) -> list[Notice]:
        return [notice]

    async def send(self, calls: Sequence[Notice], *, notice: bool = False) -> list[asyncio.Future[Any]]:
        futures = [asyncio.get_running_loop().create_future() for _ in calls]
        self.queued += futures
        return futures

    def send_some(self, count: int) -> None:
        for future in [f for f in self.queued if not f.done()][:count]:
            future.set_result({"message_id": 1})

    @property
    def unsent(self) -> int:
        return sum(not f.done() for f in self.queued)


async def test_a_round_waits_while_the_channel_has_enough_in_hand_and_goes_on_as_it_sends() -> None:
    channel = HeldChannel()
    processor = Processor(cast(Any, None), cast(Any, None), cast(Any, channel))
    notices = [Notice(chat_id, Message("vence em 3 dias"), "bill_due") for chat_id in range(1, 1001)]

    async def round_of_notices() -> None:
        for start in range(0, len(notices), BATCH):
            await processor.send_round(notices[start:start + BATCH])

    handing = asyncio.create_task(round_of_notices())
    for _ in range(10):
        await asyncio.sleep(0)
    assert not handing.done() and ROUND_AHEAD < channel.unsent <= ROUND_AHEAD + BATCH
    while not handing.done():
        channel.send_some(30)  # a second of Telegram's pace
        for _ in range(10):
            await asyncio.sleep(0)
        assert channel.unsent <= ROUND_AHEAD + BATCH
    assert len(channel.queued) == 1000  # every notice handed, once
