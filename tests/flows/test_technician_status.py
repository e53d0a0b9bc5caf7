"""The service order's status on the ticket in hand: only allowed moves, the subscriber told when the
technician is on the way, a valid position for running, refusals explained, unknown outcomes checked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from bot.isp import IspApiError, IspTimeout
from bot.isp.errors import Generation
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox
from bot.sandbox.rules import tickets as sandbox_tickets
from bot.store import ChatStates
from flows.policy import Policy
from flows.replies import AskLocation

from tests.flows.harness import Desk, LoseAnswers, TestChat, make_desk
from tests.store.dbtools import ScratchDatabase

OP = "ticket_os_status_update"


def ticket(desk: Desk, number: int = D.ticket) -> dict[str, Any]:
    row = desk.sandbox.store.find("tickets", Numero=number)
    assert row is not None
    return row


def moves_recorded(desk: Desk, target: str) -> list[dict[str, Any]]:
    return [o for o in desk.sandbox.store.where("occurrences", Atendimento_Numero=D.ticket)
            if o["Descricao"] == f"Status da OS alterado para {target}"]


async def status_of_70001(desk: Desk) -> TestChat:
    chat = await desk.technician_chat()
    await chat.command("agenda")
    await chat.tap("#70001")
    await chat.tap("Status da OS")
    return chat


async def test_on_the_way_tells_marias_linked_chat_and_shows_the_card(desk: Desk) -> None:
    maria = await desk.linked_chat()
    chat = await status_of_70001(desk)
    assert "está na fila" in chat.text
    assert chat.buttons == ["🚗 A caminho", "⛔ Abortar", "✅ Concluída", "↩️ Voltar ao chamado"]
    await chat.tap("A caminho")
    assert "OS a caminho" in chat.text and "O cliente foi avisado" in chat.text
    assert "OS: a caminho" in chat.text  # back on the card, read fresh
    assert ticket(desk)["Situacao_OS"] == "A"
    notices = desk.notices_for(maria.chat_id)
    assert len(notices) == 1 and "técnico está a caminho" in notices[0]
    assert "chamado nº 70001" in notices[0]  # her ticket, named as a ticket ("protocolo" is a contact's)
    assert "2025030970001" not in notices[0] and "protocolo" not in notices[0]


async def test_abort_asks_for_the_reason_and_a_confirmation_and_records_the_reason(desk: Desk) -> None:
    chat = await status_of_70001(desk)
    await chat.tap("Abortar")
    assert "escreva o motivo" in chat.text
    assert ticket(desk)["Situacao_OS"] == "F"  # one tap aborts nothing
    await chat.tap("Voltar ao chamado")
    assert "OS: na fila" in chat.text
    await chat.tap("Status da OS")
    await chat.tap("Abortar")
    await chat.say("Cliente ausente & portão trancado")
    assert "Abortar a OS do chamado #70001?" in chat.text and "Cliente ausente & portão trancado" in chat.text
    assert ticket(desk)["Situacao_OS"] == "F"
    await chat.tap("Sim, abortar")
    assert "OS abortada" in chat.text and "Motivo registrado" in chat.text
    assert ticket(desk)["Situacao_OS"] == "B"
    notes = [o["Descricao"] for o in desk.sandbox.store.where("occurrences", Atendimento_Numero=D.ticket)]
    assert "OS abortada pelo técnico. Motivo: Cliente ausente & portão trancado" in notes


async def test_an_abort_whose_reason_cannot_be_recorded_says_so(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    async def refused(_: Any) -> None:
        raise IspApiError(operation="ticket_occurrence_insert", generation=Generation.V2, code=99,
                          description="indisponível")

    chat = await status_of_70001(desk)
    await chat.tap("Abortar")
    await chat.say("Poste caído na rua")
    monkeypatch.setattr(desk.client, "ticket_occurrence_insert", refused)
    await chat.tap("Sim, abortar")
    assert "OS abortada" in chat.text and "Motivo registrado" not in chat.text
    assert "não ficou registrado" in chat.text and "Poste caído na rua" in chat.text
    assert ticket(desk)["Situacao_OS"] == "B"


async def abort_70001(desk: Desk, reason: str) -> TestChat:
    """Abort 70001's order with ``reason``, up to the confirmation (nothing sent yet)."""
    chat = await status_of_70001(desk)
    await chat.tap("Abortar")
    await chat.say(reason)
    return chat


