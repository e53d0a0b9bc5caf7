"""Benchmark 1, overhead: the whole bot against bare echo bots, each polling the same fake Bot API
(a process of its own) that holds the same burst of updates, in the same run.

    python -m bench.overhead [--updates 5000] [--postgresql URL] [--only fast|steady|realistic] [--rounds N]

Three settings: ``fast`` (the Bot API and the sandbox ISP answer at once, all updates waiting at the
start), ``steady`` (the updates arrive steadily at half the sequential echo bot's rate measured in
``fast``, or ``--steady-rate``; the whole bot only, for its latency) and ``realistic`` (the Bot API
answers each call after 20 ms, the sandbox ISP after 50 ms). ``contenders`` says who runs, each in its
own process; ``measure`` which figures each prints (one JSON line per contender and setting); then a
line per setting with the ratios, and the whole bot's machine bound against aiogram's rate (below 1:
out of this machine's reach). ``--rounds`` runs them again, every other round in reverse order (a
machine slowing over a run would weigh on whoever runs last), then prints each ratio's median. Every
run is bounded (``--within`` seconds per contender) and talks to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any

from bot.runtime.processor import DEFAULT_CONCURRENCY
from tests.telegram.fake_bot_api import DEFAULT_TOKEN as TOKEN

from bench.report import emit, figure


@dataclass(frozen=True)
class Setting:
    api_latency: float  # seconds before each Bot API answer
    isp_latency: float  # seconds before each sandbox ISP answer
    steady: bool = False  # updates arrive at a steady rate instead of all at once; the whole bot only


SETTINGS = {
    "fast": Setting(0.0, 0.0), "steady": Setting(0.0, 0.0, steady=True), "realistic": Setting(0.020, 0.050),
}
#: Whom the whole bot's rate is set against in the ratio line: the echo bots, then the stateful peers.
PEERS = ("ptb_echo", "aiogram_echo", "aiogram_redis", "aiogram_redis_postgresql")
FULL_BOT_SENDS_PER_UPDATE = 1  # /ajuda from a chat not linked yet: the help and how to link, in one message


@dataclass(frozen=True)
class Contender:
    name: str
    command: list[str]
    sends_per_update: int = 1
    whole_bot: bool = False  # reports its own latency per update (an echo bot does not)


def contenders(postgresql: str | None, isp_latency: float, concurrency: int) -> list[Contender]:
    """python-telegram-bot's echo bot, updates one after another and with ``concurrent_updates(32)``;
    aiogram's echo bot (when aiogram is installed: ``pip install -e '.[bench]'``); a typical stateful
    aiogram bot (FSM in Redis, a Jinja2 reply: ``bench/stateful_bots.py``) when Redis answers on
    127.0.0.1:6379, and with PostgreSQL the same plus one insert per update; the whole bot on SQLite
    and, with ``--postgresql`` (or ISPBOT_TEST_DATABASE_URL), on PostgreSQL."""
    python = [sys.executable, "-m"]
    echo = [*python, "bench.echo_bots"]
    full = [*python, "bench.full_bot", "--isp-latency", str(isp_latency), "--concurrency", str(concurrency)]
    chosen = [Contender("ptb_echo", [*echo, "ptb"]), Contender("ptb_echo_concurrent", [*echo, "ptb-concurrent"])]
    if find_spec("aiogram") is not None:
        chosen.append(Contender("aiogram_echo", [*echo, "aiogram"]))
    if (missing := _stateful_peer_missing()) is None:
        stateful = [*python, "bench.stateful_bots"]
        chosen.append(Contender("aiogram_redis", [*stateful, "redis"]))
        if postgresql:
            chosen.append(Contender("aiogram_redis_postgresql",
                                    [*stateful, "redis-postgresql", "--database", postgresql]))
    else:
        print(f"overhead: the stateful aiogram peers are skipped: {missing}", file=sys.stderr)
    chosen.append(Contender("ispbot_sqlite", full, FULL_BOT_SENDS_PER_UPDATE, whole_bot=True))
    if postgresql:
        chosen.append(Contender(
            "ispbot_postgresql", [*full, "--database", postgresql], FULL_BOT_SENDS_PER_UPDATE, whole_bot=True,
        ))
    return chosen


def _stateful_peer_missing() -> str | None:
    """Why the stateful aiogram peers cannot run here, or None."""
    if find_spec("aiogram") is None or find_spec("redis") is None:
        return "aiogram and redis are not installed (pip install -e '.[bench]')"
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            if not connection.recv(16).startswith(b"+PONG"):
                return "what answers on 127.0.0.1:6379 is not Redis"
    except OSError as exc:
        return f"no Redis on 127.0.0.1:6379 ({exc.strerror or exc}); start one with redis-server"
    return None


@contextlib.contextmanager
def process(command: list[str], **options: Any) -> Iterator[subprocess.Popen[str]]:
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, **options)  # noqa: S603
    try:
        yield child
    finally:
        if child.stdin is not None:
            child.stdin.close()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def measure(
    contender: Contender, updates: int, chats: int, api_latency: float, within: float, *, rate: float | None = None,
) -> dict[str, object]:
    """Updates per second from the first ``getUpdates`` to the last answer the server received, peak
    memory, what a person waits end to end (``answer_p50_ms``, ``answer_p99_ms``: from the update being
    offered to its last answer reaching the server; in ``fast`` that is mostly the wait behind the
    burst), and for the whole bot the 99th percentile of its own time per update. CPU per update is
    given three times: the contender's own, the fake Bot API's and the whole machine's (PostgreSQL's
    server and this driver included); the last gives ``machine_bound_updates_per_second``, the most the
    machine's cores could carry at that cost, however many processes shared it."""
    server_command = [
        sys.executable, "-m", "bench.fake_telegram", "--updates", str(updates), "--chats", str(chats),
        "--expect-sends", str(updates * contender.sends_per_update), "--latency", str(api_latency),
        "--within", str(within), *(["--rate", str(rate)] if rate else []),
    ]
    with process(server_command, stdin=subprocess.PIPE) as server:
        assert server.stdout is not None
        port = json.loads(server.stdout.readline())["port"]
        api = f"http://127.0.0.1:{port}"
        with tempfile.TemporaryFile("w+") as errors, process(
            [*contender.command, "--api", api, "--token", TOKEN], stderr=errors,
        ) as bot:
            seen = _outcome(server, bot)
            out, usage = _stop(bot)
            if not seen["complete"]:  # say why, from the end of what the contender said
                errors.seek(0)
                print(f"{contender.name} did not finish:", *errors.readlines()[-15:], sep="\n", file=sys.stderr)
    elapsed = seen["last_send"] - seen["first_poll"]
    result: dict[str, object] = {
        "contender": contender.name, "complete": seen["complete"],
        "updates_per_second": round(updates / elapsed, 1) if seen["complete"] and elapsed > 0 else None,
        "sends_per_second": round(seen["sends"] / elapsed, 1) if elapsed > 0 else None,
        **_cpu_figures(seen, updates),
        **{key: seen[key] for key in ("answer_p50_ms", "answer_p99_ms") if key in seen},
    }
    result["peak_rss_mb"] = round(usage.ru_maxrss / 1024, 1)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    if last.startswith("{"):
        result.update({k: v for k, v in json.loads(last).items() if k != "updates"})
    return result


