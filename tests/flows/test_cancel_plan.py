"""Cancelling in the chat: the contract, the ISP's reasons, the competitor, one retention offer
declined in one tap, what happens next, contract_cancel, the contact's protocol, the ticket and a receipt PDF; the ISP's
refusal in plain words; a lost answer read back, never resent; switched off, a person takes it."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import httpx
import pytest
from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox
from flows.policy import CancelTerms, Policy
from flows.replies import Upload

from tests.flows.harness import Desk, LoseAnswers, make_desk, pdf_text, sandbox_policy
from tests.store.dbtools import ScratchDatabase

MARIA = DEMO_IDENTITIES.customer
TERMS = CancelTerms(reversal_reason=DEMO_IDENTITIES.cancel_reversal_reason,
                    fine_account=DEMO_IDENTITIES.cancel_fine_account, fine_history=DEMO_IDENTITIES.cancel_fine_history)


def policy(sandbox: Sandbox, **changes: object) -> Policy:
    return sandbox_policy(sandbox, **{"cancel_terms": TERMS, "company": DEMO_IDENTITIES.isp_name, **changes})


@pytest.fixture
async def cancelling(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Desk]:
    desk = make_desk(sandbox, database, clock, policy(sandbox, retention_offer="3 meses com 50% de desconto"))
    yield desk
    await desk.client.aclose()


def last_ticket(sandbox: Sandbox, customer: int) -> tuple[dict[str, object], str]:
    """The customer's newest ticket and its first occurrence's text (what staff read)."""
    ticket = max(sandbox.store.where("tickets", CodigoCliente=customer), key=lambda t: t["Numero"])
    notes = [o["Descricao"] for o in sandbox.store.where("occurrences", Atendimento_Numero=ticket["Numero"])]
    return ticket, notes[0]


def state(sandbox: Sandbox, number: int) -> str:
    contract = sandbox.store.find("contracts", Numero=number)
    assert contract is not None
    return str(contract["Situacao_Codigo"])


async def test_cancel_walked_end_to_end_with_the_offer_declined_in_one_tap(cancelling: Desk) -> None:
    chat = await cancelling.linked_chat(MARIA)
    await chat.say("quero cancelar meu plano")
    assert "Qual é o motivo?" in chat.text and "5001" in chat.text
    assert "Preço" in chat.buttons
    await chat.tap("Preço")
    assert "outro provedor" in chat.text and chat.buttons[0].startswith("🤐")
    await chat.tap("Vivo Fibra")
    assert "3 meses com 50% de desconto" in chat.text
    await chat.tap("Não, quero cancelar")  # one tap, and the cancel goes on
    assert "vale na hora" in chat.text and "Os boletos que ainda não venceram são cancelados" in chat.text
    assert state(cancelling.sandbox, DEMO_IDENTITIES.contract) == "A"
    await chat.tap("Sim, cancelar agora")
    assert state(cancelling.sandbox, DEMO_IDENTITIES.contract) == "C"
    contract = cancelling.sandbox.store.find("contracts", Numero=DEMO_IDENTITIES.contract)
    assert contract is not None and contract["Cancelamento_Motivo"] == "Preço"
    assert contract["Cancelamento_Concorrencia"] == "1"
    ticket, note = last_ticket(cancelling.sandbox, MARIA)
    assert ticket["Topico"] == "Cancelamento"
    assert "cancelado pelo próprio assinante" in note and "recusada" in note
    # The receipt's protocol is the contact's (RGC); the ticket is named as a ticket.
    assert "Protocolo do atendimento: " in chat.text and f"Chamado nº {ticket['Numero']}." in chat.text
    receipt = chat.last(Upload)
    assert receipt.kind == "document" and receipt.filename == f"cancelamento-{DEMO_IDENTITIES.contract}.pdf"
    body = pdf_text(receipt.data)
    assert receipt.data.startswith(b"%PDF") and "Comprovante de cancelamento" in body
    assert "Maria Aparecida da Silva" in body and f"chamado nº {ticket['Numero']}" in body
    assert "Protocolo do atendimento: 2" in body and str(ticket["Protocolo"]) not in body
    assert "Fibra Sandbox Telecom Ltda" in body and "Vivo Fibra" in body
    await chat.say("meus atendimentos")
    assert "Cancelamento" in chat.text and "contrato cancelado" in chat.text


async def test_taking_the_offer_keeps_the_plan_and_tells_staff(cancelling: Desk) -> None:
    chat = await cancelling.linked_chat(MARIA)
    await chat.say("quero cancelar")
    await chat.tap("Mudança de endereço")
    await chat.tap("Prefiro não dizer")
    await chat.tap("Quero a oferta")
    assert "Seu plano continua" in chat.text and "Chamado nº" in chat.text
    # The bot only records the acceptance on a ticket: it says so, not that the offer is applied.
    assert "vale depois que a equipe aplicar" in chat.text and "vai aplicar a oferta" not in chat.text
    assert state(cancelling.sandbox, DEMO_IDENTITIES.contract) == "A"
    _, note = last_ticket(cancelling.sandbox, MARIA)
    assert "aceitou a oferta de retenção" in note


async def test_a_company_picks_the_contract_and_may_keep_it(cancelling: Desk) -> None:
    chat = await cancelling.linked_chat(DEMO_IDENTITIES.company)
    await chat.say("quero cancelar")
    assert "Qual contrato" in chat.text
    number = DEMO_IDENTITIES.company_contracts[1]
    await chat.tap(str(number))
    assert str(number) in chat.text
    await chat.tap("Qualidade")
    await chat.tap("Prefiro não dizer")
    await chat.tap("Não, quero cancelar")
    await chat.tap("Não, manter")
    assert "continua como está" in chat.text and state(cancelling.sandbox, number) != "C"


async def test_the_isp_refusal_is_told_plainly(cancelling: Desk) -> None:
    chat = await cancelling.linked_chat(MARIA)
    await chat.say("quero cancelar")
    await chat.tap("Preço")
    await chat.tap("Prefiro não dizer")
    await chat.tap("Não, quero cancelar")
    cancelling.sandbox.store.find("contracts", Numero=DEMO_IDENTITIES.contract)["Situacao_Codigo"] = "C"  # type: ignore[index]
    await chat.tap("Sim, cancelar agora")
    assert "já está cancelado" in chat.text


async def test_a_lost_answer_is_read_back_and_never_resent(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    lose = LoseAnswers(httpx.ASGITransport(app=sandbox.app), "contract_cancel")
    desk = make_desk(sandbox, database, clock, policy(sandbox), http_transport=lose)
    try:
        chat = await desk.linked_chat(MARIA)
        await chat.say("quero cancelar")
        await chat.tap("Preço")
        await chat.tap("Prefiro não dizer")
        await chat.tap("Sim, cancelar agora")
        assert "cancelado em" in chat.text and chat.last(Upload).filename.endswith(".pdf")
        assert sandbox.calls.get("contract_cancel", 0) == 1
    finally:
        await desk.client.aclose()


async def test_switched_off_a_person_takes_it(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> None:
    desk = make_desk(sandbox, database, clock, policy(sandbox, self_cancel=False))
    try:
        chat = await desk.linked_chat(MARIA)
        await chat.say("quero cancelar meu plano")
        assert "uma pessoa da nossa equipe registra o cancelamento" in chat.text
        await chat.tap("Sim, quero cancelar")
        assert state(sandbox, DEMO_IDENTITIES.contract) == "A"
    finally:
        await desk.client.aclose()


async def test_the_contract_card_leads_to_cancelling_that_contract(cancelling: Desk) -> None:
    chat = await cancelling.linked_chat(DEMO_IDENTITIES.company)
    await chat.command("contratos")
    number = DEMO_IDENTITIES.company_contracts[2]
    await chat.tap(str(number))
    await chat.tap("Cancelar este contrato")
    assert f"Vamos cancelar o contrato {number}" in chat.text and "Qual contrato" not in chat.text


async def test_in_english_the_receipt_is_in_english(cancelling: Desk) -> None:
    chat = await cancelling.linked_chat(MARIA, language="en")
    await chat.say("i want to cancel my plan")
    assert "What is the reason?" in chat.text
    await chat.tap("Preço")
    await chat.tap("rather not say")
    await chat.tap("No, cancel")
    assert "takes effect at once" in chat.text
    await chat.tap("Yes, cancel now")
    assert f"Contract {DEMO_IDENTITIES.contract} cancelled on" in chat.text
    body = pdf_text(chat.last(Upload).data)
    assert "Cancellation receipt" in body and "with immediate effect" in body


async def test_without_the_isp_s_reasons_a_person_takes_it(cancelling: Desk) -> None:
    cancelling.sandbox.store.tables["cancel_reasons"] = []
    chat = await cancelling.linked_chat(MARIA)
    await chat.say("quero cancelar")
    assert "lista de motivos" in chat.text
    assert state(cancelling.sandbox, DEMO_IDENTITIES.contract) == "A"


async def test_the_operator_s_withdrawal_topic_opens_the_equipment_order(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    terms = dataclasses.replace(TERMS, withdrawal_topic=4, period_action="cancel")  # "Retirada de equipamento"
    desk = make_desk(sandbox, database, clock, policy(sandbox, cancel_terms=terms))
    try:
        chat = await desk.linked_chat(MARIA)
        await chat.say("quero cancelar")
        await chat.tap("Preço")
        await chat.tap("Prefiro não dizer")
        assert "retirada dos equipamentos emprestados" in chat.text
        await chat.tap("Sim, cancelar agora")
        topics = {t["Topico"] for t in sandbox.store.where("tickets", CodigoCliente=MARIA)}
        assert {"Retirada de equipamento", "Cancelamento"} <= topics
        assert "retirada dos equipamentos em comodato" in pdf_text(chat.last(Upload).data)
    finally:
        await desk.client.aclose()


async def test_at_the_menu_cancel_my_contract_is_a_cancel_not_the_contracts_button(cancelling: Desk) -> None:
    chat = await cancelling.linked_chat(DEMO_IDENTITIES.company)
    await chat.say("quero cancelar meu contrato")  # holds the "Contratos" button's word among others
    assert "Qual contrato você quer cancelar?" in chat.text
    await chat.command("menu")
    await chat.say("contratos")  # the label itself still is the button
    assert "Seus contratos" in chat.text


async def test_the_menu_s_command_begins_the_cancel_and_cancelar_still_leaves_a_question(cancelling: Desk) -> None:
    chat = await cancelling.linked_chat(MARIA)
    await chat.command("cancelarplano")
    assert "Qual é o motivo?" in chat.text
    await chat.command("cancelar")
    assert "Qual é o motivo?" not in chat.text
    assert state(cancelling.sandbox, DEMO_IDENTITIES.contract) == "A"


async def test_a_reason_in_the_persons_words_stays_in_the_cancellation(cancelling: Desk) -> None:
    # Issue 44: "a internet cai toda hora" at the reason is the reason, not a request for the connection flow.
    chat = await cancelling.linked_chat(MARIA)
    await chat.say("quero cancelar meu plano")
    await chat.say("a internet cai toda hora e ninguém resolve")
    assert "Anotei o seu motivo" in chat.text and "Qualidade do serviço" in chat.buttons
    await chat.tap("Qualidade do serviço")
    await chat.tap("Prefiro não dizer")
    await chat.tap("Não, quero cancelar")
    await chat.say("sim, pode cancelar")  # a yes in words at the last question
    assert state(cancelling.sandbox, DEMO_IDENTITIES.contract) == "C"
    _, note = last_ticket(cancelling.sandbox, MARIA)
    assert "Motivo: Qualidade do serviço" in note and "a internet cai toda hora e ninguém resolve" in note
