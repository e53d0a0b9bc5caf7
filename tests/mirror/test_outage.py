"""The ISP down in the middle of a conversation: the mirror waits longer and longer (exponential
backoff with jitter, capped at 5 minutes), drops nothing, and once the ISP is back every message is
recorded once, in order. The worker's loop stops promptly and wakes when told. Fake time only."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import pytest
from bot.mirror.backoff import CAP
from bot.sandbox import DEMO_IDENTITIES
from bot.store import NewMessage, Origin, Outbox, OutboxState

from tests.flows.harness import Desk
from tests.mirror.conftest import FakeTime, WorkerFactory, mirrored, outbox_rows, states, until
from tests.mirror.test_delivery import open_ticket

MARIA = DEMO_IDENTITIES.customer


async def no_pending(desk: Desk) -> bool:
    return OutboxState.PENDING not in await states(desk.database)


async def test_an_outage_mid_conversation_delays_then_delivers_each_message_once_in_order(
    desk: Desk, make_worker: WorkerFactory, fake_time: FakeTime,
) -> None:
    chat = await desk.linked_chat(MARIA)
    ticket = await open_ticket(chat)
    worker = make_worker(desk.database)
    assert await worker.deliver_once() > 0
    delivered_before = len(mirrored(desk.sandbox, ticket))

    desk.sandbox.faults.go_down()  # every operation answers 503
    await chat.say("caiu de novo agora")  # the bot cannot ask the ISP; the turn is still mirrored
    calls_before = desk.sandbox.call_count("chat_messages")
    waits: list[float] = []
    for _ in range(10):
        assert await worker.deliver_once() == 0
        head = (await outbox_rows(desk.database, ticket))[delivered_before]
        assert head.state == OutboxState.PENDING.value and head.last_error
        waits.append((head.next_attempt_at - fake_time.now).total_seconds())
        assert await worker.deliver_once() == 0  # not due yet: nothing is tried
        fake_time.now = head.next_attempt_at
    assert waits == sorted(waits), waits  # never shorter while the ISP stays down
    assert waits[0] <= 3
    assert waits[-1] == CAP.total_seconds() and max(waits) <= CAP.total_seconds()
    # One try per wait at most (the client's circuit breaker spares the ISP some of them).
    assert desk.sandbox.call_count("chat_messages") - calls_before <= len(waits)
    assert mirrored(desk.sandbox, ticket)[delivered_before:] == []

    desk.sandbox.faults.come_back()
    await chat.say("voltou, obrigada")
    async with asyncio.timeout(10):
        while OutboxState.PENDING in await states(desk.database):
            await worker.deliver_once()
            fake_time.advance(CAP.total_seconds())
    rows = await outbox_rows(desk.database, ticket)
    recorded = mirrored(desk.sandbox, ticket)
    assert recorded == [(row.origin, row.content) for row in rows]  # all of them, once, in order
    said = [content for origin, content in recorded if origin == "C"]
    assert said[-2:] == ["caiu de novo agora", "voltou, obrigada"]


async def test_the_loop_keeps_trying_through_an_outage_and_stops_when_told(
    desk: Desk, make_worker: WorkerFactory, fake_time: FakeTime,
) -> None:
    async with desk.database.transaction() as session:
        await Outbox().enqueue(session, [
            NewMessage(ticket_id=70001, customer=MARIA, record=datetime.now(UTC), attendant="ispbot",
                       content=f"mensagem {n}", origin=Origin.CUSTOMER)
            for n in range(5)
        ])
    desk.sandbox.faults.go_down("chat_messages")
    worker = make_worker(desk.database, per_call=2, stats_every=0)
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    async with asyncio.timeout(10):
        await until(lambda: desk.sandbox.call_count("chat_messages") >= 4)
        slept = sum(fake_time.sleeps)
        assert slept >= 2 + 4 + 8  # the worker waited out its backoff between tries
        desk.sandbox.faults.come_back()
        await until(lambda: no_pending(desk))
        stop.set()
        await task
    assert [content for _, content in mirrored(desk.sandbox, 70001)] == [f"mensagem {n}" for n in range(5)]


async def test_the_idle_loop_stops_at_once_and_wakes_when_told(
    desk: Desk, make_worker: WorkerFactory, fake_time: FakeTime,
) -> None:
    worker = make_worker(desk.database, idle=3600.0, sleep=asyncio.sleep, clock=lambda: fake_time.now)
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    await asyncio.sleep(0.05)  # let it find nothing to do and pause for an hour
    async with desk.database.transaction() as session:
        await Outbox().enqueue(session, [
            NewMessage(ticket_id=70001, customer=MARIA, record=datetime.now(UTC), attendant="ispbot",
                       content="chegou agora", origin=Origin.CUSTOMER),
        ], now=fake_time.now - timedelta(seconds=1))
    worker.wake()
    async with asyncio.timeout(5):
        await until(lambda: bool(mirrored(desk.sandbox, 70001)), pause=0.01)
        stop.set()
        await task  # an hour's pause cut short
    assert mirrored(desk.sandbox, 70001) == [("C", "chegou agora")]


async def test_once_the_isp_answers_again_tickets_put_off_by_the_outage_are_sent_without_waiting_out_their_backoff(
    desk: Desk, make_worker: WorkerFactory, fake_time: FakeTime,
) -> None:
    first, second = [(t["Numero"], t["CodigoCliente"]) for t in desk.sandbox.store.rows("tickets")[:2]]
    async with desk.database.transaction() as session:
        await Outbox().enqueue(session, [
            NewMessage(ticket_id=ticket, customer=customer, record=datetime.now(UTC), attendant="ispbot",
                       content=f"mensagem {n}", origin=Origin.CUSTOMER)
            for ticket, customer in (first, second) for n in range(2)
        ], now=fake_time.now - timedelta(seconds=1))
    worker = make_worker(desk.database)
    desk.sandbox.faults.go_down("chat_messages")
    for _ in range(2):  # two failed tries each: the next waits 4-5 s (fewer than the breaker's 5 failures)
        assert await worker.deliver_once() == 0
        fake_time.now = max(await heads_retry_at(desk, first[0], second[0]))

    desk.sandbox.faults.come_back()
    first_due, second_due = await heads_retry_at(desk, first[0], second[0])
    fake_time.now = min(first_due, second_due)  # one ticket's retry time comes; the other's is later
    assert max(first_due, second_due) > fake_time.now
    await worker.deliver_once()  # the earlier ticket goes, and the ISP has answered
    await worker.deliver_once()  # at the same time: the other ticket does not wait out its backoff
    for ticket, _ in (first, second):
        assert [content for _, content in mirrored(desk.sandbox, ticket)][-2:] == ["mensagem 0", "mensagem 1"]


async def heads_retry_at(desk: Desk, *tickets: int) -> list[datetime]:
    return [
        next(row.next_attempt_at for row in await outbox_rows(desk.database, ticket) if row.state == "pending")
        for ticket in tickets
    ]


async def test_a_database_outage_is_one_log_line_a_streak_and_one_when_it_is_over(
    desk: Desk, make_worker: WorkerFactory, fake_time: FakeTime, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="bot.mirror")
    worker = make_worker(desk.database, stats_every=3600)
    rounds = {"failed": 0}
    real = worker._round

    async def database_down() -> int:
        if rounds["failed"] < 6:
            rounds["failed"] += 1
            raise ConnectionRefusedError(111, "Connect call failed")
        return await real()

    worker._round = database_down  # type: ignore[method-assign]
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    async with asyncio.timeout(10):
        await until(lambda: rounds["failed"] >= 6 and fake_time.sleeps.count(worker.idle) >= 1)
        stop.set()
        await task
    lines = [r for r in caplog.records if r.name.startswith("bot.mirror") and r.levelno >= logging.INFO]
    assert [r.levelname for r in lines] == ["WARNING", "INFO"], [r.getMessage() for r in lines]
    assert "ConnectionRefusedError" in lines[0].getMessage() and lines[0].exc_info is None
