"""A background loop's pause, cut short by a wake that came at any time since the last pause.

The processor, the mirror's and the desk's workers and Chatwoot's read-back each work a round, then
pause until woken (new work committed), stopped, or the pause is over. A loop that clears its event
just before pausing drops a wake that came during the round: work committed after the round read
the database then waited a whole pause (a minute, for Chatwoot's read-back). Here the wake is
consumed when a pause ends, so a pause that begins with one pending ends at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


class Wakeup:
    def __init__(self) -> None:
        self._woken = asyncio.Event()

    def set(self) -> None:
        """Wake the loop: its pause ends now, or its next one does not begin."""
        self._woken.set()

    async def pause(
        self, seconds: float, stop: asyncio.Event | None = None, *,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        """Up to ``seconds`` (none when negative), less when woken or ``stop`` is set."""
        if self._woken.is_set() or seconds <= 0 or (stop is not None and stop.is_set()):
            self._woken.clear()
            await asyncio.sleep(0)  # a pause is always a turn of the event loop
            return
        waits: list[asyncio.Future[object]] = [asyncio.ensure_future(sleep(seconds)),
                                               asyncio.ensure_future(self._woken.wait())]
        if stop is not None:
            waits.append(asyncio.ensure_future(stop.wait()))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._woken.clear()  # before any other await: a wake from here on ends the next pause
            for wait in waits:
                wait.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
