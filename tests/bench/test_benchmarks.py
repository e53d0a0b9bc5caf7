"""Each benchmark, at a tiny size, still runs from its command line and prints one JSON line per
figure with its figures and the machine and versions (never a timing asserted: only that the
benchmarks have not rotted). On SQLite: every benchmark reaches PostgreSQL by the same ``--database``
(``bench.scratch``), which the mirror's smoke test runs on PostgreSQL too; the bot's own storage is
the storage tests' to check on both. Each run is processes of its own for several seconds: running
every one twice cost the suite a minute (docs/development.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.store.dbtools import postgresql_url

ROOT = Path(__file__).resolve().parents[2]
ENVIRONMENT = {"machine", "processor", "cpus", "python", "versions"}
DATABASES = ["sqlite", *(["postgresql"] if postgresql_url() else [])]


def run(module: str, *options: str, database: str | None) -> list[dict[str, object]]:
    """The benchmark's lines; ``database`` None for one that picks its databases itself."""
    command = [sys.executable, "-m", f"bench.{module}", *options]
    if database == "postgresql":
        command += ["--database", str(postgresql_url())]
    done = subprocess.run(  # noqa: S603 - this project's modules, with options written here
        command, cwd=ROOT, capture_output=True, text=True, timeout=240, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]  # a bot failing its steps measures nothing
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    for line in lines:
        assert set(line) >= ENVIRONMENT, line
        assert database is None or line["database"] == database
        assert "sqlalchemy" in str(line["versions"])
    return lines


def test_outage_surge() -> None:
    [line] = run("outage_surge", "--subscribers", "20", "--seconds", "0", "--within", "120", database="sqlite")
    assert line["figure"] == "outage_surge"
    assert line["replied"] == line["told_the_outage"] == 20
    assert {"replies_per_second", "latency_p99_ms", "isp_calls_per_update", "isp_calls_by_operation"} <= set(line)
    # Everybody is on the failed NAS: the open events, that NAS's customers and their contracts (the
    # standing is said before the outage), read once for all.
    assert line["isp_calls_by_operation"] == {"FailOverEvents": 1, "ConsultaAutenticacao": 1, "ConsultaContratos": 1}


def test_telegram_surge() -> None:
    """Under Telegram's limits (the fake answers 429 past them), with and without paid broadcasts."""
    free, paid = run(
        "telegram_surge", "--subscribers", "12", "--seconds", "2", "--within", "120", database="sqlite",
    )
    assert [free["paid_broadcast"], paid["paid_broadcast"]] == [False, True]
    for line in (free, paid):
        assert line["figure"] == "telegram_surge"
        # Two messages each and a press for every other one: every message answered, every watcher told.
        assert line["updates"] == line["answered"] == 12 * 2 + 6
        assert line["watchers"] == line["notices_sent"] == 6
        assert line["latecomers"] == 6
        assert line["surge_sends"] >= line["updates"] / 2  # type: ignore[operator]
        assert line["bound_seconds"] > 0 and line["last_answer_seconds"] > 0  # type: ignore[operator]
        assert line["too_many_requests"] == sum(line["too_many_requests_by_limit"].values())  # type: ignore[union-attr]
        assert {"last_answer_vs_bound", "wait_p50_ms", "wait_p99_ms", "notice_seconds", "notice_bound_seconds",
                "latecomer_wait_p99_ms", "isp_calls_per_update", "isp_calls_by_operation"} <= set(line)
    assert paid["notice_bound_seconds"] < free["notice_bound_seconds"]  # type: ignore[operator]


def test_notice_round() -> None:
    """Every subscriber with a bill due is reminded once while others write, and all are answered."""
    [line] = run("notice_round", "--subscribers", "12", "--people", "3", "--within", "120", database="sqlite")
    assert line["figure"] == "notice_round"
    assert line["told"] == line["reminders"] == 12
    assert line["answers"] > 0 and line["bound_seconds"] > 0  # type: ignore[operator]
    assert line["too_many_requests"] == sum(line["too_many_requests_by_limit"].values())  # type: ignore[union-attr]
    # One listing of each kind for the 15 linked customers (one page), none per subscriber.
    assert line["isp_calls_by_operation"]["ConsultaDocumentosAbertos"] == 1  # type: ignore[index]
    assert {"round_seconds", "round_vs_bound", "made_seconds", "answer_p50_ms", "answer_p99_ms",
            "isp_calls_per_subscriber", "round_vs_shared_bound", "cpu_ms_per_notice",
            "load_average_before"} <= set(line)
    assert line["sent_in_round"] >= 12 and line["cpu_ms_per_notice"] > 0  # type: ignore[operator]


