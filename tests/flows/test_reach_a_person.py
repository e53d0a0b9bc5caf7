"""Everyone reaches a person: someone not linked to a customer asks for one, a prospect asks to
subscribe or about coverage, a failed or locked link offers a way out; with a staff desk a person
takes the chat (the card says they are not identified), without one the ISP's phone and hours."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox
from bot.store import Handoffs
from bot.store.models import HandoffRow
from flows.policy import Policy
from flows.replies import Handoff, ToStaff
from sqlalchemy import func, select

from tests.flows.harness import Desk, make_desk
from tests.flows.harness import TestChat as Chat
from tests.store.dbtools import ScratchDatabase

PHONE = "0800 123 4567"
HOURS = "seg. a sex., 8h às 18h"
SALES_PHONE = "0800 765 4321"
SALES_SITE = "www.provedor.example.com.br/planos"
GREETING = "titular do cadastro"


@pytest.fixture
async def with_contacts(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Desk]:
    """No staff desk; the operator gave the support phone and hours and the sales contacts."""
    desk = make_desk(sandbox, database, clock, Policy(
        support_phone=PHONE, support_hours=HOURS, sales_phone=SALES_PHONE, sales_address=SALES_SITE,
    ))
    try:
        yield desk
    finally:
        await desk.client.aclose()


def with_desk(desk: Desk) -> Desk:
    desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
    return desk


def card_of(chat: Chat) -> Handoff:
    [handoff] = chat.handoffs
    return handoff


# ---- someone not linked asks for a person ---------------------------------------------------------
async def test_with_a_desk_someone_not_linked_gets_a_person_and_the_card_says_so(desk: Desk) -> None:
    with_desk(desk)
    chat = desk.chat(name="Ana")
    await chat.start()
    assert "Falar com uma pessoa" in " ".join(chat.buttons)
    calls = desk.sandbox.call_count()
    await chat.say("quero falar com um atendente")
    assert "Chamei uma pessoa" in chat.text and "Escolha uma das formas" not in chat.text
    assert "deixei de lado" not in chat.text  # the greeting's question: nothing was under way
    assert "Nunca informe a sua senha PPPoE" in chat.text
    handoff = card_of(chat)
    assert handoff.ticket is None  # the ISP has no record to hang a ticket on
    assert "NÃO identificada" in handoff.summary["card"] and "Ana" in handoff.summary["card"]
    assert "Não identificado · Ana" in handoff.summary["title"]

    await chat.say("meu vizinho tem internet de vocês, queria ver uma coisa")
    assert chat.replies == [ToStaff("meu vizinho tem internet de vocês, queria ver uma coisa", None, None)]
    await chat.command("atendente")
    assert "já vai falar com você" in chat.text
    assert desk.sandbox.call_count() == calls  # nothing the person said went to the ISP


async def test_the_command_reaches_a_person_too_not_the_welcome_again(desk: Desk) -> None:
    with_desk(desk)
    chat = desk.chat()
    await chat.command("atendente")
    assert "Chamei uma pessoa" in chat.text and GREETING not in chat.text
    assert "(sem nome)" in card_of(chat).summary["card"]


async def test_without_a_desk_the_isps_phone_and_hours_then_the_question_again(with_contacts: Desk) -> None:
    chat = with_contacts.chat()
    await chat.start()
    await chat.say("quero falar com um atendente")
    assert f"{PHONE} ({HOURS})" in chat.text and "deixei de lado" not in chat.text
    assert "Se você já é cliente" in chat.text and GREETING not in chat.text  # not the whole welcome
    assert chat.handoffs == []
    await chat.tap("CPF/CNPJ")  # a customer may still identify and get a ticket
    assert "Digite o CPF" in chat.text


async def test_without_a_desk_nor_a_phone_the_bot_says_where_the_number_is_and_offers_no_dead_button(
    desk: Desk,
) -> None:
    chat = desk.chat()
    await chat.start()
    assert chat.buttons == ["🪪 CPF/CNPJ e meu número", "🔑 Login e senha PPPoE"]
    await chat.command("atendente")
    assert "o telefone está no seu contrato e nos boletos" in chat.text
    assert "Escolha como prefere se identificar" in chat.text


async def test_in_english(with_contacts: Desk) -> None:
    chat = with_contacts.chat(language="en")
    await chat.say("hi")
    await chat.say("I want to talk to a person")
    assert f"our support line answers at {PHONE} ({HOURS})" in chat.text


# ---- a prospect ---------------------------------------------------------------------------------------
async def test_a_prospect_who_wants_to_subscribe_gets_the_sales_phone_and_site(with_contacts: Desk) -> None:
    chat = with_contacts.chat()
    await chat.start()
    assert "Quero contratar" in " ".join(chat.buttons)
    calls = with_contacts.sandbox.call_count()
    await chat.say("quero contratar")
    assert "Não entendi" not in chat.text
    assert SALES_PHONE in chat.text and SALES_SITE in chat.text
    assert "Se você já é cliente" in chat.text
    assert with_contacts.sandbox.call_count() == calls


async def test_a_coverage_question_is_not_left_at_not_understood(with_contacts: Desk) -> None:
    chat = with_contacts.chat()
    await chat.start()
    await chat.say("tem cobertura no meu endereço?")
    assert SALES_PHONE in chat.text  # the sales team's words, read before any link
    assert "Quero contratar" in str(chat.buttons)  # and the way there again, with the identification


async def test_with_a_desk_a_prospect_reaches_the_sales_team_with_what_they_asked(desk: Desk) -> None:
    with_desk(desk)
    chat = desk.chat(name="Joana")
    await chat.start()
    await chat.say("quero contratar a internet de vocês")
    assert "equipe comercial" in chat.text and "endereço da instalação" in chat.text
    handoff = card_of(chat)
    assert handoff.reason == "sales"
    assert "Comercial · Joana" in handoff.summary["title"]
    assert "Procura a equipe comercial" in handoff.summary["card"]
    assert "quero contratar a internet de vocês" in handoff.summary["card"]


async def test_the_sales_command_without_sales_contacts_falls_back_to_the_support_phone(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    desk = make_desk(sandbox, database, clock, Policy(support_phone=PHONE))
    try:
        chat = desk.chat()
        await chat.command("contratar")
        assert f"ligue para {PHONE}" in chat.text
    finally:
        await desk.client.aclose()


# ---- a failed or locked link -------------------------------------------------------------------------
async def fail_with_pppoe(chat: Chat) -> None:
    await chat.tap("PPPoE")
    await chat.say(D.pppoe_login)
    await chat.say("wrong-password")


async def test_after_a_failed_link_the_answer_names_the_phone(with_contacts: Desk) -> None:
    chat = with_contacts.chat()
    await chat.start()
    await fail_with_pppoe(chat)
    assert "Não consegui confirmar seus dados" in chat.text
    assert f"ligue para a nossa central: {PHONE} ({HOURS})" in chat.text
    assert "outros canais" not in chat.text


async def test_after_a_failed_link_with_a_desk_a_person_is_one_tap_away(desk: Desk) -> None:
    with_desk(desk)
    chat = desk.chat()
    await chat.start()
    await fail_with_pppoe(chat)
    assert "toque em Falar com uma pessoa" in chat.text
    await chat.tap("Falar com uma pessoa")
    assert "Chamei uma pessoa" in chat.text
    assert "wrong-password" not in card_of(chat).summary["card"]  # proof typed before is never shown


async def test_locked_linking_still_reaches_a_person(desk: Desk) -> None:
    with_desk(desk)
    chat = desk.chat()
    await chat.start()
    for _ in range(5):
        await fail_with_pppoe(chat)
    assert "estão pausadas" in chat.text and "toque em Falar com uma pessoa" in chat.text
    await chat.tap("Falar com uma pessoa")
    assert "Chamei uma pessoa" in chat.text


async def test_a_password_that_reads_like_a_request_is_still_only_a_password(desk: Desk) -> None:
    with_desk(desk)
    chat = desk.chat()
    await chat.start()
    await chat.tap("PPPoE")
    await chat.say(D.pppoe_login)
    await chat.say("atendente")
    assert "Não consegui confirmar seus dados" in chat.text and chat.handoffs == []


# ---- a linked subscriber is unchanged ------------------------------------------------------------------
async def test_a_linked_subscriber_still_gets_a_ticket_and_the_customer_card(desk: Desk) -> None:
    with_desk(desk)
    chat = await desk.linked_chat()
    await chat.command("atendente")
    handoff = card_of(chat)
    assert handoff.ticket is not None and D.customer_name in handoff.summary["card"]


# ---- deep links of the ISP's own ----------------------------------------------------------------------
async def test_the_isps_deep_links_begin_with_sales_or_a_person(with_contacts: Desk) -> None:
    chat = with_contacts.chat()
    await chat.start("contratar")
    assert SALES_PHONE in chat.text
    other = with_contacts.chat()
    await other.start("atendente")
    assert f"{PHONE} ({HOURS})" in other.text
    anyone = with_contacts.chat()
    await anyone.start("site-banner")
    assert GREETING in anyone.text


async def test_a_linked_subscriber_who_asks_for_sales_without_a_desk_is_told_them_then_the_menu(
    with_contacts: Desk,
) -> None:
    chat = await with_contacts.linked_chat()
    await chat.command("contratar")
    assert SALES_PHONE in chat.text and "Como posso ajudar" in chat.text


async def test_someone_who_proves_who_they_are_after_talking_to_a_person_gets_their_ticket_and_card(
    desk: Desk,
) -> None:
    with_desk(desk)
    chat = desk.chat(name="Maria")
    await chat.command("atendente")
    assert card_of(chat).ticket is None
    await chat.start()  # leaves the person's chat for the bot, and proves who she is
    await chat.tap("PPPoE")
    await chat.say(D.pppoe_login)
    await chat.say(D.pppoe_password)
    assert "cadastro confirmado" in chat.text
    await chat.command("atendente")
    # Not "a person is already coming" on a conversation without a ticket: hers now has her ticket,
    # and the staff get her card where they already speak with her.
    handoff = card_of(chat)
    assert handoff.ticket is not None and D.customer_name in handoff.summary["card"]
    async with desk.database.transaction() as session:
        case = await Handoffs().of_chat(session, chat.chat_id)
        opened = (await session.execute(select(func.count()).select_from(HandoffRow))).scalar_one()
    assert case is not None and case.identified and case.ticket_id == handoff.ticket and opened == 1


async def test_a_customers_request_before_the_link_is_answered_with_why_identify_not_not_understood(
    desk: Desk,
) -> None:
    chat = desk.chat()
    await chat.start()
    await chat.say("segunda via do boleto")
    assert "Posso ajudar com isso, mas antes preciso confirmar" in chat.text and "Não entendi" not in chat.text
    assert "CPF/CNPJ" in " ".join(chat.buttons)
    await chat.say("bom dia")
    assert "titular do cadastro" in chat.text


# ---- three misunderstandings in a row, before any link ---------------------------------------------
async def _three_misses(chat: Chat) -> None:
    await chat.start()
    for text in ("xyzzy", "qwerty asdf", "zzz"):
        await chat.say(text)


async def test_three_misses_before_a_link_call_a_person_at_the_desk_who_is_told_why(desk: Desk) -> None:
    with_desk(desk)
    chat = desk.chat(name="Ana")
    await chat.start()
    await chat.say("xyzzy")
    await chat.say("qwerty asdf")
    assert chat.handoffs == [] and "Escolha" in chat.text  # two misses: the question again
    await chat.say("zzz")
    assert "não estou conseguindo te entender" in chat.text and "Vou chamar uma pessoa" in chat.text
    assert "Chamei uma pessoa" in chat.text
    card = card_of(chat).summary["card"]
    assert "NÃO identificada" in card and "não entendeu três mensagens" in card and "Ana" in card
    assert "zzz" not in card and "xyzzy" not in card  # what an unlinked chat types may be proof: never shown


async def test_three_misses_before_a_link_without_a_desk_tell_the_isps_phone_and_hours(with_contacts: Desk) -> None:
    chat = with_contacts.chat()
    await _three_misses(chat)
    assert "não estou conseguindo te entender" in chat.text and "Vou chamar uma pessoa" not in chat.text
    assert f"{PHONE} ({HOURS})" in chat.text and chat.handoffs == []
    assert "Se você já é cliente" in chat.text  # and linking is still offered
    await chat.say("xyzzy")  # the count starts again: no second handoff at once
    assert PHONE not in chat.text


async def test_three_misses_without_a_desk_nor_a_phone_say_where_the_number_is(desk: Desk) -> None:
    chat = desk.chat()
    await _three_misses(chat)
    assert "o telefone está no seu contrato e nos boletos" in chat.text and chat.handoffs == []


async def test_a_wrong_password_is_an_attempt_not_a_misunderstanding(with_contacts: Desk) -> None:
    chat = with_contacts.chat()
    await chat.start()
    await chat.say("xyzzy")
    await chat.say("zzz")  # two misses
    await chat.tap("PPPoE")
    await chat.say("maria.silva")
    await chat.say("quero falar com um atendente")  # the password step takes any text as the password
    assert "Não consegui confirmar seus dados" in chat.text and "não estou conseguindo" not in chat.text
    await chat.say("xyzzy")  # the count began again at the attempt
    assert "não estou conseguindo" not in chat.text and "Escolha" in chat.text
