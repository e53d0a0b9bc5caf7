"""This process's heartbeat, and the work of processes whose heartbeat stopped taken over at once.

Every ``every`` seconds one transaction refreshes this process's row (``bot.store.processes``) and
frees the inbox rows of any process silent for longer than ``Processes.stale``; when it freed some,
``on_taken_over`` lets the processor claim and resend them now rather than at its next sweep. So a
``kill -9``'d process's claimed updates and unsent answers wait seconds, not their lease's minutes,
whether a live process or the restarted one picks them up.

After a failed beat (the database unreachable) this process judges nobody until it has beaten again
for ``stale``: the others, which could not beat either, get their chance first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from bot.store import Database, utcnow
from bot.store.processes import Processes

log = logging.getLogger(__name__)

BEAT_EVERY = 1.0  # seconds; well within ``Processes.stale``


class Heartbeat:
    def __init__(
        self, database: Database, processes: Processes, on_taken_over: Callable[[], None], *,
        every: float = BEAT_EVERY, clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.database = database
        self.processes = processes
        self.on_taken_over = on_taken_over
        self.every = every
        self._clock = clock
        self._stale = processes.stale.total_seconds()
        self._beating_since: float | None = clock() - self._stale  # a process that just started may judge

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.beat()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.every)

    async def beat(self) -> int:
        """Beat once, and take over the work of processes gone silent; how many inbox rows."""
        try:
            async with self.database.transaction() as session:
                await self.processes.beat(session, utcnow())
                if self._beating_since is None:
                    self._beating_since = self._clock()
                if self._clock() - self._beating_since < self._stale:
                    return 0
                freed = await self.processes.take_over(session, utcnow())
        except Exception as exc:
            if self._beating_since is not None:
                log.error("could not refresh this process's heartbeat (%s): is the database up?", type(exc).__name__)
            self._beating_since = None
            return 0
        if freed:
            log.warning("took over %d updates and answers of a process that stopped", freed)
            self.on_taken_over()
        return freed

    async def leave(self) -> None:
        """This process stops: the others (or the next start) take what it still holds now."""
        try:
            async with self.database.transaction() as session:
                await self.processes.leave(session, utcnow())
        except Exception as exc:
            log.warning("could not sign this process off (%s); the others take its work when its heartbeat "
                        "is %.0fs old", type(exc).__name__, self._stale)
