"""Contesting a charge from a bill's card or in words: the reason becomes a ticket on the operator's
topic with the 30-day deadline recorded, and the person is told their rights in one line."""

from __future__ import annotations

from datetime import timedelta

from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox

from tests.flows.harness import Desk, make_desk, sandbox_policy
from tests.store.dbtools import ScratchDatabase

MARIA = DEMO_IDENTITIES.customer


def last_ticket(sandbox: Sandbox) -> tuple[dict[str, object], str]:
    ticket = max(sandbox.store.where("tickets", CodigoCliente=MARIA), key=lambda t: t["Numero"])
    (note, *_) = [o["Descricao"] for o in sandbox.store.where("occurrences", Atendimento_Numero=ticket["Numero"])]
    return ticket, note


async def test_a_charge_is_contested_from_the_bill_card(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.command("boleto")
    await chat.tap("vencido")
    await chat.tap("Contestar cobrança")
    assert "por que a cobrança de R$\xa099,90" in chat.text
    await chat.say("caro")
    assert "mais de detalhe" in chat.text
    await chat.say("Fui cobrada por um ponto extra que nunca instalaram")
    ticket, note = last_ticket(desk.sandbox)
    assert ticket["Topico"] == "Contestação de cobrança"
    assert "ponto extra que nunca instalaram" in note and "30 dias" in note
    assert f"Contestação registrada no chamado nº {ticket['Numero']}." in chat.text
    assert str(ticket["Protocolo"]) not in chat.text  # "protocolo" is the contact's alone
    until = (clock.now + timedelta(days=30)).strftime("%d/%m/%Y")
    assert f"resposta em até 30 dias (até {until})" in chat.text
    await chat.say("meus atendimentos")
    assert "cobrança contestada" in chat.text


async def test_in_words_the_bill_is_asked_and_the_operator_topic_used(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    desk = make_desk(sandbox, database, clock, sandbox_policy(sandbox, contest_topic="Negociação"))
    try:
        chat = await desk.linked_chat(MARIA)
        await chat.say("quero contestar uma cobrança indevida")
        assert "Qual cobrança você quer contestar?" in chat.text
        await chat.tap("99,90")
        await chat.say("Cobraram depois que pedi o cancelamento do ponto")
        ticket, _ = last_ticket(sandbox)
        assert ticket["Topico"] == "Negociação de débito" and f"chamado nº {ticket['Numero']}" in chat.text
    finally:
        await desk.client.aclose()


async def test_the_bot_promises_no_hold_on_collection_it_cannot_make(desk: Desk) -> None:
    """The ISP's web service has no operation to hold a bill back: the bot says the bill stays open
    as it is, and that it asked the team (the ticket), not that the amount is not charged."""
    chat = await desk.linked_chat(MARIA)
    await chat.command("boleto")
    await chat.tap("vencido")
    await chat.tap("Contestar cobrança")
    await chat.say("Fui cobrada por um ponto extra que nunca instalaram")
    assert "não é cobrado" not in chat.text
    assert "não consigo suspender a cobrança" in chat.text and "continua em aberto" in chat.text
    _, note = last_ticket(desk.sandbox)
    assert "NÃO suspende a cobrança" in note and "não cobrar o valor contestado" in note


async def test_a_contested_bill_is_marked_with_date_and_ticket_in_every_list_and_card(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.command("boleto")
    assert "contestado" not in chat.text
    await chat.tap("vencido")
    await chat.tap("Contestar cobrança")
    await chat.say("Fui cobrada por um ponto extra que nunca instalaram")
    ticket, _ = last_ticket(desk.sandbox)
    mark = f"contestado em 10/03/2025, chamado nº {ticket['Numero']}"
    await chat.say("segunda via")  # the list
    assert mark in chat.text and "⚖️ contestado" in " ".join(chat.buttons)
    await chat.tap("vencido")  # the bill's card
    assert mark in chat.text
    await chat.command("contestar")  # the list to contest another
    assert mark in chat.text and "⚖️ contestado" in " ".join(chat.buttons)


async def test_the_mark_is_said_in_english_too(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA, language="en")
    await chat.command("bills")
    await chat.tap("overdue")
    await chat.tap("Contest")
    await chat.say("I was charged for an extra point never installed")
    assert "cannot hold back the charge" in chat.text
    await chat.command("bills")
    assert "contested on 3/10/2025, ticket no." in chat.text
