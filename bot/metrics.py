"""The bot's Prometheus metrics, in one registry that ``GET /metrics`` serves.

Names follow Prometheus conventions (``_total`` counters, ``_seconds`` histograms). Labels hold
closed vocabularies only (an event kind, an outcome), never a chat id or a person's text.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

REGISTRY = CollectorRegistry(auto_describe=True)

UPDATES = Counter(
    "ispbot_updates_total", "Telegram updates processed, by kind of event and outcome",
    ["kind", "outcome"], registry=REGISTRY,
)
UPDATE_SECONDS = Histogram(
    "ispbot_update_seconds", "Time from claiming an update to its answer being queued for Telegram",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30), registry=REGISTRY,
)
INBOX_RECEIVED = Counter(
    "ispbot_inbox_received_total", "Updates received from Telegram, by mode and whether they were new",
    ["mode", "result"], registry=REGISTRY,
)
TELEGRAM_CALLS = Counter(
    "ispbot_telegram_calls_total", "Bot API calls made by the sender: ok, or the error's name (RetryAfter, ...)",
    ["outcome"], registry=REGISTRY,
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

CONTENT_TYPE = CONTENT_TYPE_LATEST


def exposition() -> bytes:
    return generate_latest(REGISTRY)
