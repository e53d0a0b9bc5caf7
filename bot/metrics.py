"""The bot's Prometheus metrics, in one registry that ``GET /metrics`` serves.

Names follow Prometheus conventions (``_total`` counters, ``_seconds`` histograms). Labels hold
closed vocabularies only (an event kind, an outcome), never a chat id or a person's text.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from bot.isp import IspClient
from bot.isp.resilience import CircuitState

REGISTRY = CollectorRegistry(auto_describe=True)

UPDATES = Counter(
    "ispbot_updates_total", "Telegram updates processed, by kind of event and outcome",
    ["kind", "outcome"], registry=REGISTRY,
)
UPDATE_SECONDS = Histogram(
    "ispbot_update_seconds", "Time from starting an update to its answer being queued for Telegram",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30), registry=REGISTRY,
)
INBOX_RECEIVED = Counter(
    "ispbot_inbox_received_total", "Updates received from Telegram, by mode and whether they were new",
    ["mode", "result"], registry=REGISTRY,
)
INBOX_DROPPED = Counter(
    "ispbot_inbox_dropped_total",
    "Updates set aside unanswered because their chat already had ISPBOT_CHAT_BACKLOG waiting", registry=REGISTRY,
)
TELEGRAM_CALLS = Counter(
    "ispbot_telegram_calls_total", "Bot API calls made by the sender: ok, or the error's name (RetryAfter, ...)",
    ["outcome"], registry=REGISTRY,
)
WHATSAPP_ERRORS = Counter(
    "ispbot_whatsapp_errors_total", "WhatsApp refusals by meaning (throttled, pair, token, window, transient, refused)",
    ["meaning"], registry=REGISTRY,
)
WHATSAPP_HELD = Counter(
    "ispbot_whatsapp_held_total",
    "WhatsApp messages held (dead letters): outside the 24-hour window with no template for their kind of notice",
    ["kind"], registry=REGISTRY,
)
WHATSAPP_STATUSES = Counter(
    "ispbot_whatsapp_statuses_total", "Delivery statuses WhatsApp reported", ["status"], registry=REGISTRY,
)
CHATS_IN_FLIGHT = Gauge("ispbot_chats_in_flight", "Chats whose updates are being processed now", registry=REGISTRY)

MIRROR_OUTBOX = Gauge(
    "ispbot_mirror_outbox_entries", "Entries of the chat_messages outbox by state (pending, sent, dead)",
    ["state"], registry=REGISTRY,
)
MIRROR_LAG = Gauge(
    "ispbot_mirror_lag_seconds", "Age of the oldest outbox entry not yet delivered to the ISP (0 when none waits)",
    registry=REGISTRY,
)
MIRROR_DELIVERIES = Counter(
    "ispbot_mirror_deliveries_total",
    "Outbox entries after a delivery try: sent, retry (the ISP was down or refused for now) or dead",
    ["outcome"], registry=REGISTRY,
)

STEP_SECONDS = Histogram(
    "ispbot_step_seconds",
    "Time of a conversation turn (the engine's step, its database work and ISP calls), "
    "by the flow the chat is in after it",
    ["flow"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30), registry=REGISTRY,
)
ISP_CALLS = Counter(
    "ispbot_isp_calls_total",
    "Operations called on the ISP web service: ok, or the error's name "
    "(IspTimeout, InvalidKeyError, CircuitOpenError, ...)",
    ["operation", "outcome"], registry=REGISTRY,
)
ISP_CALL_SECONDS = Histogram(
    "ispbot_isp_call_seconds", "Time of one ISP operation, its retries included, by operation",
    ["operation"], buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60), registry=REGISTRY,
)
ISP_CIRCUIT = Gauge(
    "ispbot_isp_circuit_state",
    "The ISP circuit breaker: 1 for its current state (closed; open: calls fail fast; half_open: one trial call)",
    ["state"], registry=REGISTRY,
)
LINK_LOCKS = Counter(
    "ispbot_link_locks_total",
    "Linking locked after too many failed proofs: of one chat (chat), or of one person from all chats "
    "together (tax_id, login)",
    ["scope"], registry=REGISTRY,
)
HANDOFFS_OPEN = Gauge(
    "ispbot_handoffs_open", "Conversations handed to the staff and not handed back yet", registry=REGISTRY,
)
DESK_JOBS = Gauge(
    "ispbot_desk_jobs", "Calls to the staff desk by state (pending, done, dead)", ["state"], registry=REGISTRY,
)
CONTACT_DEADLINES = Gauge(
    "ispbot_contact_deadlines",
    "Complaints, requests and contested charges not answered yet: all of them (running), those within "
    "ISPBOT_DEADLINE_WARN_HOURS of their end (closing) and those past it (overdue)",
    ["state"], registry=REGISTRY,
)

CONTENT_TYPE = CONTENT_TYPE_LATEST


@dataclass
class IspCallTally:
    """ISP operations called while handling one update (for its log line)."""

    calls: int = 0


# The tally of the update being handled in this task; tasks started during it share it (a coalesced
# read counts once, for the update that made it).
_tally: ContextVar[IspCallTally | None] = ContextVar("isp_call_tally", default=None)


def count_isp_calls() -> IspCallTally:
    """Start counting the ISP calls made from here on in this task (and the tasks it starts)."""
    tally = IspCallTally()
    _tally.set(tally)
    return tally


def isp_call_observed(operation: str, outcome: str, seconds: float | None) -> None:
    """``IspClient.observer``: one operation ended (``seconds`` is None when no request was sent)."""
    ISP_CALLS.labels(operation, outcome).inc()
    if seconds is None:
        return
    ISP_CALL_SECONDS.labels(operation).observe(seconds)
    tally = _tally.get()
    if tally is not None:
        tally.calls += 1


def watch_isp(client: IspClient) -> None:
    """Count ``client``'s calls and show its circuit breaker's state (read at each scrape)."""
    client.observer = isp_call_observed
    breaker = client.transport.breaker

    def is_in(state: CircuitState) -> Callable[[], float]:
        return lambda: float(breaker.state is state)

    for state in CircuitState:
        ISP_CIRCUIT.labels(state.value).set_function(is_in(state))


def exposition() -> bytes:
    return generate_latest(REGISTRY)
