"""The operations kit (ops/) reads the metrics the bot really serves: every `ispbot_*` name in the
alert rules and the Grafana dashboard is one bot/metrics.py exposes (with the suffixes Prometheus
gives counters and histograms), the dashboard shows every metric, and each rule is complete.
No promtool is on the package index, so the rules are checked here."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from bot.metrics import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
_METRIC = re.compile(r"\bispbot_[a-z0-9_]+")
_SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}


def exposed() -> dict[str, str]:
    """Every series name ``GET /metrics`` can show, to the metric family it belongs to."""
    names = {}
    for family in REGISTRY.collect():
        for suffix in _SUFFIXES[family.type]:
            names[family.name + suffix] = family.name
    return names


def rules() -> list[dict[str, Any]]:
    document = yaml.safe_load((ROOT / "ops" / "prometheus-rules.yaml").read_text(encoding="utf-8"))
    return [rule for group in document["groups"] for rule in group["rules"]]


def dashboard_queries() -> list[str]:
    dashboard = json.loads((ROOT / "ops" / "grafana-dashboard.json").read_text(encoding="utf-8"))
    return [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]


def balanced(expr: str) -> bool:
    depth = 0
    for char in expr:
        depth += {"(": 1, ")": -1, "{": 1, "}": -1, "[": 1, "]": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def test_the_metric_names_are_read_from_the_registry() -> None:
    names = exposed()
    assert {"ispbot_updates_total", "ispbot_update_seconds_bucket", "ispbot_mirror_lag_seconds"} <= set(names)
    assert "ispbot_updates" not in names  # a counter is only ever served with its _total


def test_every_alert_rule_is_complete_and_uses_metrics_the_bot_serves() -> None:
    names = exposed()
    for rule in rules():
        assert set(rule) == {"alert", "expr", "for", "labels", "annotations"}, rule.get("alert")
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
        assert balanced(rule["expr"]), rule["alert"]
        used = _METRIC.findall(rule["expr"])
        assert used and set(used) <= set(names), (rule["alert"], sorted(set(used) - set(names)))


def test_the_rules_watch_what_an_operator_must_hear_about() -> None:
    watched = {name for rule in rules() for name in _METRIC.findall(rule["expr"])}
    assert {
        "ispbot_isp_circuit_state",  # the ISP's circuit is open
        "ispbot_mirror_lag_seconds",  # the mirror lags
        "ispbot_inbox_received_total",  # the inbox grows (with the updates processed)
        "ispbot_updates_total",  # the error rate of updates
        "ispbot_mirror_outbox_entries",  # dead mirror entries
    } <= watched
    assert len({rule["alert"] for rule in rules()}) == len(rules())


def test_the_dashboard_shows_every_metric_and_only_metrics_the_bot_serves() -> None:
    names = exposed()
    queries = dashboard_queries()
    used = {name for query in queries for name in _METRIC.findall(query)}
    assert all(balanced(query) for query in queries)
    assert used <= set(names), sorted(used - set(names))
    assert {names[name] for name in used} == set(names.values())
