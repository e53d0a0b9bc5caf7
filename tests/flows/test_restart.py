"""Restart my connection: the session is dropped, the bot watches it come back (or not) and says so,
offering the ticket when it does not; the equipment the ISP lists, in plain words."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox
from flows.policy import Policy
from flows.stock import StockCatalog

from tests.flows.harness import Desk, make_desk
from tests.flows.test_connection import customers, on_host
from tests.store.dbtools import ScratchDatabase

MARIA = DEMO_IDENTITIES.customer


def online_without_outage(sandbox: Sandbox) -> int:
    hosts = on_host(sandbox)
    return customers(sandbox, lambda _, nas, online: online and not set(nas) & hosts)[0]


@pytest.fixture
async def restarting(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Desk]:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # the turn waits on the sandbox's clock, not the wall's
        waits.append(seconds)
        clock.advance(seconds=seconds)

    policy = Policy(stock=StockCatalog.from_mapping(sandbox.stock_catalog()), sleep=sleep)
    desk = make_desk(sandbox, database, clock, policy)
    yield desk
    await desk.client.aclose()


def session_ids(sandbox: Sandbox, customer: int) -> set[str]:
    return {s["session_id"] for s in sandbox.store.where("sessions", customer_id=customer)}


async def test_the_connection_is_restarted_and_comes_back(restarting: Desk, clock: FixedClock) -> None:
    customer = online_without_outage(restarting.sandbox)
    chat = await restarting.linked_chat(customer)
    before = session_ids(restarting.sandbox, customer)
    started = clock.now
    await chat.say("quero reiniciar minha conexão")
    assert "a internet cai por alguns segundos" in chat.text
    await chat.tap("Sim, reiniciar")
    assert "já voltou" in chat.text and "novo endereço 100.64." in chat.text
    after = session_ids(restarting.sandbox, customer)
    assert after and not after & before
    assert (clock.now - started).total_seconds() <= 60  # it stopped watching once the session was back


async def test_a_connection_that_does_not_come_back_offers_the_ticket(restarting: Desk, clock: FixedClock) -> None:
    restarting.sandbox.settings.redials = False  # the router never dials in again
    chat = await restarting.linked_chat(online_without_outage(restarting.sandbox))
    await chat.command("conexao")
    await chat.tap("Reiniciar minha conexão")
    started = clock.now
    await chat.tap("Sim, reiniciar")
    assert "não voltou" in chat.text and "60 segundos" in chat.text
    assert (clock.now - started).total_seconds() == 60
    await chat.tap("Abrir chamado")
    assert "Sobre o que é" in chat.text


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
