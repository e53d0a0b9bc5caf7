"""Suspending a contract for a while and calling it off, each with its ticket; the ISP's refusals
(already scheduled, none to call off, not active) in plain words; a lost answer is not a second one.

The client refuses a start date already past everywhere, so these chats live on today's date."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from bot.desks.worker import DeskWorker
from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox

from tests.flows.harness import Desk, TestChat, losing_answers
from tests.flows.test_cancel_plan import last_ticket
from tests.flows.test_staff_desk import RecordingDesk
from tests.store.dbtools import ScratchDatabase

MARIA = DEMO_IDENTITIES.customer


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.this_morning()


def suspensions(sandbox: Sandbox, status: str) -> list[dict[str, object]]:
    return list(sandbox.store.where("suspensions", contract_id=DEMO_IDENTITIES.contract, status=status))


async def ask_for(chat: TestChat, days: str, start: str) -> None:
    await chat.say("quero suspender minha internet")
    assert "de 30 a 120 dias" in chat.text
    await chat.tap("Suspender por um tempo")
    await chat.say(days)
    await chat.tap(start) if start == "Hoje" else await chat.say(start)


async def test_a_suspension_is_scheduled_then_called_off_each_with_its_ticket(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    start = (clock.now + timedelta(days=7)).date()
    await ask_for(chat, "60", start.strftime("%d/%m"))
    assert "suspenso por 60 dias" in chat.text and (start + timedelta(days=60)).strftime("%d/%m/%Y") in chat.text
    await chat.tap("Sim, suspender")
    assert "Pronto" in chat.text and f"Chamado nº {last_ticket(desk.sandbox, MARIA)[0]['Numero']}." in chat.text
    (scheduled,) = suspensions(desk.sandbox, "scheduled")
    assert scheduled["duration"] == 60 and scheduled["start_date"] == start.isoformat()
    await ask_for(chat, "30", "Hoje")
    await chat.tap("Sim, suspender")
    assert "Já existe uma suspensão agendada" in chat.text
    await chat.tap("Desfazer a suspensão agendada")
    assert "foi desfeita" in chat.text and f"Chamado nº {last_ticket(desk.sandbox, MARIA)[0]['Numero']}." in chat.text
    assert suspensions(desk.sandbox, "cancelled") and not suspensions(desk.sandbox, "scheduled")
    await chat.say("suspender")
    await chat.tap("Desfazer")
    assert "Não há suspensão agendada" in chat.text


async def test_days_and_dates_out_of_bounds_are_answered(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("suspender")
    await chat.tap("Suspender por um tempo")
    await chat.say("500")
    assert "500 dias passa do limite: a suspensão mais longa é de 120 dias" in chat.text
    await chat.say("duas semanas")  # said in the person's terms, answered in days with the range
    assert "14 dias é pouco: a suspensão mais curta é de 30 dias" in chat.text
    await chat.say("45")
    await chat.say("ontem")
    assert f"{clock.now - timedelta(days=1):%d/%m/%Y} já passou" in chat.text
    await chat.say((clock.now + timedelta(days=90)).strftime("%d/%m/%Y"))
    assert "é longe demais" in chat.text
    await chat.tap("Hoje")
    await chat.tap("Sim, suspender")
    contract = desk.sandbox.store.find("contracts", Numero=DEMO_IDENTITIES.contract)
    assert contract is not None and contract["Situacao_Codigo"] == "S"
    await chat.say("suspender")
    assert "já está suspenso agora" in chat.text


async def test_a_contract_not_active_is_told_plainly(desk: Desk) -> None:
    chat = await desk.linked_chat(DEMO_IDENTITIES.blocked_customer)
    await chat.say("suspender")
    assert "Não encontrei nenhum contrato ativo" in chat.text


async def test_a_lost_answer_is_tried_again_without_a_second_suspension(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    async with losing_answers(sandbox, database, clock, "contract_suspend_temporary") as desk:
        chat = await desk.linked_chat(MARIA)
        await ask_for(chat, "30", (clock.now + timedelta(days=3)).strftime("%d/%m"))
        await chat.tap("Sim, suspender")
        assert "Tentar de novo" in chat.text
        await chat.tap("Tentar de novo")
        assert "Pronto" in chat.text
        assert len(suspensions(sandbox, "scheduled")) == 1


async def test_the_contract_card_leads_to_suspending_it(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.command("contratos")
    await chat.tap("Suspender por um tempo")
    assert f"Contrato {DEMO_IDENTITIES.contract}" in chat.text and "Suspender por um tempo" in chat.buttons[0]


async def test_a_lost_call_off_answer_is_tried_again_and_its_refusal_means_it_landed(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    async with losing_answers(sandbox, database, clock, "contract_suspend_temporary_cancel") as desk:
        chat = await desk.linked_chat(MARIA)
        await ask_for(chat, "30", (clock.now + timedelta(days=3)).strftime("%d/%m"))
        await chat.tap("Sim, suspender")
        await chat.say("suspender")
        await chat.tap("Desfazer")
        assert "Tentar de novo" in chat.text and suspensions(sandbox, "cancelled")
        await chat.tap("Tentar de novo")
        assert "foi desfeita" in chat.text and "Não há suspensão" not in chat.text


async def test_the_staff_desk_hears_of_a_suspension_and_of_its_calling_off(desk: Desk, clock: FixedClock) -> None:
    desk.engine.policy = dataclasses.replace(desk.engine.policy, staff_desk=True)
    chat = await desk.linked_chat(MARIA)
    start = (clock.now + timedelta(days=7)).date()
    await ask_for(chat, "30", start.strftime("%d/%m"))
    await chat.tap("Sim, suspender")
    await chat.say("suspender")
    await chat.tap("Desfazer")
    assert "foi desfeita" in chat.text
    fake = RecordingDesk()
    await DeskWorker(desk.database, fake).round()
    [suspended, called_off] = fake.calls
    assert suspended[:3] == ("notify", chat.chat_id, MARIA) and "Suspensão temporária pelo chat" in suspended[3]
    assert f"contrato {DEMO_IDENTITIES.contract}, 30 dias a partir de {start:%d/%m/%Y}" in suspended[3]
    assert called_off[:3] == ("notify", chat.chat_id, MARIA) and "Suspensão desfeita pelo chat" in called_off[3]


async def test_right_after_a_suspension_from_today_the_connection_says_suspended(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.say("sem internet")
    await chat.say("quero suspender minha internet")
    await chat.tap("Suspender por um tempo")
    await chat.say("30")
    await chat.tap("Hoje")
    await chat.tap("Sim, suspender")
    assert "Pronto" in chat.text and "está suspenso" in chat.text  # the menu after it
    await chat.say("minha internet caiu")
    assert "está suspenso" in chat.text and "falha na nossa rede" not in chat.text
    await chat.say("menu")
    await chat.say("segunda via")
    assert "está suspenso" in chat.text and "boletos em aberto" in chat.text
