"""Mirror: the ``chat_messages`` outbox delivered into the sandbox ISP over real HTTP on loopback.

    .venv/bin/python -m bench.mirror_drain [--entries 100000] [--backlog 10000] [--outage-seconds 60]
                                           [--database URL]

Two figures, each on a fresh database and a freshly seeded sandbox served by uvicorn in a thread:
``mirror_throughput`` (``throughput``: a full outbox delivered by ``MirrorWorker`` with the settings
``ispbot mirror`` runs with) and ``mirror_drain_after_outage`` (``drain_after_outage``: a backlog
that built up while the ISP refused connections, drained once it is back). The outbox is counted
every 0.25 s (the figures' resolution). Bounded: each part gives up after ``--within`` seconds (the
throughput then says how many it delivered, with ``"complete": false``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from bot.isp import IspClient, IspSettings
from bot.mirror import MirrorWorker
from bot.mirror.backoff import CAP
from bot.mirror.calls import DEFAULT_PER_CALL
from bot.mirror.worker import DEFAULT_BATCH
from bot.sandbox import PRODUCTION_KEY, FixedClock, Sandbox
from bot.sandbox.server import SandboxServer
from bot.store import Origin, OutboxState, utcnow
from bot.store.models import OutboxRow
from sqlalchemy import func, select
from tests.store.dbtools import ScratchDatabase

from bench.report import dialect, emit, figure
from bench.scratch import insert_rows, scratch_database, until

WATCH = 0.25  # the outbox is counted this often: the resolution of the figures


def seeded_sandbox() -> Sandbox:
    return Sandbox.seeded(clock=FixedClock())


async def fill_outbox(database: ScratchDatabase, sandbox: Sandbox, entries: int) -> int:
    """``entries`` pending conversation messages, round-robin over the sandbox's tickets."""
    tickets = [(t["Numero"], t["CodigoCliente"]) for t in sandbox.store.rows("tickets")]
    now = utcnow()
    return await insert_rows(database, OutboxRow, (
        {"ticket_id": tickets[n % len(tickets)][0], "customer": tickets[n % len(tickets)][1], "record": now,
         "attendant": "ispbot", "content": f"Mensagem {n} da conversa: a internet caiu de novo hoje cedo.",
         "origin": (Origin.CUSTOMER if n % 2 else Origin.ATTENDANT).value, "state": OutboxState.PENDING.value,
         "attempts": 0, "next_attempt_at": now, "created_at": now}
        for n in range(entries)
    ))


async def pending(database: ScratchDatabase) -> int:
    async with database.session() as session:
        statement = select(func.count()).select_from(OutboxRow).where(OutboxRow.state != OutboxState.SENT.value)
        return int((await session.execute(statement)).scalar_one())


async def sent(database: ScratchDatabase) -> int:
    async with database.session() as session:
        statement = select(func.count()).select_from(OutboxRow).where(OutboxRow.state == OutboxState.SENT.value)
        return int((await session.execute(statement)).scalar_one())


@contextlib.asynccontextmanager
async def running_worker(
    database: ScratchDatabase, url: str, options: dict[str, int],
) -> AsyncIterator[MirrorWorker]:
    client = IspClient(IspSettings(base_url=url, key=PRODUCTION_KEY))
    worker = MirrorWorker(
        database, client, batch=options["batch"], per_call=options["per_call"], concurrency=options["concurrency"],
    )
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        yield worker
    finally:
        stop.set()
        worker.wake()
        await asyncio.wait_for(task, 60)
        await client.aclose()


async def until_empty(database: ScratchDatabase, within: float) -> None:
    async def empty() -> bool:
        return await pending(database) == 0

    await until(empty, every=WATCH, within=within)


async def throughput(url: str | None, entries: int, within: float, options: dict[str, int]) -> dict[str, Any]:
    """``entries`` entries already in the outbox, spread evenly over the seeded tickets, all delivered:
    entries per second from the worker's start to the last entry marked sent, and ``chat_messages``
    calls per entry."""
    sandbox = seeded_sandbox()
    async with scratch_database(url) as database:
        await fill_outbox(database, sandbox, entries)
        with SandboxServer(sandbox) as server:
            started = time.perf_counter()
            complete = True
            async with running_worker(database, server.url, options):
                try:
                    await until_empty(database, within)
                except TimeoutError:  # say how far it got rather than nothing
                    complete = False
            elapsed = time.perf_counter() - started
            delivered = await sent(database)
    calls = sandbox.call_count("chat_messages")
    return figure(
        "mirror_throughput", database=dialect(url), worker=options, entries=entries,
        tickets=len(sandbox.store.rows("tickets")), complete=complete, delivered=delivered,
        recorded_by_the_isp=len(sandbox.store.rows("chat_messages")),
        seconds=round(elapsed, 2), entries_per_second=round(delivered / elapsed, 1),
        chat_messages_calls=calls, calls_per_entry=round(calls / entries, 4),
    )


async def drain_after_outage(
    url: str | None, backlog: int, outage: float, within: float, options: dict[str, int],
) -> dict[str, Any]:
    """The sandbox stops listening (connections refused), ``backlog`` entries are in the outbox and
    the worker runs against the dead ISP for ``outage`` seconds, backing off; then the ISP comes back.
    ``drain_seconds`` is from the ISP's return to an empty backlog; it is the sum of
    ``backoff_wait_seconds`` (until the first entry is accepted: the tickets' retry times come due)
    and ``delivery_seconds`` (from then to the last)."""
    sandbox = seeded_sandbox()
    async with scratch_database(url) as database:
        await fill_outbox(database, sandbox, backlog)
        server = SandboxServer(sandbox)  # not started: the ISP is down from the beginning
        try:
            async with running_worker(database, server.url, options):
                await asyncio.sleep(outage)
                server.come_back()
                back = time.perf_counter()

                async def delivering() -> bool:
                    return await sent(database) > 0

                await until(delivering, every=WATCH, within=within)
                first = time.perf_counter()
                await until_empty(database, within)
                empty = time.perf_counter()
            delivered = await sent(database)
        finally:
            server.stop()
    return figure(
        "mirror_drain_after_outage", database=dialect(url), worker=options, backlog=backlog, outage_seconds=outage,
        delivered=delivered,
        drain_seconds=round(empty - back, 2), backoff_wait_seconds=round(first - back, 2),
        delivery_seconds=round(empty - first, 2),
        entries_per_second_once_delivering=round(delivered / (empty - first), 1) if empty > first else None,
        retry_cap_seconds=CAP.total_seconds(),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000, help="entries delivered for the throughput")
    parser.add_argument("--backlog", type=int, default=10_000, help="entries waiting through the outage")
    parser.add_argument("--outage-seconds", type=float, default=60.0)
    parser.add_argument("--database", default=None, help="default: a SQLite file in a temporary folder")
    parser.add_argument("--within", type=float, default=900.0, help="give up on a part after this many seconds")
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="entries the worker claims per round")
    parser.add_argument("--per-call", type=int, default=DEFAULT_PER_CALL, help="entries per chat_messages call")
    parser.add_argument("--concurrency", type=int, default=2, help="tickets delivered at once")
    args = parser.parse_args()
    options = {"batch": args.batch, "per_call": args.per_call, "concurrency": args.concurrency}
    emit(asyncio.run(throughput(args.database, args.entries, args.within, options)))
    emit(asyncio.run(drain_after_outage(args.database, args.backlog, args.outage_seconds, args.within, options)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