def _cpu_figures(seen: dict[str, Any], updates: int) -> dict[str, float | None]:
    """CPU milliseconds per update: the contender's own, the fake Bot API's, the whole machine's; and
    the most updates a second the machine's cores could carry at that cost, whatever the latencies
    and however many processes shared the work."""
    if not seen["complete"]:
        return {"cpu_ms_per_update": None}
    machine = 1000 * seen["machine_cpu_seconds"] / updates
    return {
        "cpu_ms_per_update": round(1000 * seen["cpu_seconds"] / updates, 2),
        "server_cpu_ms_per_update": round(1000 * seen["server_cpu_seconds"] / updates, 2),
        "machine_cpu_ms_per_update": round(machine, 2),
        "machine_bound_updates_per_second": round(1000 * (os.cpu_count() or 1) / machine, 1) if machine else None,
    }


def _stop(bot: subprocess.Popen[str]) -> tuple[str, resource.struct_rusage]:
    """SIGTERM, what it printed, and its resource usage (peak memory), reaped here for ``wait4``."""
    assert bot.stdout is not None
    bot.send_signal(signal.SIGTERM)
    deadline = threading.Timer(60, bot.kill)  # a contender that does not stop is killed
    deadline.start()
    try:
        out = bot.stdout.read()
        _, status, usage = os.wait4(bot.pid, 0)
    finally:
        deadline.cancel()
    bot.returncode = os.waitstatus_to_exitcode(status)
    return out, usage


def _outcome(server: subprocess.Popen[str], bot: subprocess.Popen[str]) -> dict[str, Any]:
    """The server's closing line, with the CPU time spent over the burst (sampled from /proc
    meanwhile: CPU per update holds up on a busy machine where updates per second do not) by the
    contender, by the fake Bot API and by the whole machine (PostgreSQL's server included); early (as
    incomplete) if the contender died first."""
    assert server.stdout is not None
    samples: list[tuple[float, Cpu]] = []  # (monotonic time, CPU seconds so far)
    with selectors.DefaultSelector() as selector:
        selector.register(server.stdout, selectors.EVENT_READ)
        while not selector.select(timeout=0.02):
            if bot.poll() is not None:
                return {"first_poll": 0.0, "last_send": 0.0, "sends": 0, "complete": False, "died": True}
            samples.append((time.monotonic(), Cpu(_cpu_seconds(bot.pid), _cpu_seconds(server.pid), _machine_busy())))
    line: dict[str, Any] = json.loads(server.stdout.readline())
    start, end = _cpu_at(samples, line["first_poll"]), _cpu_at(samples, line["last_send"])
    line["cpu_seconds"] = end.contender - start.contender
    line["server_cpu_seconds"] = end.server - start.server
    line["machine_cpu_seconds"] = end.machine - start.machine
    return line


