"""Protections for a fragile server: a circuit breaker, single-flight for identical reads, and a
small TTL cache for reference lists.

The circuit breaker is a few lines written here rather than a dependency because the bot needs
its state for metrics and an injectable clock for tests; retries use tenacity (transport.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from enum import StrEnum
from typing import Any, Generic, TypeVar

from cachetools import TTLCache

from bot.isp.errors import CircuitOpenError

log = logging.getLogger("bot.isp")

T = TypeVar("T")
Clock = Callable[[], float]


class CircuitState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Opens after ``threshold`` failures in a row; while open every call fails at once with
    ``CircuitOpenError``; after ``reset_after`` seconds one trial call is let through (half open),
    and its outcome closes or re-opens the circuit."""

    def __init__(self, *, threshold: int, reset_after: float, clock: Clock = time.monotonic,
                 name: str = "isp") -> None:
        self.threshold = threshold
        self.reset_after = reset_after
        self.name = name
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_running = False

    @property
    def state(self) -> CircuitState:
        if self._opened_at is None:
            return CircuitState.CLOSED
        if self._clock() - self._opened_at >= self.reset_after:
            return CircuitState.HALF_OPEN
        return CircuitState.OPEN

    def before_call(self) -> None:
        state = self.state
        if state is CircuitState.OPEN or (state is CircuitState.HALF_OPEN and self._trial_running):
            retry_in = max(0.0, self.reset_after - (self._clock() - (self._opened_at or 0.0)))
            raise CircuitOpenError(
                f"the ISP web service failed {self._failures} times in a row; "
                f"calls are paused for {retry_in:.0f} s more"
            )
        if state is CircuitState.HALF_OPEN:
            self._trial_running = True

    def record_success(self) -> None:
        if self._opened_at is not None:
            log.info("circuit %s closed: the ISP web service answers again", self.name)
        self._failures = 0
        self._opened_at = None
        self._trial_running = False

    def record_failure(self) -> None:
        self._failures += 1
        trial_failed = self._trial_running
        self._trial_running = False
        if trial_failed or (self._opened_at is None and self._failures >= self.threshold):
            self._opened_at = self._clock()
            log.warning("circuit %s opened after %d failures in a row", self.name, self._failures)


class SingleFlight:
    """Callers asking for the same key while a call is in flight share that call's outcome."""

    def __init__(self) -> None:
        self._inflight: dict[Hashable, asyncio.Future[Any]] = {}

    @property
    def in_flight(self) -> int:
        return len(self._inflight)

    async def run(self, key: Hashable, call: Callable[[], Awaitable[T]]) -> T:
        existing = self._inflight.get(key)
        if existing is not None:
            result: T = await asyncio.shield(existing)
            return result
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            value = await call()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: followers may be none
            raise
        else:
            future.set_result(value)
            return value
        finally:
            del self._inflight[key]


class TtlCache(Generic[T]):
    """Reference lists (topics, causes, plans, cycles) change rarely: keep them ``ttl`` seconds,
    and load each key once even when many callers miss at the same moment."""

    def __init__(self, ttl: float, *, maxsize: int = 512, clock: Clock = time.monotonic) -> None:
        self._values: TTLCache[Hashable, T] = TTLCache(maxsize=maxsize, ttl=ttl, timer=clock)
        self._flight = SingleFlight()

    async def get_or_load(self, key: Hashable, load: Callable[[], Awaitable[T]]) -> T:
        try:
            return self._values[key]
        except KeyError:
            pass

        async def load_and_keep() -> T:
            value = await load()
            self._values[key] = value
            return value

        return await self._flight.run(key, load_and_keep)

    def invalidate(self, key: Hashable | None = None) -> None:
        if key is None:
            self._values.clear()
        else:
            self._values.pop(key, None)
