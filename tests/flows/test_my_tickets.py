"""My tickets: the open ones in words and local dates, a friendly answer when there are none."""

from __future__ import annotations

from bot.sandbox import DEMO_IDENTITIES, Sandbox

from tests.flows.harness import Desk

MARIA = DEMO_IDENTITIES.customer


def without_open_tickets(sandbox: Sandbox) -> int:
    """A customer with an active contract (the ticket flow tells any other state first) and no open ticket."""
    busy = {t["CodigoCliente"] for t in sandbox.store.rows("tickets") if t["Encerramento_DataHora"] is None}
    active = {c["Cliente_Codigo"] for c in sandbox.store.rows("contracts") if c["Situacao_Codigo"] == "A"}
    return next(c["Codigo"] for c in sandbox.store.rows("customers") if c["Codigo"] in active - busy)


async def test_open_tickets_with_status_service_order_and_appointment_in_words(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.command("chamados")
    assert "Você tem 1 chamado aberto" in chat.text
    assert "Chamado nº 70001 · Sem conexão" in chat.text
    assert "Sem conexão desde ontem à noite" in chat.text
    assert "Aberto em 09/03/2025 08:00" in chat.text
    assert "Situação: em atendimento" in chat.text
    assert "Ordem de serviço: na fila para o técnico" in chat.text
    assert "Visita agendada: 10/03/2025 14:00 (confirmada)" in chat.text
    assert "2025012970002" not in chat.text  # closed in January
    assert "Como posso ajudar" in chat.text


async def test_english_dates_and_words(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA, language="en")
    await chat.command("tickets")
    assert "You have 1 open ticket" in chat.text
    assert "Service order: queued for a technician" in chat.text
    assert "Visit scheduled: 3/10/2025, 2:00\u202fPM (confirmed)" in chat.text


async def test_service_order_on_the_way_and_a_queued_ticket(desk: Desk) -> None:
    ticket = desk.sandbox.store.find("tickets", Numero=DEMO_IDENTITIES.ticket)
    assert ticket is not None
    ticket.update(Situacao_OS="A", Designacao_Tipo="", Data_Agendamento=None, Hora_Agendamento=None)
    chat = await desk.linked_chat(MARIA, language="es")
    await chat.command("reclamos")
    assert "Orden de servicio: técnico en camino" in chat.text
    assert "Estado: en cola, esperando atención" in chat.text
    assert "Visita" not in chat.text


async def test_a_ticket_just_opened_is_listed(desk: Desk) -> None:
    customer = without_open_tickets(desk.sandbox)
    chat = await desk.linked_chat(customer)
    await chat.command("chamado")
    await chat.tap("Lentidão")
    await chat.say("Cai toda noite")
    await chat.tap("Abrir chamado")
    await chat.command("meuschamados")
    assert "Você tem 1 chamado aberto" in chat.text
    assert "· Lentidão" in chat.text
    assert "Aberto em 10/03/2025 09:30" in chat.text


async def test_none_open_is_a_friendly_answer(desk: Desk) -> None:
    chat = await desk.linked_chat(without_open_tickets(desk.sandbox))
    await chat.command("chamados")
    assert "Você não tem nenhum chamado aberto" in chat.text
    assert "Como posso ajudar" in chat.text


async def test_isp_down_is_said_in_plain_words(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    desk.expire_caches()
    desk.sandbox.faults.go_down()
    await chat.command("chamados")
    assert "Nosso sistema está fora do ar" in chat.text
