"""``WriteOnce``: the one rule for an ISP write whose outcome is unknown (flows use ``ctx.write_once``).

A write that timed out (``IspTransportError.outcome_unknown``) may have landed, and a slow ISP may
still be finishing it after the client gave up. So it is never sent again blindly:

1. the moment of the try is kept in the flow's data and the person is told the bot is not sure
   (the flow's ``unsure`` question, whose button asks to try again);
2. before writing again the flow reads back (its ``read_back`` looks for the earlier write since
   that moment): found, the flow goes on as if the write had answered;
3. not found within ``SETTLE`` of the try, the person is asked to wait (the ``wait`` question);
   after that the write is sent again.

Any other failure is the engine's (told plainly, the step's question asked again). A write that sets
a state the next try re-reads first (a status move, an appointment, an unblock) needs none of this.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from bot.isp import IspTransportError

T = TypeVar("T")

SETTLE = timedelta(minutes=2)  # longer than any request the ISP may still be finishing
CLOCK_SLACK = timedelta(minutes=2)  # the ISP's clock may run a little behind ours: read back from before the try
TRIES = "tries"  # key of the flow's data: the tries whose outcome is unknown, by write


@dataclass(frozen=True, slots=True)
class Found(Generic[T]):
    """The read-back found something of the earlier try (what ``read_back`` returned)."""

    value: T


@dataclass(frozen=True, slots=True)
class Sent(Generic[T]):
    """The write answered: ``value`` is its answer."""

    value: T


class Wait:
    """The earlier try is not found yet but may still land: the person was asked to wait."""


class WriteOnce:
    """One write of a flow under the rule above; ``key`` names it in the flow's data."""

    def __init__(
        self, data: dict[str, Any], now: Callable[[], datetime], key: str, *, ask: Callable[[str], None],
        unsure: str, wait: str | None = None,
    ) -> None:
        self._data, self._now, self._key = data, now, key
        self._ask, self._unsure, self._wait = ask, unsure, wait

    async def recall(
        self, read_back: Callable[[datetime], Awaitable[T | None]], *, what: Any = None,
    ) -> Found[T] | Wait | None:
        """Read back an earlier try of this write (of the same ``what``, a JSON value) whose outcome is
        unknown: ``Found``, ``Wait`` (asked), or None when there is none or it has settled unfound."""
        tried = self._data.get(TRIES, {}).get(self._key)
        if tried is None or tried.get("what") != what:
            return None
        at = datetime.fromisoformat(tried["at"])
        found = await read_back(at)
        if found is not None:
            return Found(found)
        if self._now() - at < SETTLE:
            if self._wait is None:
                raise LookupError(f"write {self._key!r} has no question to ask the person to wait")
            self._ask(self._wait)
            return Wait()
        return None

    async def send(self, write: Callable[[], Awaitable[T]], *, what: Any = None) -> Sent[T] | None:
        """Send the write; None when its outcome is unknown (the try is kept and ``unsure`` asked)."""
        at = self._now()
        try:
            answer = await write()
        except IspTransportError as exc:
            if not exc.outcome_unknown:
                raise
            self._data.setdefault(TRIES, {})[self._key] = {"at": at.isoformat(), "what": what}
            self._ask(self._unsure)
            return None
        self._data.get(TRIES, {}).pop(self._key, None)
        return Sent(answer)
