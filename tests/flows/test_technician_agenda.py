"""The technician's agenda: the day's visits with who, where and which plan; another day; a ticket taken in hand."""

from __future__ import annotations

from bot.sandbox import DEMO_IDENTITIES as D

from tests.flows.harness import Desk


async def test_the_agenda_lists_marias_visit_with_name_address_plan_and_time(desk: Desk) -> None:
    chat = await desk.technician_chat()
    await chat.tap("Agenda")
    assert "#70001" in chat.text and "Maria" in chat.text
    assert "Rua das Flores, 120" in chat.text
    plan = desk.sandbox.store.find("contracts", Cliente_Codigo=D.customer)
    assert plan is not None and plan["Plano_Descricao"] in chat.text
    assert "14:00" in chat.text and "(hoje)" in chat.text
    assert any("#70001" in label for label in chat.buttons)


async def test_choosing_a_ticket_puts_it_in_hand_and_shows_its_card(desk: Desk) -> None:
    chat = await desk.technician_chat()
    await chat.command("agenda")
    await chat.tap("#70001")
    assert "Chamado #70001" in chat.text
    assert "Maria" in chat.text and "OS: na fila" in chat.text
    assert any("Status da OS" in label for label in chat.buttons)


async def test_another_day_by_button_and_typed_and_an_empty_day_said_plainly(desk: Desk) -> None:
    chat = await desk.technician_chat()
    await chat.command("agenda")
    await chat.tap("11/03")  # tomorrow
    assert "11 de março" in chat.text
    assert "#70001" not in chat.text
    assert "Nada na agenda" in chat.text
    await chat.tap("Hoje")
    assert "#70001" in chat.text
    await chat.tap("Outra data")
    await chat.say("32/13")
    assert "Não entendi essa data" in chat.text
    await chat.say("09/03")
    assert "9 de março de 2025" in chat.text
    await chat.say("10/03")  # typed straight at the agenda, no button first
    assert "#70001" in chat.text