def reasons(desk: Desk, reason: str) -> int:
    """How many times the abort's reason is on 70001."""
    return [o["Descricao"] for o in desk.sandbox.store.where("occurrences", Atendimento_Numero=D.ticket)].count(
        f"OS abortada pelo técnico. Motivo: {reason}")


async def test_a_reason_whose_answer_was_lost_is_read_back_and_told_recorded(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    lossy = LoseAnswers(httpx.ASGITransport(app=sandbox.app), "ticket_occurrence_insert")
    desk = make_desk(sandbox, database, clock, Policy(), http_transport=lossy)
    try:
        chat = await abort_70001(desk, "Poste caído na rua")
        await chat.tap("Sim, abortar")
        assert "OS abortada" in chat.text and "Motivo registrado" in chat.text
        assert "registre-o como ocorrência" not in chat.text  # it is there: no second one asked for
        assert reasons(desk, "Poste caído na rua") == 1 and sandbox.call_count("ticket_occurrence_insert") == 1
        # The reading back failing too: maybe recorded, said so (not "write it again").
        lossy.times = 1
        lossy.then = lambda: sandbox.faults.go_down(operation="ConsultaOcorrenciasAtendimentos")
        ticket(desk)["Situacao_OS"] = "F"
        chat = await abort_70001(desk, "Cliente mudou de endereço")
        await chat.tap("Sim, abortar")
        assert "OS abortada" in chat.text and "Motivo registrado" not in chat.text
        assert "pode tê-lo registrado" in chat.text and "Cliente mudou de endereço" in chat.text
        assert "registre-o como ocorrência" not in chat.text
        assert reasons(desk, "Cliente mudou de endereço") == 1
    finally:
        await desk.client.aclose()


async def test_a_reason_whose_answer_never_came_is_told_unsure_not_to_write_again(
    desk: Desk, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def no_answer(_: Any) -> None:
        error = IspTimeout("ticket_occurrence_insert: no answer", operation="ticket_occurrence_insert")
        error.outcome_unknown = True  # the ISP may still be writing it
        raise error

    chat = await abort_70001(desk, "Poste caído na rua")
    monkeypatch.setattr(desk.client, "ticket_occurrence_insert", no_answer)
    await chat.tap("Sim, abortar")
    assert "OS abortada" in chat.text and "Motivo registrado" not in chat.text
    assert "pode tê-lo registrado" in chat.text and "Confira as ocorrências" in chat.text
    assert "Poste caído na rua" in chat.text  # the reason, for the technician to compare
    assert ticket(desk)["Situacao_OS"] == "B"


async def test_running_needs_a_valid_position_and_records_it(desk: Desk) -> None:
    ticket(desk)["Situacao_OS"] = "A"
    chat = await status_of_70001(desk)
    await chat.tap("Em execução")
    assert isinstance(chat.last(AskLocation), AskLocation)
    await chat.say("já cheguei")
    assert "Preciso da localização" in chat.text and isinstance(chat.last(AskLocation), AskLocation)
    for latitude, longitude in ((0.0, 0.0), (95.0, -46.6), (-23.5, 181.0), (-23.5, 0.0)):
        await chat.share_location(latitude, longitude)
        assert "não é válida" in chat.text and isinstance(chat.last(AskLocation), AskLocation)
    assert ticket(desk)["Situacao_OS"] == "A"
    assert moves_recorded(desk, "running") == []
    await chat.share_location(-23.5874162, -46.6345219)
    assert "OS em execução" in chat.text
    assert ticket(desk)["Situacao_OS"] == "E"
    [move] = moves_recorded(desk, "running")
    assert (move["Latitude"], move["Longitude"]) == (pytest.approx(-23.5874162), pytest.approx(-46.6345219))
    assert move["Usuario"] != ""  # recorded as the technician's user


async def test_a_live_location_counts_for_running(desk: Desk) -> None:
    ticket(desk)["Situacao_OS"] = "P"
    chat = await status_of_70001(desk)
    await chat.tap("Em execução")
    await chat.share_location(-23.55, -46.63, live=True)
    assert "OS em execução" in chat.text
    assert len(moves_recorded(desk, "running")) == 1


async def test_a_move_the_fresh_status_does_not_allow_is_explained_with_the_allowed_ones(desk: Desk) -> None:
    chat = await status_of_70001(desk)
    ticket(desk)["Situacao_OS"] = "E"  # someone moved it in the ISP system meanwhile
    await chat.tap("A caminho")
    assert "De em execução a OS não pode ir para a caminho" in chat.text
    assert "pausada, concluída, abortada" in chat.text
    assert chat.buttons == ["⏸️ Pausar", "✅ Concluída", "⛔ Abortar", "↩️ Voltar ao chamado"]
    assert moves_recorded(desk, "on_the_way") == []


async def test_the_isps_error_15_is_explained_with_the_moves_it_lists(
    desk: Desk, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An ISP stricter than the bot's table: from the queue only aborted or completed.
    monkeypatch.setitem(sandbox_tickets.OS_TRANSITIONS, "F", ("aborted", "completed"))
    chat = await status_of_70001(desk)
    await chat.tap("A caminho")
    assert "não aceitou ir para a caminho" in chat.text
    assert "pode ir para: abortada, concluída" in chat.text
    assert chat.buttons == ["⛔ Abortar", "✅ Concluída", "↩️ Voltar ao chamado"]
    assert ticket(desk)["Situacao_OS"] == "F"


async def test_a_ticket_no_longer_assigned_to_the_technician_is_refused(desk: Desk) -> None:
    chat = await desk.technician_chat()
    await chat.command("agenda")
    await chat.tap("#70001")
    ticket(desk)["Designacao_Usuario"] = "tecnico.maria"  # reassigned meanwhile
    await chat.tap("Status da OS")
    assert "não está designado para você" in chat.text
    assert ticket(desk)["Situacao_OS"] == "F"


async def test_someone_elses_ticket_put_in_hand_is_refused(desk: Desk) -> None:
    other = next(t for t in desk.sandbox.store.rows("tickets")
                 if t["Designacao_Usuario"] == "tecnico.maria" and not t["Encerramento_DataHora"])
    chat = await desk.technician_chat()
    await chat.command("agenda")
    await chat.tap("#70001")
    async with desk.database.transaction() as session:  # the ticket in hand swapped under the card
        states = ChatStates()
        state = await states.load(session, chat.chat_id)
        state.current_ticket = other["Numero"]
        await states.save(session, state)
    await chat.tap("Status da OS")
    assert "não está designado para você" in chat.text
    assert moves_recorded(desk, "on_the_way") == []


# ---- writes whose outcome is unknown ------------------------------------------------------------------
@pytest.fixture
def lossy(sandbox: Sandbox) -> LoseAnswers:
    return LoseAnswers(httpx.ASGITransport(app=sandbox.app), OP)


@pytest.fixture
async def lossy_desk(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock, lossy: LoseAnswers,
) -> AsyncIterator[Desk]:
    desk = make_desk(sandbox, database, clock, Policy(), http_transport=lossy)
    yield desk
    await desk.client.aclose()


async def test_a_move_whose_answer_was_lost_is_read_back_and_never_sent_twice(lossy_desk: Desk) -> None:
    desk = lossy_desk
    maria = await desk.linked_chat()
    chat = await status_of_70001(desk)
    await chat.tap("A caminho")
    assert "OS a caminho" in chat.text  # the re-read shows it landed
    assert len(moves_recorded(desk, "on_the_way")) == 1
    assert len(desk.notices_for(maria.chat_id)) == 1
    assert desk.sandbox.call_count(OP) == 1


async def test_a_move_cut_before_it_landed_is_offered_again_only_after_a_read(desk: Desk) -> None:
    chat = await status_of_70001(desk)
    desk.sandbox.faults.fail_next(operation=OP)  # HTTP 500: a transport error, nothing written
    await chat.tap("A caminho")
    assert "não registrou a caminho" in chat.text
    assert "🚗 A caminho" in chat.buttons
    await chat.tap("A caminho")
    assert "OS a caminho" in chat.text
    assert len(moves_recorded(desk, "on_the_way")) == 1


async def test_when_the_read_back_fails_too_one_tap_checks_before_anything_else(
    lossy_desk: Desk, lossy: LoseAnswers,
) -> None:
    desk = lossy_desk
    chat = await status_of_70001(desk)
    lossy.then = lambda: desk.sandbox.faults.go_down(operation="ConsultaAtendimentos")
    await chat.tap("A caminho")
    assert "Não sei se o sistema registrou" in chat.text
    assert chat.buttons == ["🔄 Verificar de novo", "↩️ Voltar ao chamado"]
    await chat.tap("Verificar")  # still down: said plainly, the same question again
    assert "Verificar de novo" in " ".join(chat.buttons)
    desk.sandbox.faults.come_back()
    await chat.tap("Verificar")
    assert "OS a caminho" in chat.text
    assert desk.sandbox.call_count(OP) == 1
