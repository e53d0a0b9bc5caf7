"""The sandbox's notion of "now": injectable so tests pin the date that state rules compare with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

ISP_ZONE = ZoneInfo("America/Sao_Paulo")

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The ISP's wall clock: the real service compares dates in its own time zone."""
    return datetime.now(ISP_ZONE)


@dataclass
class FixedClock:
    """A clock that moves only when told to, so a test can cross midnight on purpose."""

    now: datetime = field(default_factory=lambda: datetime(2025, 3, 10, 9, 30, tzinfo=ISP_ZONE))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    @classmethod
    def this_morning(cls) -> FixedClock:
        """Today at ten in the ISP's zone: for what the web service checks against its own day, as a
        request's model does before sending (a suspension starting today, not in the seeded past)."""
        return cls(system_clock().replace(hour=10, minute=0, second=0, microsecond=0))


def today(clock: Clock) -> date:
    return clock().date()


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")
