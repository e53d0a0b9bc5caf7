"""What a person handed to the staff may expect: whether the desk answers now (its hours,
``Policy.desk_hours``), their place in line and a wait estimate, or, outside hours, when the desk
opens again. Said when they ask for a person, when they ask again, and in the "still waiting" notice.

The estimate is the desk's own pace: the median time from a handoff asked for to a staff member's
first answer (``Handoffs.answer_times``: both desks mark it) over the last ``PACE_DAYS`` days, at most
``PACE_KEPT`` answers, counting only handoffs asked for while the desk was open (a night's wait says
nothing of the desk's pace), times the person's place in line. With fewer than ``PACE_LEAST`` such
answers the operator's ``ISPBOT_HANDOFF_MINUTES_EACH`` stands in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median
from typing import Any

from bot.store import Handoffs
from sqlalchemy.ext.asyncio import AsyncSession

from flows.hours import WeeklyHours
from flows.policy import Policy

PACE_DAYS = 14
PACE_KEPT = 50
PACE_LEAST = 3


@dataclass(frozen=True, slots=True)
class Expectation:
    """``open``: the desk answers now (None: its hours are not known); ``ahead``: people before this
    one in line; ``minutes``: the wait estimate; ``opens``: when a closed desk opens next (the ISP's zone)."""

    open: bool | None
    ahead: int
    minutes: int
    opens: datetime | None = None

    def said(self, now: datetime, hours: str) -> dict[str, Any]:
        """The variables of ``human.expect`` (and ``human.waiting``)."""
        days = (self.opens.date() - now.date()).days if self.opens is not None else None
        return {
            "closed": self.open is False, "hours": hours, "ahead": self.ahead, "minutes": self.minutes,
            "opens": self.opens, "opens_in_days": days, "opens_weekday": self.opens.weekday() if self.opens else None,
        }


async def pace_minutes(session: AsyncSession, handoffs: Handoffs, policy: Policy, now: datetime) -> int:
    """Minutes the desk lately took to answer one person (see the module's docstring)."""
    hours = policy.desk_hours
    zone = now.tzinfo
    waits = [
        (answered - opened).total_seconds() / 60
        for opened, answered in await handoffs.answer_times(session, since=now - timedelta(days=PACE_DAYS),
                                                            limit=PACE_KEPT)
        if hours is None or hours.open_at(opened.astimezone(zone))
    ]
    if len(waits) < PACE_LEAST:
        return policy.handoff_minutes_each
    return max(1, math.ceil(median(waits)))


async def expectation(
    session: AsyncSession, handoffs: Handoffs, policy: Policy, chat_id: int, now: datetime,
) -> Expectation:
    """What the person of ``chat_id`` (handed over) may expect at ``now`` (the ISP's zone)."""
    hours = policy.desk_hours
    line = [case.chat_id for case in await handoffs.unanswered(session)]
    ahead = line.index(chat_id) if chat_id in line else len(line)
    minutes = _rounded(await pace_minutes(session, handoffs, policy, now) * (ahead + 1))
    if hours is None:
        return Expectation(None, ahead, minutes)
    if hours.open_at(now):
        return Expectation(True, ahead, minutes)
    return Expectation(False, ahead, minutes, hours.next_opening(now))


def open_now(hours: WeeklyHours | None, now: datetime) -> bool:
    """Whether the desk answers now; a desk whose hours are not known is taken to."""
    return hours is None or hours.open_at(now)


def _rounded(minutes: int) -> int:
    """A wait as people say it: to the minute up to 10, then to 5 minutes, then to the quarter hour."""
    if minutes <= 10:
        return max(1, minutes)
    step = 5 if minutes <= 60 else 15
    return math.ceil(minutes / step) * step
