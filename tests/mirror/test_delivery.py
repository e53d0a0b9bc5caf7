"""The mirror delivers what a real conversation wrote to the outbox: in order, with the right
origins, non-text described, several entries per call, each once; the metrics follow."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from bot import metrics
from bot.isp import Generation, IspApiError
from bot.isp.models.v2_requests import ChatMessages
from bot.mirror import MAX_CONTENT
from bot.sandbox import DEMO_IDENTITIES, Sandbox
from bot.store import NewMessage, Origin, Outbox, OutboxState

from tests.flows.harness import Desk, TestChat
from tests.mirror.conftest import FakeTime, WorkerFactory, mirrored, outbox_rows, states

MARIA = DEMO_IDENTITIES.customer


async def open_ticket(chat: TestChat) -> int:
    """Maria opens a "no connection" ticket through the bot; its number (the chat's current ticket)."""
    await chat.command("chamado")
    await chat.tap("Sem conexão")
    await chat.tap("mesmo assim")  # the outage in the sandbox's seed, told once the topic is known
    await chat.say("Sem internet desde as 8h, a luz LOS está vermelha")
    await chat.tap("Abrir chamado")
    assert "Chamado aberto" in chat.text or "protocolo" in chat.text
    rows = await outbox_rows(chat.desk.database)
    assert rows, "a conversation with a ticket writes to the outbox"
    return rows[0].ticket_id


async def test_a_conversation_lands_in_the_ticket_in_order_with_origins(
    desk: Desk, make_worker: WorkerFactory,
) -> None:
    chat = await desk.linked_chat(MARIA)
    ticket = await open_ticket(chat)
    await chat.say("ainda sem internet, já reiniciei o roteador")
    await chat.send_media("photo", "luz vermelha piscando")
    await chat.share_location(-23.550520, -46.633308)
    rows = await outbox_rows(desk.database, ticket)

    worker = make_worker(desk.database, per_call=5)
    calls_before = desk.sandbox.call_count("chat_messages")
    assert await worker.deliver_once() == len(rows)

    recorded = mirrored(desk.sandbox, ticket)
    assert recorded == [(row.origin, row.content) for row in rows]  # every entry, once, in order
    origins = {origin for origin, _ in recorded}
    assert origins == {"C", "S"}
    said = [content for origin, content in recorded if origin == "C"]
    assert "ainda sem internet, já reiniciei o roteador" in said
    assert "[photo] luz vermelha piscando" in said
    assert "[location] -23.550520, -46.633308" in said
    assert all("<b>" not in content for _, content in recorded)  # plain text, not Telegram HTML
    # Several entries per call, at most 5 each, a single ticket's in each.
    calls = desk.sandbox.call_count("chat_messages") - calls_before
    assert calls == -(-len(rows) // 5)
    assert all(m["attendant"] == DEMO_IDENTITIES.bot_user and m["customer"] == MARIA
               for m in desk.sandbox.chat_messages(ticket))
    assert set(await states(desk.database)) == {OutboxState.SENT}

    assert await worker.deliver_once() == 0  # nothing sent twice
    assert len(mirrored(desk.sandbox, ticket)) == len(rows)


async def test_each_ticket_keeps_its_own_order_and_the_record_time(
    desk: Desk, make_worker: WorkerFactory, sandbox: Sandbox,
) -> None:
    said_at = datetime(2025, 3, 10, 12, 0, 5, tzinfo=UTC)  # 09:00:05 in São Paulo, the ISP's zone
    tickets = [70001, 70002, 70003]
    async with desk.database.transaction() as session:
        await Outbox().enqueue(session, [
            NewMessage(ticket_id=tickets[n % 3], customer=1001, record=said_at, attendant="ispbot",
                       content=f"mensagem {n}", origin=Origin.CUSTOMER if n % 2 else Origin.SYSTEM)
            for n in range(12)
        ])
    worker = make_worker(desk.database, batch=7, per_call=2)
    delivered = 0
    async with asyncio.timeout(10):
        while delivered < 12:
            delivered += await worker.deliver_once()
    for index, ticket in enumerate(tickets):
        assert [content for _, content in mirrored(sandbox, ticket)] == [f"mensagem {n}" for n in range(index, 12, 3)]
        assert {m["record"] for m in sandbox.chat_messages(ticket)} == {"2025-03-10 09:00:05"}


async def test_long_content_is_split_in_order_never_cut(desk: Desk, make_worker: WorkerFactory) -> None:
    paragraph = "A conexão cai toda noite depois das 22h e volta sozinha de manhã. " * 40
    long_text = "\n".join([paragraph] * 4)  # about 10,900 characters
    assert len(long_text) > 2 * MAX_CONTENT
    async with desk.database.transaction() as session:
        await Outbox().enqueue(session, [
            NewMessage(ticket_id=70001, customer=1001, record=datetime.now(UTC), attendant="ispbot",
                       content=content, origin=Origin.CUSTOMER)
            for content in ("antes", long_text, "depois")
        ])
    worker = make_worker(desk.database, per_call=2)  # the long entry's pieces still travel together
    assert await worker.deliver_once() == 3
    contents = [content for _, content in mirrored(desk.sandbox, 70001)]
    assert contents[0] == "antes" and contents[-1] == "depois"
    pieces = contents[1:-1]
    assert "".join(pieces) == long_text
    assert all(len(piece) <= MAX_CONTENT for piece in pieces)
    assert pieces == [paragraph + "\n"] * 3 + [paragraph]  # broken at line breaks, where there are some


async def test_an_entry_no_request_could_carry_is_dead_and_blocks_nothing(
    desk: Desk, make_worker: WorkerFactory,
) -> None:
    async with desk.database.transaction() as session:
        await Outbox().enqueue(session, [
            NewMessage(ticket_id=70001, customer=1001, record=datetime.now(UTC), attendant="ispbot",
                       content=content, origin=Origin.CUSTOMER)
            for content in ("primeira", "", "terceira")
        ])
    worker = make_worker(desk.database)
    assert await worker.deliver_once() == 2
    assert [content for _, content in mirrored(desk.sandbox, 70001)] == ["primeira", "terceira"]
    rows = await outbox_rows(desk.database)
    assert [row.state for row in rows] == ["sent", "dead", "sent"]
    assert rows[1].last_error is not None and "content" in rows[1].last_error


async def test_metrics_show_depth_lag_and_outcomes(
    desk: Desk, make_worker: WorkerFactory, fake_time: FakeTime,
) -> None:
    def sample(name: str, **labels: str) -> float:
        value = metrics.REGISTRY.get_sample_value(name, labels or None)
        return value or 0.0

    sent_before = sample("ispbot_mirror_deliveries_total", outcome="sent")
    dead_before = sample("ispbot_mirror_deliveries_total", outcome="dead")
    async with desk.database.transaction() as session:
        await Outbox().enqueue(session, [
            NewMessage(ticket_id=ticket, customer=1001, record=datetime.now(UTC), attendant="ispbot",
                       content="oi", origin=Origin.CUSTOMER)
            for ticket in (70001, 70002, 99999999)
        ])
    worker = make_worker(desk.database)
    fake_time.advance(90)
    await worker.refresh_metrics()
    assert sample("ispbot_mirror_outbox_entries", state="pending") == 3
    assert sample("ispbot_mirror_lag_seconds") >= 90

    await worker.deliver_once()
    await worker.refresh_metrics()
    assert sample("ispbot_mirror_deliveries_total", outcome="sent") - sent_before == 2
    assert sample("ispbot_mirror_deliveries_total", outcome="dead") - dead_before == 1
    assert sample("ispbot_mirror_outbox_entries", state="pending") == 0
    assert sample("ispbot_mirror_outbox_entries", state="sent") == 2
    assert sample("ispbot_mirror_outbox_entries", state="dead") == 1
    assert sample("ispbot_mirror_lag_seconds") == 0
    assert b"ispbot_mirror_lag_seconds" in metrics.exposition()


async def test_a_refusal_repeated_is_retried_then_dead_and_the_ticket_goes_on(
    desk: Desk, make_worker: WorkerFactory, fake_time: FakeTime, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with desk.database.transaction() as session:
        await Outbox().enqueue(session, [
            NewMessage(ticket_id=70001, customer=1001, record=datetime.now(UTC), attendant="ispbot",
                       content=content, origin=Origin.CUSTOMER)
            for content in ("recusada", "seguinte")
        ])
    worker = make_worker(desk.database, per_call=1, refusals_before_dead=3)
    real_send = worker.client.chat_messages

    async def refuse_one(request: ChatMessages) -> str:
        if request.messages[0].content == "recusada":
            raise IspApiError(operation="chat_messages", generation=Generation.V2, code=99, description="erro interno")
        return await real_send(request)

    monkeypatch.setattr(worker.client, "chat_messages", refuse_one)
    for _ in range(2):
        assert await worker.deliver_once() == 0  # refused: waits, and "seguinte" waits behind it
        fake_time.advance(600)
    assert [row.state for row in await outbox_rows(desk.database)] == ["pending", "pending"]
    assert await worker.deliver_once() == 1  # the third refusal: dead, and the ticket goes on
    rows = await outbox_rows(desk.database)
    assert [row.state for row in rows] == ["dead", "sent"]
    assert "code 99" in (rows[0].last_error or "")
    assert mirrored(desk.sandbox, 70001) == [("C", "seguinte")]