@dataclass(frozen=True)
class Cpu:
    contender: float
    server: float  # the fake Bot API's process
    machine: float  # every core's busy time


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _machine_busy() -> float:
    """Seconds all cores spent running something since boot: user, nice, system, irq and softirq
    time; not idle, waiting for disks, or stolen by the hypervisor (other machines' work)."""
    with open("/proc/stat", encoding="ascii") as stat:
        user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in stat.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def _cpu_at(samples: list[tuple[float, Cpu]], when: float) -> Cpu:
    """The CPU times of the last sample taken before ``when`` (monotonic clocks are system-wide)."""
    before = [cpu for at, cpu in samples if at <= when]
    return before[-1] if before else Cpu(0.0, 0.0, 0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=5000)
    parser.add_argument("--chats", type=int, default=500)
    parser.add_argument("--postgresql", default=os.environ.get("ISPBOT_TEST_DATABASE_URL"))
    parser.add_argument("--only", choices=tuple(SETTINGS), default=None)
    parser.add_argument("--contenders", default="", help="comma-separated names to run (default: all)")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY,
                        help="the whole bot's ISPBOT_CONCURRENCY")
    parser.add_argument("--within", type=float, default=240.0, help="seconds at most per contender")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the contenders this many times, every other round in reverse order; with "
                             "more than one, the median of each ratio is printed last")
    parser.add_argument("--steady-rate", type=float, default=100.0,
                        help="updates a second in the steady setting when the echo bot was not measured first")
    args = parser.parse_args()
    wanted = set(filter(None, args.contenders.split(",")))
    target_rate = args.steady_rate
    for name, setting in SETTINGS.items():
        if args.only not in (None, name):
            continue
        rate = target_rate if setting.steady else None
        chosen = [
            contender for contender in contenders(args.postgresql, setting.isp_latency, args.concurrency)
            if not ((wanted and contender.name not in wanted) or (setting.steady and not contender.whole_bot))
        ]
        rounds: list[dict[str, float]] = []
        for number in range(args.rounds):
            # Every other round in the reverse order: a machine that slows down (or speeds up) over a
            # run then weighs on every contender alike.
            rates: dict[str, float] = {}
            bounds: dict[str, float] = {}  # the most the machine's cores could carry at each one's cost
            for contender in chosen if number % 2 == 0 else chosen[::-1]:
                result = measure(contender, args.updates, args.chats, setting.api_latency, args.within, rate=rate)
                if isinstance(measured := result.get("updates_per_second"), float):
                    rates[contender.name] = measured
                if isinstance(bound := result.get("machine_bound_updates_per_second"), float):
                    bounds[contender.name] = bound
                emit(figure("overhead", setting=name, updates=args.updates, chats=args.chats,
                            api_latency_ms=setting.api_latency * 1000, isp_latency_ms=setting.isp_latency * 1000,
                            **({"round": number + 1} if args.rounds > 1 else {}),
                            **({"offered_updates_per_second": rate} if rate else {}), **result))
            if name == "fast" and "ptb_echo" in rates and number == 0:
                target_rate = round(rates["ptb_echo"] / 2, 1)  # the target: half the echo bot's rate
            if not setting.steady:
                ratios = _ratios(rates, bounds)
                rounds.append(ratios)
                emit(figure("overhead_ratios", setting=name, **({"round": number + 1} if args.rounds > 1 else {}),
                            **ratios))
        if len(rounds) > 1:
            emit(figure("overhead_ratios_median", setting=name, rounds=len(rounds), **{
                key: round(statistics.median(each[key] for each in rounds if key in each), 2)
                for key in rounds[0]
            }))
    return 0


def _ratios(rates: dict[str, float], bounds: dict[str, float]) -> dict[str, float]:
    return {
        f"{bot}_vs_{echo}": round(rates[bot] / rates[echo], 2)
        for bot in ("ispbot_sqlite", "ispbot_postgresql") for echo in PEERS
        if bot in rates and echo in rates
    } | {
        # Below 1, no number of bot processes on this machine could reach the echo bot's rate.
        f"{bot}_machine_bound_vs_aiogram_echo": round(bounds[bot] / rates["aiogram_echo"], 2)
        for bot in ("ispbot_sqlite", "ispbot_postgresql") if bot in bounds and "aiogram_echo" in rates
    }


if __name__ == "__main__":
    sys.exit(main())
