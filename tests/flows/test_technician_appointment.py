"""The appointment of the ticket in hand: confirmed, or rescheduled to a valid day and time."""

from __future__ import annotations

from typing import Any

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox

from tests.flows.harness import Desk, TestChat, losing_answers
from tests.store.dbtools import ScratchDatabase


def ticket(desk: Desk) -> dict[str, Any]:
    row = desk.sandbox.store.find("tickets", Numero=D.ticket)
    assert row is not None
    return row


async def appointment_of_70001(desk: Desk) -> TestChat:
    chat = await desk.technician_chat()
    await chat.command("agenda")
    await chat.tap("#70001")
    await chat.tap("Agendamento")
    return chat


async def test_a_reschedule_is_recorded_in_the_isp_keeping_the_duration(desk: Desk) -> None:
    maria = await desk.linked_chat()
    chat = await appointment_of_70001(desk)
    assert "agendado para 10/03/2025 às 14:00" in chat.text and "confirmado" in chat.text
    assert "Confirmar" not in " ".join(chat.buttons)  # already confirmed
    await chat.tap("Remarcar")
    assert chat.buttons[:2] == ["seg. 10/03", "ter. 11/03"]
    await chat.tap("ter. 11/03")
    await chat.say("10h30")
    assert "novo horário 11/03/2025 às 10:30" in chat.text
    await chat.tap("a confirmar")
    assert "agendado para 11/03/2025 às 10:30, a confirmar" in chat.text
    assert "Chamado #70001" in chat.text  # back on the card
    row = ticket(desk)
    assert (row["Data_Agendamento"], row["Hora_Agendamento"], row["Duracao_Agendamento"],
            row["Situacao_Agendamento"]) == ("2025-03-11", "10:30:00", "01:30:00", "to_confirm")
    [told] = desk.notices_for(maria.chat_id)
    assert "visita técnica do seu chamado nº 70001" in told and "11/03/2025 às 10:30" in told
    assert "protocolo" not in told  # "protocolo" is the contact's alone


async def test_the_new_day_can_be_said_in_words(desk: Desk) -> None:
    chat = await appointment_of_70001(desk)
    await chat.tap("Remarcar")
    await chat.say("sexta-feira")  # Monday 10 March: Friday the 14th
    await chat.say("9h")
    assert "novo horário 14/03/2025 às 09:00" in chat.text
    await chat.command("os")  # not saved: back to the card
    await chat.tap("Agendamento")
    await chat.tap("Remarcar")
    await chat.say("ontem")
    assert "Esse dia já passou" in chat.text


async def test_a_day_or_time_in_the_past_or_over_another_appointment_is_refused(desk: Desk) -> None:
    desk.sandbox.store.insert("appointments", {
        "id": 900, "description": "Reunião", "customer_id": None, "appointment_date": "2025-03-11",
        "appointment_time": "10:00", "duration": "01:00", "user": D.technician, "recurrence": "no",
        "period": None, "event_color": None, "reminder": "none", "local": None, "status": "confirmed",
        "comments": None, "pre_appointment_type": None,
    })
    chat = await appointment_of_70001(desk)
    await chat.tap("Remarcar")
    await chat.say("01/03")
    assert "Esse dia já passou" in chat.text
    await chat.say("31/02")
    assert "Não entendi esse dia" in chat.text
    await chat.say("10/03")  # today, 09:30 now
    assert chat.buttons[:2] == ["10:00", "13:00"]  # 08:00 is over
    await chat.say("08:00")
    assert "Esse horário já passou" in chat.text
    await chat.say("14:30")  # over its own appointment only: fine
    assert "novo horário 10/03/2025 às 14:30" in chat.text
    await chat.tap("Voltar")
    await chat.tap("Agendamento")
    await chat.tap("Remarcar")
    await chat.tap("11/03")
    await chat.tap("10:00")
    assert "já tem um compromisso (10:00–11:00)" in chat.text
    assert ticket(desk)["Data_Agendamento"] == "2025-03-10"


async def test_an_appointment_to_be_confirmed_is_confirmed(desk: Desk) -> None:
    ticket(desk)["Situacao_Agendamento"] = "to_confirm"
    chat = await appointment_of_70001(desk)
    assert "a confirmar" in chat.text
    await chat.tap("Confirmar")
    assert "agendado para 10/03/2025 às 14:00, confirmado" in chat.text
    row = ticket(desk)
    assert (row["Data_Agendamento"], row["Hora_Agendamento"], row["Situacao_Agendamento"]) == (
        "2025-03-10", "14:00:00", "confirmed")


async def test_a_ticket_without_an_appointment_gets_one(desk: Desk) -> None:
    ticket(desk).update({"Data_Agendamento": None, "Hora_Agendamento": None, "Duracao_Agendamento": None,
                         "Situacao_Agendamento": ""})
    chat = await appointment_of_70001(desk)
    assert "não tem agendamento" in chat.text
    await chat.tap("Agendar")
    await chat.tap("11/03")
    await chat.tap("15:00")
    await chat.tap("confirmado com o cliente")
    row = ticket(desk)
    assert (row["Data_Agendamento"], row["Hora_Agendamento"], row["Duracao_Agendamento"],
            row["Situacao_Agendamento"]) == ("2025-03-11", "15:00:00", "01:00:00", "confirmed")


async def test_an_appointment_whose_answer_was_lost_is_read_back_and_told_as_saved(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    async with losing_answers(sandbox, database, clock, "ticket_appointment_update") as desk:
        maria = await desk.linked_chat()
        chat = await appointment_of_70001(desk)
        await chat.tap("Remarcar")
        await chat.tap("ter. 11/03")
        await chat.say("10h30")
        await chat.tap("a confirmar")
        assert "agendado para 11/03/2025 às 10:30, a confirmar" in chat.text
        assert desk.sandbox.call_count("ticket_appointment_update") == 1
        assert len(desk.notices_for(maria.chat_id)) == 1


async def test_an_appointment_cut_before_it_landed_is_told_and_asked_again(desk: Desk) -> None:
    chat = await appointment_of_70001(desk)
    await chat.tap("Remarcar")
    await chat.tap("ter. 11/03")
    await chat.say("10h30")
    desk.sandbox.faults.fail_next(operation="ticket_appointment_update")  # HTTP 500: nothing written
    await chat.tap("a confirmar")
    assert ticket(desk)["Data_Agendamento"] == "2025-03-10"
    assert any("a confirmar" in label for label in chat.buttons)  # the same question again
    await chat.tap("a confirmar")
    assert "agendado para 11/03/2025 às 10:30, a confirmar" in chat.text
