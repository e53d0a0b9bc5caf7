"""Restart my connection: the session is dropped and the turn answers at once; the restart watch
(``flows.restarts``) then tells the chat it came back, or not, or that the ISP could not say (the last
two offering the ticket), once, whichever worker and process looks; the equipment, in plain words."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from bot.i18n import plain_text
from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox
from bot.store import RestartWatches
from flows.replies import Notice
from flows.restarts import RestartChecks

from tests.flows.harness import Desk, TestChat, make_desk
from tests.flows.test_connection import customers, on_host
from tests.store.dbtools import ScratchDatabase

MARIA = DEMO_IDENTITIES.customer


def online_without_outage(sandbox: Sandbox) -> int:
    hosts = on_host(sandbox)
    return customers(sandbox, lambda _, nas, online: online and not set(nas) & hosts)[0]


@pytest.fixture
async def restarting(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Desk]:
    desk = make_desk(sandbox, database, clock)
    yield desk
    await desk.client.aclose()


def session_ids(sandbox: Sandbox, customer: int) -> set[str]:
    return {s["session_id"] for s in sandbox.store.where("sessions", customer_id=customer)}


async def look(desk: Desk, *chats: TestChat, checks: RestartChecks | None = None) -> list[Notice]:
    """One round of the restart watch (as the runtime runs it every few seconds); what it told
    ``chats`` becomes what they see last, as a person would on their phone."""
    notices = await (checks or RestartChecks(desk.engine)).check()
    desk.notices.extend(notices)
    for chat in chats:
        told = [notice.reply for notice in notices if notice.chat_id == chat.chat_id]
        if told:
            chat.replies = told
    return notices


async def test_the_turn_answers_at_once_and_the_chat_hears_later_that_it_is_back(
    restarting: Desk, clock: FixedClock,
) -> None:
    customer = online_without_outage(restarting.sandbox)
    chat = await restarting.linked_chat(customer)
    before = session_ids(restarting.sandbox, customer)
    started = clock.now
    await chat.say("quero reiniciar minha conexão")
    assert "a internet cai por alguns segundos" in chat.text
    await chat.tap("Sim, reiniciar")
    assert "te aviso aqui em até 60 segundos" in chat.text and "Como posso ajudar?" in chat.text
    assert clock.now == started  # the turn did not wait for the router
    assert await look(restarting, chat) == []  # nothing is due before the first look
    clock.advance(seconds=5)
    assert await look(restarting, chat) == []  # the router is still dialling in
    clock.advance(seconds=20)
    [notice] = await look(restarting, chat)
    assert notice.kind == "restart_result"
    assert "já voltou" in chat.text and "novo endereço 100.64." in chat.text
    after = session_ids(restarting.sandbox, customer)
    assert after and not after & before
    clock.advance(seconds=60)
    assert await look(restarting, chat) == []  # told once
    await chat.say("meus atendimentos")
    assert "conexão reiniciada" in chat.text


async def test_a_connection_that_does_not_come_back_offers_the_ticket(restarting: Desk, clock: FixedClock) -> None:
    restarting.sandbox.settings.redials = False  # the router never dials in again
    chat = await restarting.linked_chat(online_without_outage(restarting.sandbox))
    await chat.command("conexao")
    await chat.tap("Reiniciar minha conexão")
    await chat.tap("Sim, reiniciar")
    for _ in range(11):
        clock.advance(seconds=5)
        assert await look(restarting, chat) == []
    clock.advance(seconds=5)
    await look(restarting, chat)
    assert "não voltou" in chat.text and "60 segundos" in chat.text
    await chat.tap("Abrir chamado")
    assert "Sobre o que é" in chat.text


async def test_the_isp_failing_while_looking_is_said_plainly_with_the_ticket(
    restarting: Desk, clock: FixedClock,
) -> None:
    chat = await restarting.linked_chat(online_without_outage(restarting.sandbox))
    await chat.say("reiniciar")
    await chat.tap("Sim, reiniciar")
    restarting.sandbox.faults.go_down("get_online_customer")
    clock.advance(seconds=30)
    assert await look(restarting, chat) == []  # looked at again while the wait lasts
    clock.advance(seconds=30)
    await look(restarting, chat)
    assert "não respondeu quando fui conferir" in chat.text and "Abrir chamado" in " ".join(chat.buttons)
    restarting.sandbox.faults.come_back()
    await chat.tap("Abrir chamado")
    assert "Sobre o que é" in chat.text


async def test_two_workers_tell_a_chat_once(restarting: Desk, clock: FixedClock) -> None:
    chats = [await restarting.linked_chat(c) for c in customers(
        restarting.sandbox, lambda _, nas, online: online and not set(nas) & on_host(restarting.sandbox))[:3]]
    for chat in chats:
        await chat.say("reiniciar")
        await chat.tap("Sim, reiniciar")
    clock.advance(seconds=25)
    one, two = RestartChecks(restarting.engine), RestartChecks(restarting.engine)
    told = [*await one.check(), *await two.check()]
    told += [n for pair in await asyncio.gather(one.check(), two.check()) for n in pair]
    assert sorted(n.chat_id for n in told) == sorted(c.chat_id for c in chats)


async def test_two_workers_that_both_claimed_a_watch_tell_it_once(restarting: Desk, clock: FixedClock) -> None:
    chat = await restarting.linked_chat(online_without_outage(restarting.sandbox))
    await chat.say("reiniciar")
    await chat.tap("Sim, reiniciar")
    clock.advance(seconds=25)
    async with restarting.database.transaction() as session:  # a worker that stalled past its lease
        [watch] = await RestartWatches().claim(session, clock.now, timedelta(seconds=1), 10)
    clock.advance(seconds=2)
    late = RestartChecks(restarting.engine)
    assert len(await late.check()) == 1
    assert await late._tell(watch, {"outcome": "back", "address": ""}) == []  # the stalled one, too late


async def test_a_watch_outlives_the_process_that_wrote_it(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    first = make_desk(sandbox, database, clock)
    chat = await first.linked_chat(online_without_outage(sandbox))
    await chat.say("reiniciar")
    await chat.tap("Sim, reiniciar")
    clock.advance(seconds=25)
    async with database.transaction() as session:  # it claimed the watch, then died before telling
        assert len(await RestartWatches().claim(session, clock.now, timedelta(seconds=30), 10)) == 1
    await first.client.aclose()
    second = make_desk(sandbox, database, clock)  # the bot started again
    try:
        assert await look(second) == []  # the dead worker's lease still holds it
        clock.advance(seconds=30)
        [notice] = await look(second)
        assert notice.chat_id == chat.chat_id and "já voltou" in plain_text(notice.reply.text)  # type: ignore[union-attr]
        assert await look(second) == []
    finally:
        await second.client.aclose()


async def test_a_chat_busy_elsewhere_hears_the_outcome_without_losing_its_question(
    restarting: Desk, clock: FixedClock,
) -> None:
    restarting.sandbox.settings.redials = False
    chat = await restarting.linked_chat(online_without_outage(restarting.sandbox))
    await chat.say("reiniciar")
    await chat.tap("Sim, reiniciar")
    await chat.command("chamado")
    asked = chat.replies
    assert "Sobre o que é" in chat.text
    clock.advance(seconds=60)
    await look(restarting, chat)
    assert "não voltou" in chat.text and chat.buttons == []  # no button of a question not asked
    chat.replies = asked  # the ticket's question, still on the screen above, still answers
    await chat.tap("Sem conexão")
    assert "conte em poucas palavras" in chat.text


async def test_offline_there_is_nothing_to_restart(restarting: Desk) -> None:
    chat = await restarting.linked_chat(DEMO_IDENTITIES.blocked_customer)
    await chat.say("reiniciar")
    assert "não está ativa agora" in chat.text


async def test_during_an_outage_the_outage_is_the_answer(restarting: Desk) -> None:
    chat = await restarting.linked_chat(MARIA)
    await chat.say("reiniciar")
    assert "falha na nossa rede" in chat.text and not restarting.sandbox.call_count("disconnect_online_customer")


async def test_the_equipment_is_told_in_plain_words(restarting: Desk) -> None:
    hosts = on_host(restarting.sandbox)
    equipped = {e["customer_id"] for e in restarting.sandbox.store.rows("equipment")}
    customer = next(c for c in customers(restarting.sandbox, lambda _, nas, online: not set(nas) & hosts)
                    if c in equipped)
    (item, *_) = restarting.sandbox.store.where("equipment", customer_id=customer)
    chat = await restarting.linked_chat(customer)
    await chat.command("conexao")
    await chat.tap("Meus equipamentos")
    assert "ONU GPON Huawei HG8145" in chat.text and "emprestado (comodato)" in chat.text
    assert f"nº de série {item['serial']}" in chat.text
    assert not any("Meus equipamentos" in b for b in chat.buttons)
