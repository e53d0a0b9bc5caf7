"""Contracts: plan, status in words and value; the contract the chat speaks for; unblock in trust
under the operator's policy, told to the ISP's staff on a ticket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from bot.i18n import LANGUAGES, default_translations
from bot.isp import F
from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox
from bot.store import ChatStates
from flows.policy import Policy

from tests.flows.harness import Desk, losing_answers, make_desk
from tests.store.dbtools import ScratchDatabase

JOAO = DEMO_IDENTITIES.blocked_customer
BLOCKED = DEMO_IDENTITIES.blocked_contract
COMPANY = DEMO_IDENTITIES.company
SUBJECT = "Desbloqueio em confiança (Telegram)"


@pytest.fixture
async def strict_desk(
    request: pytest.FixtureRequest, sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> AsyncIterator[Desk]:
    """A desk under the policy the test names with ``@pytest.mark.parametrize("strict_desk", [...], indirect=True)``."""
    desk = make_desk(sandbox, database, clock, request.param)
    yield desk
    await desk.client.aclose()


def _state(desk: Desk, contract: int) -> str:
    row = desk.sandbox.store.find("contracts", Numero=contract)
    assert row is not None
    return str(row["Situacao_Codigo"])


def _bot_tickets(desk: Desk, customer: int) -> list[dict[str, Any]]:
    return [t for t in desk.sandbox.store.where("tickets", CodigoCliente=customer) if t["Assunto"] == SUBJECT]


async def _ask_unblock(desk: Desk) -> Any:
    chat = await desk.linked_chat(JOAO)
    await chat.command("contratos")
    assert "Bloqueado" in chat.text
    await chat.tap("Desbloqueio em confiança")
    return chat


async def test_contracts_are_listed_with_plan_status_in_words_and_value(desk: Desk) -> None:
    chat = await desk.linked_chat(COMPANY)
    await chat.tap("Contratos")
    assert "5003 · Empresarial 500 Mega · Ativo · R$\u00a0349,90/mês" in chat.text
    assert "5004 · Link Dedicado 100 Mega · Ativo · R$\u00a01.290,00/mês" in chat.text
    assert "5005 · Fibra 300 Mega · Suspenso" in chat.text
    assert len(chat.buttons) == 3


async def test_use_this_contract_makes_the_chat_speak_for_it(desk: Desk) -> None:
    chat = await desk.linked_chat(COMPANY)
    await chat.command("contratos")
    await chat.tap("5004")
    assert "Contrato 5004" in chat.text
    assert "Situação: Ativo" in chat.text
    await chat.tap("Usar este contrato")
    assert "sobre o contrato 5004" in chat.text
    assert "Contrato 5004 · Link Dedicado 100 Mega" in chat.text  # the menu now greets with it
    await chat.command("contratos")
    await chat.tap("5004")
    assert "é o contrato deste chat" in chat.text
    assert not any("Usar este contrato" in label for label in chat.buttons)


async def test_unblock_in_trust_states_terms_unblocks_and_notes_it_for_the_staff(desk: Desk) -> None:
    chat = await _ask_unblock(desk)
    assert "15 minutos" in chat.text
    assert "uma vez a cada 30 dias" in chat.text
    assert _state(desk, BLOCKED) == "B"  # nothing happens before the subscriber confirms
    await chat.tap("Sim, desbloquear")
    assert "Pronto! Pedimos o desbloqueio do contrato 5002" in chat.text
    assert _state(desk, BLOCKED) == "A"
    assert desk.sandbox.call_count("contract_unblock") == 1
    [ticket] = _bot_tickets(desk, JOAO)
    assert ticket["Tipo"] == "A" and ticket["iniciativa"] == "C" and ticket["modo"] == DEMO_IDENTITIES.telegram_mode
    assert f"no chamado nº {ticket['Numero']}." in chat.text
    occurrences = await desk.client.ConsultaOcorrenciasAtendimentos(F("Atendimento") == ticket["Numero"])
    assert any("Desbloqueio em confiança do contrato 5002" in (o.Descricao or "") for o in occurrences)


async def test_a_second_unblock_within_the_period_is_refused_with_the_date_it_is_possible(desk: Desk) -> None:
    chat = await _ask_unblock(desk)
    await chat.tap("Sim, desbloquear")
    desk.sandbox.v2("contract_block", {"customer_id": JOAO, "contract_id": BLOCKED})  # not paid: blocked again
    desk.expire_caches()
    await chat.command("contratos")
    await chat.tap("Desbloqueio em confiança")
    assert "já foi usado em" in chat.text
    assert "poderá ser pedido de novo a partir de" in chat.text
    assert _state(desk, BLOCKED) == "B"
    assert desk.sandbox.call_count("contract_unblock") == 1


@pytest.mark.parametrize("strict_desk", [Policy(unblock_enabled=False)], indirect=True)
async def test_unblock_refused_when_the_operator_switched_it_off(strict_desk: Desk) -> None:
    chat = await _ask_unblock(strict_desk)
    assert "não está disponível pelo Telegram" in chat.text
    assert _state(strict_desk, BLOCKED) == "B"
    assert strict_desk.sandbox.call_count("contract_unblock") == 0


@pytest.mark.parametrize("strict_desk", [Policy(unblock_max_overdue=1)], indirect=True)
async def test_unblock_refused_with_too_many_overdue_bills_offers_the_bills(strict_desk: Desk) -> None:
    chat = await _ask_unblock(strict_desk)
    assert "tem 2 faturas vencidas, e o limite é 1" in chat.text
    assert strict_desk.sandbox.call_count("contract_unblock") == 0
    await chat.tap("Ver boletos")
    assert "boletos em aberto" in chat.text
    assert len(chat.buttons) == 3


async def test_a_contract_unblocked_elsewhere_meanwhile_gets_a_plain_answer_and_no_write(desk: Desk) -> None:
    chat = await _ask_unblock(desk)
    desk.sandbox.v2("contract_unblock", {"customer_id": JOAO, "contract_id": BLOCKED})  # paid at the bank
    await chat.tap("Sim, desbloquear")
    assert "não está mais bloqueado" in chat.text
    assert desk.sandbox.call_count("contract_unblock") == 0
    assert _bot_tickets(desk, JOAO) == []


async def test_isp_down_at_confirmation_keeps_the_question_and_unblocks_once_when_back(desk: Desk) -> None:
    chat = await _ask_unblock(desk)
    desk.sandbox.faults.go_down()
    await chat.tap("Sim, desbloquear")
    assert "fora do ar" in chat.text
    assert _state(desk, BLOCKED) == "B"
    desk.sandbox.faults.come_back()
    await chat.tap("Sim, desbloquear")
    assert _state(desk, BLOCKED) == "A"
    assert desk.sandbox.call_count("contract_unblock") == 1
    assert len(_bot_tickets(desk, JOAO)) == 1


async def test_an_unblock_whose_answer_was_lost_is_read_back_and_goes_on_as_done(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    async with losing_answers(sandbox, database, clock, "contract_unblock") as desk:
        chat = await _ask_unblock(desk)
        await chat.tap("Sim, desbloquear")
        assert "Pronto! Pedimos o desbloqueio do contrato 5002" in chat.text
        assert desk.sandbox.call_count("contract_unblock") == 1
        assert len(_bot_tickets(desk, JOAO)) == 1  # noted for the staff, and recorded against the policy:
        await chat.command("contratos")
        assert "Desbloqueio em confiança" not in " ".join(chat.buttons)  # active now


async def test_an_unblock_cut_before_it_landed_is_told_and_asked_again(desk: Desk) -> None:
    chat = await _ask_unblock(desk)
    desk.sandbox.faults.fail_next(operation="contract_unblock")  # HTTP 500: nothing written
    await chat.tap("Sim, desbloquear")
    assert _state(desk, BLOCKED) == "B"
    assert "✅ Sim, desbloquear" in chat.buttons  # told plainly, the confirmation asked again
    await chat.tap("Sim, desbloquear")
    assert _state(desk, BLOCKED) == "A"
    assert desk.sandbox.call_count("contract_unblock") == 2  # the cut one and the one that landed
    assert len(_bot_tickets(desk, JOAO)) == 1


async def test_declining_the_terms_changes_nothing(desk: Desk) -> None:
    chat = await _ask_unblock(desk)
    await chat.tap("Agora não")
    assert "não mexi no seu contrato" in chat.text
    assert _state(desk, BLOCKED) == "B"


def test_every_contracts_template_renders_in_every_language_with_its_samples() -> None:
    translations = default_translations()
    samples = translations.samples()
    keys = {k for k in translations.keys("pt_BR") if k.startswith("contracts.")}
    for language in LANGUAGES:
        assert {k for k in translations.keys(language) if k.startswith("contracts.")} == keys
        for key in keys:
            assert translations.render(language, key, **samples.get(key, {}))


async def test_with_a_current_ticket_the_unblock_is_an_occurrence_on_it_not_a_new_ticket(desk: Desk) -> None:
    opened = desk.sandbox.v1("AtendimentoCadastro", {"DadosAtendimento": {
        "Data_Abertura": "2025-03-10", "Hora_Abertura": "09:00:00", "Iniciativa": "C", "Modo": "7",
        "TipoCliente": "C", "Cliente": JOAO, "Tipo": "T", "Topico": 1, "Assunto": "Sem conexão",
    }})
    ticket = int(opened["result"]["NumeroAtendimento"])
    chat = await desk.linked_chat(JOAO)
    async with desk.database.transaction() as session:  # as if the new-ticket flow had opened it here
        state = await ChatStates().load(session, chat.chat_id)
        await ChatStates().save(session, replace(state, current_ticket=ticket))
    await chat.command("contratos")
    await chat.tap("Desbloqueio em confiança")
    await chat.tap("Sim, desbloquear")
    assert f"no chamado nº {ticket}." in chat.text
    occurrences = await desk.client.ConsultaOcorrenciasAtendimentos(F("Atendimento") == ticket)
    assert any("Desbloqueio em confiança do contrato 5002" in (o.Descricao or "") for o in occurrences)
    assert _bot_tickets(desk, JOAO) == []


async def test_a_blocked_contracts_card_says_the_total_that_unblocks_it(desk: Desk) -> None:
    chat = await desk.linked_chat(JOAO)
    await chat.command("contratos")
    unpaid = desk.sandbox.v2("get_unpaid_document", {"customer_id": JOAO})["result"]
    today = desk.clock().date().isoformat()
    owed = sum(round(d["value_up"] * 100) for d in unpaid if d["due_date"] < today)
    shown = f"R$\u00a0{owed // 100},{owed % 100:02d}"
    assert f"Pagando {shown}" in chat.text and "desbloqueio em confiança" in chat.text