def test_whatsapp_surge() -> None:
    """Everybody answered once, under Meta's limits as the fake keeps them; the 130429s counted."""
    [line] = run("whatsapp_surge", "--subscribers", "15", "--rate", "80", "--connections", "4", "--within", "120",
                 database="sqlite")
    assert line["figure"] == "whatsapp_surge" and line["posts_refused"] == 0
    assert line["answered"] == line["outage_answers"] == 15
    assert line["errors_130429"] == line["errors"].get("130429", 0)  # type: ignore[union-attr]
    assert line["errors_131056"] == line["errors"].get("131056", 0)  # type: ignore[union-attr]
    assert {"last_answer_seconds", "throughput_bound_seconds", "ratio_to_bound", "first_answer_seconds",
            "intake_per_second"} <= set(line)


def test_whatsapp_intake() -> None:
    """The webhook's intake, one and several messages a post with Meta's repeats among them, beside
    Telegram's polling: every message kept once, and the ratios of the rates."""
    telegram, one, several, ratios = run(
        "whatsapp_intake", "--messages", "60", "--per-post", "6", "--connections", "4", "--within", "120",
        database="sqlite",
    )
    assert [telegram["channel"], one["channel"], several["channel"]] == ["telegram", "whatsapp", "whatsapp"]
    for line in (telegram, one, several):
        assert line["figure"] == "intake" and line["stored"] == 60 and line["messages_per_second"] > 0  # type: ignore[operator]
    assert (one["posts"], one["posts_again"], several["posts"], several["posts_again"]) == (66, 6, 11, 1)
    assert one["refused"] == several["refused"] == 0
    assert ratios["figure"] == "intake_ratios"
    assert {"whatsapp_1_per_post_vs_telegram", "whatsapp_6_per_post_vs_telegram"} <= set(ratios)


@pytest.mark.parametrize("database", DATABASES)
def test_mirror(database: str) -> None:
    throughput, drain = run(
        "mirror_drain", "--entries", "150", "--backlog", "30", "--outage-seconds", "0", "--within", "120",
        database=database,
    )
    assert throughput["figure"] == "mirror_throughput"
    assert throughput["delivered"] == throughput["recorded_by_the_isp"] == 150
    assert {"entries_per_second", "calls_per_entry"} <= set(throughput)
    assert drain["figure"] == "mirror_drain_after_outage"
    assert drain["delivered"] == 30
    assert {"drain_seconds", "backoff_wait_seconds", "delivery_seconds"} <= set(drain)


def test_memory() -> None:
    [line] = run("memory", "--chats", "300", "--conversations", "60", "--sample", "10", database="sqlite")
    assert line["figure"] == "memory"
    assert line["linked_chats"] == 300 and line["sample_answered"] == 10
    assert 0 < line["rss_idle_mib"] <= line["peak_rss_mib"]  # type: ignore[operator]
    assert {"rss_after_mib", "rss_growth_per_chat_kib"} <= set(line)


def test_overhead_steady_offers_updates_at_a_rate_to_the_whole_bot_only() -> None:
    [bot] = run(
        "overhead", "--updates", "30", "--chats", "6", "--only", "steady", "--steady-rate", "30",
        "--contenders", "ptb_echo,ispbot_sqlite", "--postgresql", "", database=None,
    )
    assert bot["contender"] == "ispbot_sqlite" and bot["setting"] == "steady" and bot["complete"] is True
    assert bot["offered_updates_per_second"] == 30.0
    # Offered over about a second, so it cannot have gone much faster than offered.
    assert bot["updates_per_second"] <= 45  # type: ignore[operator]
    assert 0 < bot["answer_p50_ms"] <= bot["answer_p99_ms"]  # type: ignore[operator]


def test_overhead_sets_the_whole_bot_against_a_stateful_aiogram_bot() -> None:
    """The fairer peer (FSM in Redis, a Jinja2 reply) answers the same burst; with `make bench`'s extra only."""
    pytest.importorskip("aiogram")
    pytest.importorskip("redis")
    lines = run(
        "overhead", "--updates", "30", "--chats", "6", "--only", "fast", "--contenders", "aiogram_redis,ispbot_sqlite",
        "--postgresql", "", database=None,
    )
    if len(lines) == 2:  # no Redis on this machine: the peer was skipped with a line on stderr
        pytest.skip("no Redis on 127.0.0.1:6379")
    peer, bot, ratios = lines
    assert [peer["contender"], bot["contender"]] == ["aiogram_redis", "ispbot_sqlite"]
    assert peer["complete"] is True and peer["sends_per_second"] == peer["updates_per_second"]
    assert "ispbot_sqlite_vs_aiogram_redis" in ratios


def test_long_messages() -> None:
    """A line per channel, kind of text and language, each reading at most ``READ_WORDS`` words of
    the 4,096 characters (the work bounded; its time is printed, not checked here)."""
    lines = run("long_messages", "--rounds", "1", database=None)
    assert {(line["channel"], line["kind"]) for line in lines} >= {
        ("telegram", "emoji"), ("whatsapp", "words"), ("whatsapp", "one_word"), ("telegram", "control"),
    }
    assert len(lines) == 2 * 5 * 3
    for line in lines:
        assert line["figure"] == "long_message" and line["characters"] == 4096
        assert 0 <= line["words_read"] <= 80  # type: ignore[operator]
        assert {"match_first_ms", "match_median_ms", "plainly_median_ms", "language_of_median_ms"} <= set(line)


