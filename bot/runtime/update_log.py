"""The one log line (and the metrics) of each update the processor finished.

Fields: ``update_id``, ``kind`` (the event: text, choice, contact, staff_text, ...), ``outcome``
(answered, ignored, skipped, taken, error), ``chat`` (``chat_ref``, never the id), ``flow`` and
``step`` where the chat stands after the turn, ``latency_ms`` from starting the update (claims come in
batches, so not from its claim) to its answer being queued, ``isp_calls`` made during the turn, and
``error`` (the exception's class) on a failure. Everything comes from what the processor already
holds: writing the line costs no query.
"""

from __future__ import annotations

import logging
import time

from bot import metrics
from bot.logs import chat_ref

log = logging.getLogger("bot.updates")


def update_done(
    update_id: int, kind: str, outcome: str, *, chat_id: int | None, started: float, tally: metrics.IspCallTally,
    position: tuple[str | None, str | None] | None = None, error: BaseException | None = None,
) -> None:
    """Count the update (``ispbot_updates_total``) and log its line. ``position`` (flow, step) is
    given for a turn of the conversation engine, which also times it (``ispbot_step_seconds``)."""
    seconds = time.perf_counter() - started
    metrics.UPDATES.labels(kind, outcome).inc()
    flow, step = position or (None, None)
    if position is not None and error is None:
        metrics.STEP_SECONDS.labels(flow or "none").observe(seconds)
    # An update set aside on purpose (one it cannot read) is a WARNING; a turn that failed, an ERROR.
    level = logging.WARNING if outcome == "skipped" else logging.ERROR if error is not None else logging.INFO
    if not log.isEnabledFor(level):
        return
    fields = {
        "update_id": update_id, "kind": kind, "outcome": outcome,
        "chat": chat_ref(chat_id) if chat_id is not None else None,
        "flow": flow, "step": step, "latency_ms": round(seconds * 1000, 1), "isp_calls": tally.calls,
    }
    if error is not None:
        fields["error"] = type(error).__name__
    log.log(level, "update handled", extra=fields)
