"""What a turn through the ISP's ACS costs, and how long a slow ACS can hold it.

    .venv/bin/python -m bench.acs_turn [--rounds 50] [--timeout 2] [--database URL]

One linked subscriber, the engine over the sandbox ISP and a scratch database, the fake GenieACS NBI
(``bot/sandbox/genieacs.py``) holding her Huawei ONU, all in this process. Three turns side by side
in each round: the fiber signal read fresh (the router read, a ``getParameterValues`` task, read
again), the Wi-Fi password applied (read, a ``setParameterValues`` task) and ``/ajuda``, the baseline.

Figures, per kind of turn (``acs_turn``): ``cpu_ms`` the process's CPU time per turn at the median
of ``--rounds`` (and at p90), ``cpu_ms_fake_nbi`` the part of it the fake NBI spent building its
answers (a real NBI spends it in its own process), ``nbi_calls`` per turn. Then the bound
(``acs_turn_slow``): every NBI answer delayed by ``SLOW`` of ``--timeout`` (``ISPBOT_ACS_TIMEOUT``),
so the turn's calls would wait ``unbounded_seconds`` in all with a timeout per call; ``turn_seconds``
is what the turn took, against ``timeout_seconds``, and ``said`` what the person was told.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox
from bot.sandbox.genieacs import FakeGenieAcs, tr098_device
from tests.flows.harness import TestChat, make_desk

from bench.report import dialect, emit, figure, median, percentile
from bench.scratch import scratch_database

PASSWORD = "Bench#2026-wifi"  # noqa: S105 - a fictitious Wi-Fi password the benchmark sets
SLOW = 0.6  # of the timeout: each NBI answer alone is in time, two are not


class CpuOf(httpx.AsyncBaseTransport):
    """The fake NBI, with the CPU time spent in it counted."""

    def __init__(self, inner: FakeGenieAcs) -> None:
        self.inner = inner
        self.cpu = 0.0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        started = time.process_time()
        try:
            return await self.inner.handle_async_request(request)
        finally:
            self.cpu += time.process_time() - started  # a delay sleeps: no CPU counted


async def _signal(chat: TestChat) -> Callable[[], Awaitable[None]]:
    await chat.tap("Meu roteador")
    return lambda: chat.tap("Sinal da fibra")


async def _wifi(chat: TestChat) -> Callable[[], Awaitable[None]]:
    await chat.command("wifi")
    await chat.tap("Senha do Wi-Fi")
    await chat.say(PASSWORD)
    return lambda: chat.say(PASSWORD)


async def _help(chat: TestChat) -> Callable[[], Awaitable[None]]:
    return lambda: chat.command("ajuda")


TURNS = {"signal": _signal, "wifi_password": _wifi, "help": _help}


async def measure(url: str | None, rounds: int, acs_timeout: float) -> list[dict[str, Any]]:
    clock = FixedClock()
    sandbox = Sandbox.seeded(clock=clock)
    serial = next(str(e["serial"]) for e in sandbox.store.rows("equipment") if e["customer_id"] == D.customer)
    nbi = FakeGenieAcs()
    nbi.add(tr098_device(serial, login=D.pppoe_login))
    counted = CpuOf(nbi)
    lines = []
    async with scratch_database(url) as database:
        desk = make_desk(sandbox, database, clock, acs=counted, acs_timeout=acs_timeout)
        try:
            chat = await desk.linked_chat()
            cpu: dict[str, list[float]] = {kind: [] for kind in TURNS}
            fake: dict[str, list[float]] = {kind: [] for kind in TURNS}
            calls: dict[str, list[int]] = {kind: [] for kind in TURNS}
            for _ in range(rounds + 1):  # the first round warms the caches and is not counted
                for kind, ready in TURNS.items():
                    turn = await ready(chat)
                    asked, fake_before, started = len(nbi.requests), counted.cpu, time.process_time()
                    await turn()
                    cpu[kind].append(time.process_time() - started)
                    fake[kind].append(counted.cpu - fake_before)
                    calls[kind].append(len(nbi.requests) - asked)
                    await chat.command("menu")
            for kind in TURNS:
                lines.append(figure(
                    "acs_turn", database=dialect(url), turn=kind, rounds=rounds,
                    cpu_ms=round(1000 * median(cpu[kind][1:]), 2),
                    cpu_ms_p90=round(1000 * percentile(cpu[kind][1:], 0.9), 2),
                    cpu_ms_fake_nbi=round(1000 * median(fake[kind][1:]), 2),
                    nbi_calls=median([float(c) for c in calls[kind][1:]]),
                ))
            nbi.delay = SLOW * acs_timeout
            for kind in ("signal", "wifi_password"):
                turn = await _ready_slowly(nbi, chat, kind)
                needed = median([float(c) for c in calls[kind][1:]])
                started = time.perf_counter()
                await turn()
                took = time.perf_counter() - started
                lines.append(figure(
                    "acs_turn_slow", database=dialect(url), turn=kind, timeout_seconds=acs_timeout,
                    answer_delay_seconds=round(nbi.delay, 2), unbounded_seconds=round(needed * nbi.delay, 2),
                    turn_seconds=round(took, 2), turn_vs_timeout=round(took / acs_timeout, 3),
                    said=chat.text.split("\n", 1)[0][:90],
                ))
                nbi.connect(next(iter(nbi.devices)))  # what was queued is taken: the next turn starts clean
                await chat.command("menu")
        finally:
            await desk.client.aclose()
    return lines


async def _ready_slowly(nbi: FakeGenieAcs, chat: TestChat, kind: str) -> Callable[[], Awaitable[None]]:
    """The turn's preceding steps taken at full speed, then the NBI slowed again for the turn itself."""
    delay, nbi.delay = nbi.delay, 0.0
    turn = await TURNS[kind](chat)
    nbi.delay = delay
    return turn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50, help="rounds of the three turns measured")
    parser.add_argument("--timeout", type=float, default=2.0, help="ISPBOT_ACS_TIMEOUT of the bot (more than 1)")
    parser.add_argument("--database", default=None, help="default: a SQLite file in a temporary folder")
    args = parser.parse_args()
    for line in asyncio.run(measure(args.database, args.rounds, args.timeout)):
        emit(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
