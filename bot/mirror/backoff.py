"""How long a failed delivery waits before its next try: exponential with jitter, capped.

tenacity's ``wait_exponential_jitter`` (the policy the ISP client's own retries use): the n-th
failed try waits ``base * 2**(n-1)`` plus up to ``jitter`` seconds, at most ``cap``. The lower
bound doubles each time, so waits never shrink while the ISP stays down, and the jitter spreads
the retries of many tickets (and several bot processes) after an outage.
"""

from __future__ import annotations

from datetime import timedelta

from tenacity import RetryCallState, Retrying, wait_exponential_jitter

BASE_SECONDS = 2.0
JITTER_SECONDS = 1.0
CAP = timedelta(minutes=5)


def retry_delay(
    failures: int, *, base: float = BASE_SECONDS, jitter: float = JITTER_SECONDS, cap: timedelta = CAP,
) -> timedelta:
    """The wait after the ``failures``-th failed try in a row (1 for the first)."""
    wait = wait_exponential_jitter(multiplier=base, max=cap.total_seconds(), jitter=jitter)
    state = RetryCallState(Retrying(), None, (), {})
    state.attempt_number = max(1, failures)
    return timedelta(seconds=wait(state))
