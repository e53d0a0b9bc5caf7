"""The technician's agenda: the day's visits with who, where and which plan; another day; a ticket taken in hand."""

from __future__ import annotations

import re

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


async def test_the_card_gives_the_customers_phone_to_call_and_a_map_link(desk: Desk) -> None:
    chat = await desk.technician_chat()
    await chat.command("agenda")
    await chat.tap("#70001")
    assert "📞 +55 11 98765-4321" in chat.text  # Telegram makes a +55 number tappable to call
    card = chat.replies[-1].text
    assert '<a href="https://www.google.com/maps?q=-23.586900,-46.635300">abrir no mapa</a>' in card
    maria = desk.sandbox.store.find("customers", Codigo=D.customer)
    assert maria is not None
    maria.update(MapsMarkLat=None, MapsMarkLng=None, TelCelular="", TelResidencial="1133334444")
    desk.expire_caches()
    await chat.command("os")
    assert "📞 +55 11 3333-4444" in chat.text and "98765" not in chat.text
    card = chat.replies[-1].text
    assert "https://www.google.com/maps?q=Rua+das+Flores%2C+120%2C+Vila+Mariana%2C+S%C3%A3o+Paulo%2C+SP" in card


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
    assert "Não entendi esse dia" in chat.text
    await chat.say("09/03")
    assert "9 de março de 2025" in chat.text
    await chat.say("10/03")  # typed straight at the agenda, no button first
    assert "#70001" in chat.text


def more_open_orders(desk: Desk, count: int) -> list[int]:
    """``count`` more open service orders for the technician, Maria's, not scheduled."""
    template = desk.sandbox.store.find("tickets", Numero=D.ticket)
    assert template is not None
    numbers = []
    for n in range(count):
        row = dict(template, Numero=71000 + n, Protocolo=f"2025031071{n:03d}", Data_Agendamento=None,
                   Hora_Agendamento=None, Situacao_Agendamento=None, Assunto=f"Visita {n}")
        desk.sandbox.store.insert("tickets", row)
        numbers.append(row["Numero"])
    return numbers


async def test_every_open_order_gets_a_button_a_page_at_a_time(desk: Desk) -> None:
    extra = more_open_orders(desk, 11)
    chat = await desk.technician_chat()
    await chat.command("agenda")
    assert "sem botão" not in chat.text
    shown = re.search(r"chamados 1 a 8 de (\d+)", chat.text)
    assert shown is not None
    total = int(shown[1])
    seen = [label.split()[0] for label in chat.buttons if label.startswith("#")]
    while any("Mais chamados" in label for label in chat.buttons):
        await chat.tap("Mais chamados")
        seen += [label.split()[0] for label in chat.buttons if label.startswith("#")]
    assert f"a {total} de {total}" in chat.text
    assert len(seen) == len(set(seen)) == total
    assert {f"#{n}" for n in [D.ticket, *extra]} <= set(seen)
    await chat.tap(f"#{extra[-1]}")  # one from the last page is taken in hand like the first
    assert f"Chamado #{extra[-1]}" in chat.text
    await chat.command("agenda")
    await chat.tap("Mais chamados")
    await chat.tap("Chamados anteriores")
    assert "chamados 1 a 8 de" in chat.text


async def test_a_day_said_in_words_is_understood_in_each_language(desk: Desk) -> None:
    chat = await desk.technician_chat()
    await chat.command("agenda")  # Monday 10 March 2025
    await chat.say("amanhã")
    assert "11 de março" in chat.text
    await chat.say("ontem")
    assert "9 de março" in chat.text
    await chat.say("Hoje")
    assert "#70001" in chat.text
    await chat.say("sexta")
    assert "14 de março" in chat.text
    await chat.tap("Outra data")
    await chat.say("sentido")
    assert "Não entendi esse dia" in chat.text and "amanhã" in chat.text
    await chat.say("sábado")
    assert "15 de março" in chat.text
    english = await desk.technician_chat(language="en")
    await english.command("agenda")
    await english.say("tomorrow")
    assert "March 11" in english.text
    spanish = await desk.technician_chat(language="es")
    await spanish.command("agenda")
    await spanish.say("pasado mañana")
    assert "12 de marzo" in spanish.text
    await spanish.say("viernes")
    assert "14 de marzo" in spanish.text


async def test_a_visit_to_a_contract_the_subscriber_cancelled_is_marked_in_the_agenda_and_the_card(
    desk: Desk,
) -> None:
    chat = await desk.technician_chat()
    await chat.command("agenda")
    assert "contrato cancelado" not in chat.text and "atrasada" not in chat.text
    for contract in desk.sandbox.store.where("contracts", Cliente_Codigo=D.customer):
        contract["Situacao_Codigo"] = "C"  # Maria cancelled in the chat meanwhile
    await chat.command("agenda")
    line = next(row for row in chat.text.splitlines() if "#70001" in row)
    assert "⚠️ contrato cancelado" in line
    await chat.tap("#70001")
    assert "O contrato deste cliente está cancelado" in chat.text


async def test_a_suspended_contract_is_marked_suspended(desk: Desk) -> None:
    for contract in desk.sandbox.store.where("contracts", Cliente_Codigo=D.customer):
        contract["Situacao_Codigo"] = "S"
    chat = await desk.technician_chat()
    await chat.command("agenda")
    line = next(row for row in chat.text.splitlines() if "#70001" in row)
    assert "⏸️ contrato suspenso" in line


async def test_a_visit_past_its_time_not_begun_is_marked_late(desk: Desk) -> None:
    chat = await desk.technician_chat()
    desk.clock.advance(hours=5)  # 14:30: the 14:00 visit has not begun
    await chat.command("agenda")
    line = next(row for row in chat.text.splitlines() if "#70001" in row)
    assert "⏰ atrasada" in line
    await chat.tap("#70001")
    assert "Visita atrasada" in chat.text
    await chat.tap("Status da OS")
    await chat.tap("A caminho")
    await chat.tap("Status da OS")
    await chat.tap("Em execução")
    await chat.share_location(-23.5869, -46.6353)
    await chat.command("agenda")  # begun: no longer late
    line = next(row for row in chat.text.splitlines() if "#70001" in row)
    assert "atrasada" not in line
