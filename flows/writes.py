"""The rules for an ISP write that may have landed though no answer came (``ctx.write_once``,
``ctx.write_state``).

``WriteOnce``, a write that adds something (a ticket, a note), is never resent blindly after a timeout
(``IspTransportError.outcome_unknown``): 1. the try's moment is kept
in the flow's data and the flow's ``unsure`` asked; 2. before writing again the flow reads back since
that moment: found, it goes on as if the write had answered; 3. not found within ``SETTLE`` of the try,
the person is asked to ``wait``, then it is resent. Any other failure is the engine's (told plainly,
the step's question asked again). ``send_once``, where no question follows, reads back at once: not
found is ``Unsure``, told so, never resent. ``WriteGuarded``: a write the ISP refuses to repeat.

``WriteState``, a write that sets a state (a status move, an appointment, an unblock): after any
failure to reach the ISP (a timeout as much as an HTTP 500) the state is read back at once. Set, the
flow goes on as answered (``Found``); not set, it takes its own path (``missed``) or the failure is the
engine's. When that read fails too, a flow with an ``unsure`` question asks it (its button: ``recall``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Generic, TypeVar

from bot.isp import IspApiError, IspError, IspTransportError
from bot.isp.errors import ErrorName

T = TypeVar("T")
S = TypeVar("S")

SETTLE = timedelta(minutes=2)  # longer than any request the ISP may still be finishing
CLOCK_SLACK = timedelta(minutes=2)  # the ISP's clock may run a little behind ours: read back from before the try
TRIES = "tries"  # key of the flow's data: the tries whose outcome is unknown, by write


@dataclass(frozen=True, slots=True)
class Found(Generic[T]):
    """The read-back found the earlier try, or the state set (what ``read_back`` returned)."""

    value: T


@dataclass(frozen=True, slots=True)
class Sent(Generic[T]):
    """The write answered: ``value`` is its answer."""

    value: T


class Wait:
    """The earlier try is not found yet but may still land: the person was asked to wait."""


class Unsure:
    """The write's outcome is unknown and reading back did not find it: it may still land."""


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


class WriteState(Generic[S]):
    """One state-setting write of a flow under the second rule (the state is its own record: nothing
    is kept in the flow's data). ``read_back`` reads the state now (None when it told the person why
    there is nothing to act on); ``landed`` says whether what it read is the state the write sets;
    ``missed`` is the flow's path for a write that did not set it (without one, the write's failure is
    the engine's)."""

    def __init__(
        self, *, read_back: Callable[[], Awaitable[S | None]], landed: Callable[[S], bool],
        missed: Callable[[S], None] | None = None, ask: Callable[[str], None] | None = None,
        unsure: str | None = None,
    ) -> None:
        if (ask is None) != (unsure is None):
            raise ValueError("a state write's ask and unsure go together")
        self._read_back, self._landed, self._missed = read_back, landed, missed
        self._ask_unsure = None if ask is None or unsure is None else partial(ask, unsure)

    async def send(self, write: Callable[[], Awaitable[T]]) -> Sent[T] | Found[S] | None:
        """Send the write; on a failure to reach the ISP, read the state back at once. None when the
        write did not land (``missed`` taken), the read-back told the person why, or it failed and
        ``unsure`` was asked."""
        try:
            return Sent(await write())
        except IspTransportError as failed:
            if self._ask_unsure is None:
                return self._judge(await self._read_back(), failed)
            try:
                fresh = await self._read_back()
            except IspError:
                self._ask_unsure()
                return None
            return self._judge(fresh, failed)

    async def recall(self) -> Found[S] | None:
        """Read the state again once ``unsure`` was asked (a failure here is the engine's); None when it
        is not set (``missed`` taken) or the read-back told the person why."""
        if self._missed is None:
            raise LookupError("a state write read again needs a path for a write that did not land")
        return self._judge(await self._read_back(), None)

    def _judge(self, fresh: S | None, failed: IspTransportError | None) -> Found[S] | None:
        if fresh is None:
            return None
        if self._landed(fresh):
            return Found(fresh)
        if self._missed is not None:
            self._missed(fresh)
            return None
        if failed is not None:  # always, as ``recall`` needs ``missed``
            raise failed
        return None


async def send_once(
    write: Callable[[], Awaitable[T]], read_back: Callable[[datetime], Awaitable[S | None]],
    now: Callable[[], datetime],
) -> Sent[T] | Found[S] | Unsure:
    """A write that adds something, where no question follows to check it later: after a timeout it is
    read back at once from the try's moment (``Found``); not found, or the read failing, it is
    ``Unsure`` (the caller says it may still appear; nobody resends it blindly). Any other failure
    is raised."""
    at = now()
    try:
        return Sent(await write())
    except IspTransportError as exc:
        if not exc.outcome_unknown:
            raise
    try:
        found = await read_back(at)
    except IspError:
        return Unsure()
    return Unsure() if found is None else Found(found)


class WriteGuarded:
    """A write the ISP itself refuses to repeat (a second temporary suspension answers 20, a second
    call-off 12) and that has no read-back: after a lost answer ``unsure`` is asked and the write sent
    again on its button; the ``repeated`` refusal then means the first try landed (``Found``). ``key``
    names it in the flow's data."""

    def __init__(self, data: dict[str, Any], key: str, *, repeated: ErrorName, ask: Callable[[str], None],
                 unsure: str) -> None:
        self._data, self._key, self._repeated = data, key, repeated
        self._ask, self._unsure = ask, unsure

    @property
    def tried(self) -> bool:
        """Whether an earlier try of this write had its answer lost."""
        return self._key in self._data.get(TRIES, {})

    async def send(self, write: Callable[[], Awaitable[T]]) -> Sent[T] | Found[None] | None:
        """Send the write: ``Sent``, ``Found`` (a repeat refused: the earlier try landed), or None when
        its outcome is unknown (``unsure`` asked). Any other refusal is raised for the flow to tell."""
        tried = self.tried
        try:
            answer = await write()
        except IspTransportError as exc:
            if not exc.outcome_unknown:
                raise
            self._data.setdefault(TRIES, {})[self._key] = {"what": None}
            self._ask(self._unsure)
            return None
        except IspApiError as exc:
            if not (tried and exc.known is self._repeated):
                raise
            self.forget()
            return Found(None)
        self.forget()
        return Sent(answer)

    def forget(self) -> None:
        self._data.get(TRIES, {}).pop(self._key, None)
