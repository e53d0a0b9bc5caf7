"""Two workers (two bot processes: separate connection pools on one PostgreSQL, or on one SQLite
file) delivering the same outbox at once: every entry reaches the ISP exactly once, each ticket's
in order."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bot.mirror import MirrorWorker
from bot.store import NewMessage, Origin, Outbox, OutboxState

from tests.flows.harness import Desk
from tests.mirror.conftest import WorkerFactory, mirrored, states

TICKETS = list(range(70001, 70031))
PER_TICKET = 6


async def drain(worker: MirrorWorker, desk: Desk) -> int:
    sent = 0
    while OutboxState.PENDING in await states(desk.database):
        sent += await worker.deliver_once()
        await asyncio.sleep(0)
    return sent


async def test_two_workers_deliver_each_entry_exactly_once_in_order(desk: Desk, make_worker: WorkerFactory) -> None:
    async with desk.database.transaction() as session:
        await Outbox().enqueue(session, [
            NewMessage(ticket_id=ticket, customer=1001, record=datetime.now(UTC), attendant="ispbot",
                       content=f"{ticket}: mensagem {n}", origin=Origin.CUSTOMER if n % 2 else Origin.SYSTEM)
            for n in range(PER_TICKET) for ticket in TICKETS
        ])
    desk.sandbox.faults.add_latency(0.002, "chat_messages")  # calls in flight overlap the other's claims
    other_process = desk.database.reopen()
    try:
        first = make_worker(desk.database, batch=8, per_call=2)
        second = make_worker(other_process, batch=8, per_call=2)
        async with asyncio.timeout(15):
            sent = await asyncio.gather(drain(first, desk), drain(second, desk))
    finally:
        await other_process.dispose()

    assert sum(sent) == len(TICKETS) * PER_TICKET  # each entry marked sent once
    assert all(sent), sent  # both took part
    for ticket in TICKETS:
        contents = [content for _, content in mirrored(desk.sandbox, ticket)]
        assert contents == [f"{ticket}: mensagem {n}" for n in range(PER_TICKET)]  # once each, in order
