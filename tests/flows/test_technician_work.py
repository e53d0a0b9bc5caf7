"""The technician's work on the ticket in hand, through the engine against the sandbox: occurrence,
checklist, materials and finish, with the refusals and the unknown outcomes of a phone in the field."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

import pytest
from bot.isp import IspTimeout
from bot.isp.models import v2_requests
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox
from bot.store import ChatStates
from flows.policy import Policy

from tests.flows.harness import Desk, TestChat, make_desk
from tests.store.dbtools import ScratchDatabase

TICKET = D.ticket  # 70001: Maria's (customer 1001), assigned to tecnico.joao, checklist 1*, 2*, 5


async def in_hand(desk: Desk, ticket: int = TICKET, language: str = "pt-br") -> TestChat:
    """A technician's chat with ``ticket`` in hand, at the ticket's card."""
    chat = await desk.technician_chat(language=language)
    async with desk.database.transaction() as session:
        states = ChatStates()
        state = await states.load(session, chat.chat_id)
        state.current_ticket = ticket
        await states.save(session, state)
    await chat.command("os")
    assert f"#{ticket}" in chat.text
    return chat


def occurrences(desk: Desk, ticket: int = TICKET) -> list[dict[str, Any]]:
    return [o for o in desk.sandbox.store.rows("occurrences") if o["Atendimento_Numero"] == ticket]


def checklist(desk: Desk, ticket: int = TICKET) -> dict[int, str]:
    rows = desk.sandbox.store.rows("ticket_checklists")
    return {r["Checklist_Id"]: r["Checklist_Status"] for r in rows if r["Atendimento_Numero"] == ticket}


def items(desk: Desk, ticket: int = TICKET) -> list[dict[str, Any]]:
    return [i for i in desk.sandbox.store.rows("ticket_items") if i["ticket_id"] == ticket]


def answer_lost(monkeypatch: pytest.MonkeyPatch, desk: Desk, operation: str) -> None:
    """The next ``operation`` reaches the ISP and is applied, but its answer never comes back."""
    real: Callable[..., Awaitable[Any]] = getattr(desk.client, operation)
    calls = {"n": 0}

    async def lost(request: Any) -> Any:
        calls["n"] += 1
        result = await real(request)
        if calls["n"] == 1:
            error = IspTimeout(f"{operation}: no answer", operation=operation)
            error.outcome_unknown = True
            raise error
        return result

    monkeypatch.setattr(desk.client, operation, lost)


# ---- occurrence ----------------------------------------------------------------------------------
async def test_a_note_is_recorded_on_the_ticket_with_the_position_shared_just_before(desk: Desk) -> None:
    chat = await in_hand(desk)
    await chat.tap("Ocorrência")
    await chat.share_location(-23.5505, -46.6333)
    assert "Posição anotada" in chat.text
    await chat.say("Cliente ausente, vizinho abriu o portão")
    assert "registrada" in chat.text and "com a sua posição" in chat.text
    note = occurrences(desk)[-1]
    assert note["Descricao"] == "Cliente ausente, vizinho abriu o portão"
    assert (note["Latitude"], note["Longitude"]) == pytest.approx((-23.5505, -46.6333))
    assert note["Modo"] == "M"
    assert "Chamado #70001" in chat.text  # back at the ticket


async def test_a_photo_caption_is_the_note_and_a_stale_or_null_position_is_not_sent(desk: Desk) -> None:
    chat = await in_hand(desk)
    await chat.tap("Ocorrência")
    await chat.share_location(0, 0)
    assert "não é válida" in chat.text
    await chat.share_location(-23.5505, -46.6333)
    desk.clock.advance(minutes=20)  # the position is no longer where the technician is
    await chat.send_media("photo")
    assert "legenda" in chat.text
    await chat.send_media("photo", "Caixa de emenda aberta")
    note = occurrences(desk)[-1]
    assert note["Descricao"] == "Caixa de emenda aberta"
    assert note["Latitude"] is None and note["Longitude"] is None


async def test_the_position_sent_with_a_status_move_lately_goes_with_the_note(desk: Desk) -> None:
    chat = await in_hand(desk)
    coordinates = v2_requests.OsCoordinates(latitude=Decimal("-23.56"), longitude=Decimal("-46.64"))
    for status in (v2_requests.OsStatus.ON_THE_WAY, v2_requests.OsStatus.RUNNING):
        await desk.client.ticket_os_status_update(v2_requests.TicketOsStatusUpdate(
            ticket_id=TICKET, new_status=status, coordinates=coordinates, user=D.technician))
    await chat.tap("Ocorrência")
    await chat.say("Sinal óptico em -19 dBm")
    note = occurrences(desk)[-1]
    assert note["Descricao"] == "Sinal óptico em -19 dBm"
    assert (note["Latitude"], note["Longitude"]) == pytest.approx((-23.56, -46.64))


async def test_a_note_whose_answer_was_lost_is_checked_not_recorded_twice(
    desk: Desk, monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = await in_hand(desk)
    answer_lost(monkeypatch, desk, "ticket_occurrence_insert")
    await chat.tap("Ocorrência")
    await chat.say("Poste caído na rua")
    assert "pode ter registrado a nota" in chat.text
    await chat.tap("Verificar")  # reads the occurrences back: the note is there
    assert "Ocorrência registrada" in chat.text
    assert [o["Descricao"] for o in occurrences(desk)].count("Poste caído na rua") == 1


async def test_a_note_that_never_landed_is_waited_for_then_sent_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = await in_hand(desk)

    async def never(request: Any) -> Any:
        error = IspTimeout("ticket_occurrence_insert: no answer", operation="ticket_occurrence_insert")
        error.outcome_unknown = True
        raise error

    real = desk.client.ticket_occurrence_insert
    monkeypatch.setattr(desk.client, "ticket_occurrence_insert", never)
    await chat.tap("Ocorrência")
    await chat.say("Poste caído na rua")
    monkeypatch.setattr(desk.client, "ticket_occurrence_insert", real)
    await chat.tap("Verificar")  # at once: the ISP may still be writing it
    assert "Ainda não encontrei a nota" in chat.text
    desk.clock.advance(minutes=3)
    await chat.tap("Verificar")
    assert "Ocorrência registrada" in chat.text
    assert [o["Descricao"] for o in occurrences(desk)].count("Poste caído na rua") == 1


# ---- checklist -----------------------------------------------------------------------------------
async def test_checklist_items_toggle_in_the_isp_and_mandatory_ones_are_marked(desk: Desk) -> None:
    chat = await in_hand(desk)
    await chat.tap("Checklist")
    assert "⬜ Conferir sinal óptico na ONU *" in chat.buttons
    assert "⬜ Orientar sobre o Wi-Fi" in chat.buttons  # not mandatory: no star
    await chat.tap("Conferir sinal")
    assert checklist(desk)[1] == "S"  # M
    assert "✅ Conferir sinal óptico na ONU *" in chat.buttons
    await chat.tap("Conferir sinal")
    assert checklist(desk)[1] == "N"  # D
    await chat.tap("Pronto")
    assert "Chamado #70001" in chat.text


# ---- materials ----------------------------------------------------------------------------------
# The desk's stock catalog is the sandbox's: label code 2001 is product 3 "Drop óptico (metro)",
# 2002 the SC/APC connector (4), 1001 the serial-controlled ONU (1); locations 1 and 2 by name.
async def test_a_product_found_by_name_shows_its_code_and_is_recorded_with_names(desk: Desk) -> None:
    chat = await in_hand(desk)
    await chat.tap("Materiais")
    await chat.tap("Usado")
    await chat.say("drop")  # part of the name: the products come with their label codes
    assert "2001 · Drop óptico (metro)" in chat.buttons
    await chat.tap("2001")
    assert "quantidade" in chat.text and "Sem série" not in chat.buttons  # not serial-controlled
    for bad in ("0", "-2", "1,555", "muito"):
        await chat.say(bad)
        assert "Quantidade inválida" in chat.text
    assert items(desk) == []
    await chat.say("35,5")
    assert chat.buttons == ["Almoxarifado central", "Veículo técnico 01"]  # chosen, not typed
    await chat.tap("Almoxarifado")
    assert "2001 · Drop óptico (metro)" in chat.text
    assert "Quantidade 35,5 · local Almoxarifado central" in chat.text
    assert "Produto 3" not in chat.text
    await chat.tap("Registrar")
    assert "Registrado: 2001 · Drop óptico (metro), quantidade 35,5" in chat.text
    [item] = items(desk)
    assert (item["operation"], item["product_id"], item["quantity"], item["serial_number"]) == (
        "consumption", 3, 35.5, None)


async def test_the_label_code_is_resolved_at_once_and_an_unknown_one_refused_there(desk: Desk) -> None:
    chat = await in_hand(desk)
    await chat.tap("Materiais")
    await chat.tap("Usado")
    await chat.say("2999")
    assert "Nenhum produto com o código 2999" in chat.text
    assert "quantidade" not in chat.text and "série" not in chat.text  # nothing else asked
    await chat.say("2002")  # the label's code, not the system's internal id (4)
    await chat.say("2")
    await chat.tap("Veículo")  # no balance there in the sandbox
    await chat.tap("Registrar")
    assert "recusou" in chat.text and "saldo" in chat.text
    assert "outro local de estoque" in chat.text  # the amount or the place is what to change
    assert "código" not in chat.text and "série" not in chat.text  # not a hint about codes and serials
    await chat.say("duas")  # a count said as people say it
    await chat.tap("Almoxarifado")
    await chat.tap("Registrar")
    [item] = items(desk)
    assert (item["product_id"], item["quantity"]) == (4, 2)


async def test_a_lent_serial_item_needs_its_serial_and_goes_on_the_contract(desk: Desk) -> None:
    chat = await in_hand(desk)
    await chat.tap("Materiais")
    await chat.tap("Emprestado")
    await chat.say("1001")  # the ONU: serial-controlled, so no "no serial" way out
    assert "1001 · ONU GPON Huawei HG8145" in chat.text and "número de série" in chat.text
    assert "Sem série" not in chat.buttons
    await chat.say("SN01000001")
    assert "quantidade 1" in chat.text
    await chat.tap("Registrar")
    [item] = items(desk)
    assert (item["operation"], item["product_id"], item["serial_number"], item["quantity"]) == (
        "lending", 1, "SN01000001", 1)
    assert item["contract_id"] is not None


async def test_numbers_follow_the_language(desk: Desk) -> None:
    chat = await in_hand(desk, language="en")
    await chat.tap("Materials")
    await chat.tap("Used")
    await chat.say("2001")
    await chat.say("35.5")
    await chat.tap("Almoxarifado")
    assert "Quantity 35.5 · location Almoxarifado central" in chat.text


async def test_an_item_whose_answer_was_lost_is_never_sent_again(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    chat = await in_hand(desk)
    answer_lost(monkeypatch, desk, "ticket_item_insert")
    await chat.tap("Materiais")
    await chat.tap("Usado")
    await chat.say("2002")
    await chat.say("2")
    await chat.tap("Almoxarifado")
    await chat.tap("Registrar")
    assert "pode ter registrado" in chat.text
    assert "Registrar" not in " ".join(chat.buttons)
    assert len(items(desk)) == 1


async def test_without_a_stock_catalog_the_internal_id_and_the_isps_refusal_lead(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    desk = make_desk(sandbox, database, clock, Policy())
    try:
        chat = await in_hand(desk)
        await chat.tap("Materiais")
        await chat.tap("Emprestado")
        await chat.say("onu")  # no catalog: the ISP's models, names only
        assert "ONU GPON HG8145" in chat.text
        await chat.say("1")  # the internal id
        await chat.tap("Sem série")
        await chat.say("1")
        await chat.say("1")  # the location, typed
        await chat.tap("Registrar")
        assert "recusou" in chat.text and "série" in chat.text
        assert items(desk) == []
        await chat.say("SN01000001")
        await chat.tap("Registrar")
        [item] = items(desk)
        assert (item["product_id"], item["serial_number"]) == (1, "SN01000001")
    finally:
        await desk.client.aclose()


# ---- finish --------------------------------------------------------------------------------------
async def test_finishing_is_refused_while_a_mandatory_item_is_unchecked(desk: Desk) -> None:
    chat = await in_hand(desk)
    await chat.tap("Encerrar")
    assert "faltam itens obrigatórios" in chat.text
    assert "Conferir sinal óptico na ONU" in chat.text and "Testar velocidade" in chat.text
    assert "Orientar sobre o Wi-Fi" not in chat.text
    assert desk.sandbox.store.find("tickets", Numero=TICKET)["Encerramento_DataHora"] is None


async def check_mandatory(chat: TestChat) -> None:
    await chat.tap("Checklist")
    await chat.tap("Conferir sinal")
    await chat.tap("Testar velocidade")
    await chat.tap("Pronto")


async def test_finish_closes_the_ticket_and_tells_the_subscriber_with_the_survey(desk: Desk) -> None:
    maria = await desk.linked_chat()
    chat = await in_hand(desk)
    await check_mandatory(chat)
    await chat.tap("Encerrar")
    assert "Boleto enviado" not in " ".join(chat.buttons)  # causes of technical tickets only
    await chat.tap("ONU travada")
    await chat.say("ONU reiniciada e sinal conferido")
    assert "ONU travada" in chat.text and "ONU reiniciada" in chat.text
    await chat.tap("Encerrar")
    assert "Chamado #70001 encerrado" in chat.text
    closed = (await desk.client.ConsultaAtendimentos())
    ticket = next(t for t in closed if t.Numero == TICKET)
    assert ticket.Encerramento_DataHora is not None
    assert (ticket.Causa, ticket.Solucao) == ("ONU travada", "ONU reiniciada e sinal conferido")
    [notice] = desk.notices_for(maria.chat_id)
    assert "visita técnica do chamado nº 70001" in notice and "https://pesquisa.provedor.example.com.br/q/" in notice
    async with desk.database.transaction() as session:
        assert (await ChatStates().load(session, chat.chat_id)).current_ticket is None


async def test_a_finish_whose_answer_was_lost_is_checked_not_applied_twice(
    desk: Desk, monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = await in_hand(desk)
    await check_mandatory(chat)
    answer_lost(monkeypatch, desk, "ticket_finish")
    await chat.tap("Encerrar")
    await chat.tap("Cabo rompido")
    await chat.say("Drop trocado")
    await chat.tap("Encerrar")
    assert "pode ter encerrado" in chat.text
    await chat.tap("Encerrar")  # reads the ticket back: closed with this solution, so done
    assert "Chamado #70001 encerrado" in chat.text
    closings = [o for o in occurrences(desk) if o["Descricao"].startswith("Atendimento encerrado")]
    assert len(closings) == 1


async def test_a_ticket_taken_away_from_the_technician_is_refused(desk: Desk) -> None:
    chat = await in_hand(desk)
    desk.sandbox.store.find("tickets", Numero=TICKET)["Designacao_Usuario"] = "tecnico.maria"
    await chat.tap("Encerrar")
    assert "não está designado para você" in chat.text
    assert desk.sandbox.store.find("tickets", Numero=TICKET)["Encerramento_DataHora"] is None


async def test_a_checklist_item_whose_answer_was_lost_is_read_back_and_shown_set(
    desk: Desk, monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = await in_hand(desk)
    await chat.tap("Checklist")
    answer_lost(monkeypatch, desk, "ticket_checklist_update")
    await chat.tap("Conferir sinal")
    assert "fora do ar" not in chat.text  # the checklist read back shows the item checked
    assert "✅ Conferir sinal óptico na ONU *" in chat.buttons
    assert checklist(desk)[1] == "S" and desk.sandbox.call_count("ticket_checklist_update") == 1


async def test_an_outage_at_the_checklist_is_told_and_one_tap_retries(desk: Desk) -> None:
    chat = await in_hand(desk)
    await chat.tap("Checklist")
    desk.sandbox.faults.fail_next(operation="ticket_checklist_update")
    await chat.tap("Conferir sinal")
    assert "fora do ar" in chat.text
    assert checklist(desk)[1] == "N"
    await chat.tap("Conferir sinal")  # the same question, asked again
    assert checklist(desk)[1] == "S"