def test_cli_help() -> None:
    """A line per command, the top-level help first, each with its median of the runs (not checked
    against the bound here: a loaded test machine is not the one the bound is for)."""
    lines = run("cli_help", "--runs", "1", database=None)
    assert [line["command"] for line in lines][:2] == ["", "run"]
    assert {"invite", "technicians", "doctor", "demo"} <= {line["command"] for line in lines}
    for line in lines:
        assert line["figure"] == "cli_help" and line["runs"] == 1
        assert 0 < line["fastest_ms"] <= line["median_ms"] <= line["slowest_ms"]  # type: ignore[operator]
        assert line["python_ms"] > 0 and line["bound_ms"] == 300  # type: ignore[operator]


def test_overhead_in_rounds() -> None:
    """The whole bot and python-telegram-bot's echo bot answer the same burst from the same fake
    Telegram (each in a process of its own), every other round in reverse order; a ratio line each
    round, then the medians."""
    lines = run(
        "overhead", "--updates", "40", "--chats", "8", "--only", "fast", "--contenders", "ptb_echo,ispbot_sqlite",
        "--rounds", "2", "--postgresql", "", database=None,
    )
    order = [(line["round"], line.get("contender", line["figure"])) for line in lines if "round" in line]
    assert order == [(1, "ptb_echo"), (1, "ispbot_sqlite"), (1, "overhead_ratios"),
                     (2, "ispbot_sqlite"), (2, "ptb_echo"), (2, "overhead_ratios")]
    echo, bot, first = lines[:3]
    assert "ispbot_sqlite_vs_ptb_echo" in first
    for line in (echo, bot):
        assert line["figure"] == "overhead" and line["complete"] is True, line
        assert {"updates_per_second", "cpu_ms_per_update", "machine_cpu_ms_per_update", "peak_rss_mb"} <= set(line)
        assert line["machine_cpu_ms_per_update"] >= 0 and line["server_cpu_ms_per_update"] >= 0  # type: ignore[operator]
    # One message for each /ajuda of a chat not linked yet: the help and how to link, joined.
    assert abs(bot["sends_per_second"] - bot["updates_per_second"]) < 0.5  # type: ignore[operator]
    assert 0 < bot["update_p50_ms"] <= bot["update_p99_ms"]  # type: ignore[operator]
    # What a person waited, end to end: the median no longer than the slowest.
    assert 0 < bot["answer_p50_ms"] <= bot["answer_p99_ms"]  # type: ignore[operator]
    each = [line["ispbot_sqlite_vs_ptb_echo"] for line in lines if line["figure"] == "overhead_ratios"]
    median = lines[-1]
    assert median["figure"] == "overhead_ratios_median" and median["rounds"] == 2
    assert median["ispbot_sqlite_vs_ptb_echo"] == round(sum(each) / 2, 2)  # type: ignore[arg-type]


def test_answer_reading() -> None:
    lines = run("answer_reading", "--rounds", "1", database=None)
    tables = [line for line in lines if line["figure"] == "answer_reading"]
    assert {(line["language"], line["kind"]) for line in tables} >= {("pt_BR", "period"), ("es", "choice")}
    assert all(line["read_right"] <= line["answers"] and line["median_us"] > 0 for line in tables)
    long = [line for line in lines if line["figure"] == "answer_reading_long"]
    assert {line["text"] for line in long} == {"emoji", "words", "one_word", "digits", "control"}
    assert all(line["characters"] >= 4000 for line in long)


def test_receipt_reading() -> None:
    # Two images and the first two PDFs (the 51st and 52nd): the whole table is tests/receipts' to read.
    (line,) = run("receipt_reading", "--count", "52", "--first", "48", database=None)
    assert line["figure"] == "receipt_reading" and line["fields"]["amount"] >= 0.9
    assert line["cpu_pdf_ms_mean"] is not None and line["receipts"] >= 1


def test_acs_turn() -> None:
    lines = run("acs_turn", "--rounds", "1", "--timeout", "1.5", database=None)
    turns = {line["turn"]: line for line in lines if line["figure"] == "acs_turn"}
    assert set(turns) == {"signal", "wifi_password", "help"}
    assert (turns["signal"]["nbi_calls"], turns["wifi_password"]["nbi_calls"], turns["help"]["nbi_calls"]) == (3, 2, 0)
    slow = {line["turn"]: line for line in lines if line["figure"] == "acs_turn_slow"}
    assert set(slow) == {"signal", "wifi_password"} and all(line["said"] for line in slow.values())
