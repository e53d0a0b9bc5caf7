"""A real day at the front desk, as subscribers write: the commands and words that leave a question in
each language, small talk, what follows the opening of a ticket, one name for a ticket, cancelling a
plan, the Wi-Fi password, and the sentence before the bot calls a person on its own."""

from __future__ import annotations

from dataclasses import replace

import pytest
from bot.sandbox import DEMO_IDENTITIES
from bot.store import ChatStates, Origin, Outbox
from flows.policy import Policy

from tests.flows.harness import Desk
from tests.flows.test_new_ticket import describe_no_connection, quiet_customer, tickets_of

MARIA = DEMO_IDENTITIES.customer
MENU = {"pt-br": "Como posso ajudar", "en": "How can I help", "es": "En qué te puedo ayudar"}
CANCELLED = {"pt-br": "cancelei", "en": "cancelled", "es": "cancelado"}
NOT_UNDERSTOOD = ("não entendi", "didn't get", "no entendí", "comando eu não conheço", "know that command",
                  "conozco ese comando")


def understood(text: str) -> bool:
    return not any(phrase in text.casefold() for phrase in NOT_UNDERSTOOD)


# ---- leaving a question ------------------------------------------------------------------------------
@pytest.mark.parametrize(("language", "command"), [("pt-br", "cancelar"), ("en", "cancel"), ("es", "cancelar")])
async def test_the_cancel_command_of_each_language_leaves_a_question(desk: Desk, language: str, command: str) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox), language=language)
    await chat.command("chamado")
    await chat.command(command)
    assert understood(chat.text)
    assert CANCELLED[language] in chat.text and MENU[language] in chat.text


@pytest.mark.parametrize(("language", "word"), [
    ("pt-br", "cancelar"), ("pt-br", "Voltar"), ("pt-br", "menu"), ("pt-br", "Cancela!"),
    ("en", "cancel"), ("en", "back"), ("en", "Menu"), ("es", "cancelar"), ("es", "volver"), ("es", "menú"),
])
async def test_a_word_that_leaves_sent_alone_at_a_question_opens_nothing(desk: Desk, language: str, word: str) -> None:
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer, language=language)
    before = len(tickets_of(desk.sandbox, customer))
    await chat.command("chamado")
    await chat.tap("Sem conexão")
    await chat.say(word)  # at "describe the problem": not a description
    assert understood(chat.text)
    assert CANCELLED[language] in chat.text and MENU[language] in chat.text
    assert len(tickets_of(desk.sandbox, customer)) == before


async def test_the_same_word_inside_a_sentence_is_a_description(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("chamado")
    await chat.tap("Sem conexão")
    await chat.say("a internet não quer voltar de jeito nenhum")
    assert "Confira o seu chamado" in chat.text


async def test_with_a_person_on_the_line_the_words_go_to_the_person(desk: Desk) -> None:
    desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
    chat = await desk.linked_chat()
    await chat.command("atendente")
    assert chat.handoffs
    await chat.say("cancelar")
    assert [type(r).__name__ for r in chat.replies] == ["ToStaff"]


# ---- after a ticket is opened ------------------------------------------------------------------------
async def test_after_opening_a_ticket_what_the_subscriber_writes_is_added_and_acknowledged(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    await chat.command("chamado")
    await describe_no_connection(chat)
    await chat.tap("Abrir chamado")
    (ticket,) = [t for t in tickets_of(desk.sandbox, customer) if t["Assunto"] == "Sem conexão"]
    assert f"chamado nº {ticket['Numero']}" in chat.text
    async with desk.database.transaction() as session:  # what the turns before queued, as if delivered
        await Outbox().mark_sent(session, [entry.id for entry in await Outbox().claim_batch(session, 100)])

    await chat.say("esqueci de dizer: o roteador fica no quarto")
    assert understood(chat.text)
    assert chat.text == f"📝 Anotado no chamado nº {ticket['Numero']}."
    await chat.send_media("photo", "a luz do roteador")
    assert "Anotado no chamado nº" in chat.text
    async with desk.database.transaction() as session:
        queued = [entry.message for entry in await Outbox().claim_batch(session, 100)]
    said = [m.content for m in queued if m.origin is Origin.CUSTOMER]
    assert said == ["esqueci de dizer: o roteador fica no quarto", "[photo] a luz do roteador"]
    assert {m.ticket_id for m in queued} == {int(ticket["Numero"])}

    await chat.say("obrigado")
    assert "Por nada" in chat.text
    await chat.command("menu")
    assert "Como posso ajudar" in chat.text
    await chat.say("segunda via")
    assert "Anotado" not in chat.text  # left: the menu reads words again


async def test_the_menu_buttons_stay_usable_while_following_a_ticket(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("chamado")
    await describe_no_connection(chat)
    await chat.tap("Abrir chamado")
    await chat.tap("Meus chamados")
    assert "Sem conexão" in chat.text


async def test_asking_for_a_person_without_a_desk_names_the_ticket_and_keeps_the_words(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("atendente")
    (ticket,) = [t for t in tickets_of(desk.sandbox, MARIA) if t["Assunto"] == "Atendimento pelo Telegram"]
    assert f"Registrei seu pedido no chamado nº {ticket['Numero']}" in chat.text
    assert str(ticket["Protocolo"]) not in chat.text  # "protocolo" is the contact's alone
    await chat.say("é urgente, trabalho em casa")
    assert chat.text == f"📝 Anotado no chamado nº {ticket['Numero']}."


@pytest.mark.parametrize(("language", "named"), [("en", "ticket no."), ("es", "reclamo n.º")])
async def test_every_language_names_a_ticket_as_a_ticket(desk: Desk, language: str, named: str) -> None:
    chat = await desk.linked_chat(language=language)
    await chat.command("human")
    (ticket,) = [t for t in tickets_of(desk.sandbox, MARIA) if t["Assunto"] == "Atendimento pelo Telegram"]
    assert f"{named} {ticket['Numero']}" in chat.text
    assert "#" not in chat.text


# ---- small talk and everyday phrasings -------------------------------------------------------------
@pytest.mark.parametrize(("language", "text", "answer"), [
    ("pt-br", "Oi", "Olá"), ("pt-br", "bom dia!", "Olá"), ("pt-br", "obrigado", "Por nada"),
    ("pt-br", "valeu", "Por nada"), ("pt-br", "👍", "👍"), ("en", "hi", "Hello"), ("en", "thanks!", "welcome"),
    ("es", "hola", "Hola"), ("es", "gracias", "De nada"), ("es", "👍", "👍"),
])
async def test_small_talk_is_answered_kindly_with_the_menu(desk: Desk, language: str, text: str, answer: str) -> None:
    chat = await desk.linked_chat(language=language)
    await chat.say(text)
    assert understood(chat.text)
    assert answer in chat.text and MENU[language] in chat.text and chat.buttons


@pytest.mark.parametrize("text", ["2ª via", "2via", "quanto eu devo?"])
async def test_everyday_ways_to_ask_for_the_bill_reach_the_bills(desk: Desk, text: str) -> None:
    chat = await desk.linked_chat()
    await chat.say(text)
    assert understood(chat.text)
    assert "boleto" in chat.text.casefold() or "fatura" in chat.text.casefold()


@pytest.mark.parametrize(("language", "text"), [
    ("pt-br", "quero me identificar"), ("en", "link my account"), ("es", "quiero vincular mi cuenta"),
])
async def test_asking_to_identify_oneself_when_identified_is_greeted_by_name(
        desk: Desk, language: str, text: str) -> None:
    chat = await desk.linked_chat(language=language)
    await chat.say(text)
    assert understood(chat.text)
    assert DEMO_IDENTITIES.customer_name.split()[0] in chat.text and MENU[language] in chat.text and chat.buttons


async def test_sentido_is_not_lentidao(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.say("sentido")
    assert "Não entendi" in chat.text
    assert "falha na nossa rede" not in chat.text and "conexão está" not in chat.text


async def test_cancelling_a_plan_reaches_a_person_on_a_cancellation_ticket(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.say("quero cancelar meu plano")
    assert "Você quer cancelar o seu plano" in chat.text  # asked first: nothing is opened on a few words
    await chat.tap("Sim, quero cancelar")
    assert "vou te passar para uma pessoa" in chat.text
    assert "Registrei seu pedido no chamado nº" in chat.text
    assert "Situação:" not in chat.text  # not the contract's card, with only a Menu button
    # The ticket is titled by what the person asked, in their words.
    (ticket,) = [t for t in tickets_of(desk.sandbox, MARIA) if t["Assunto"] == "quero cancelar meu plano"]
    assert ticket["Topico"] == "Cancelamento"


async def test_the_wifi_password_reaches_a_person_where_the_isp_has_no_such_topic(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.say("trocar senha do wifi")
    assert "senha do Wi-Fi, vou te passar para uma pessoa" in chat.text
    assert "Registrei seu pedido no chamado nº" in chat.text


async def test_the_wifi_password_opens_a_ticket_of_that_topic_where_there_is_one(desk: Desk) -> None:
    topic = desk.sandbox.store.find("topics", Codigo=10)
    assert topic is not None
    topic.update(Situacao="A", Central="S")
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    await chat.say("quero trocar a senha do wi-fi")
    assert "Troca de senha Wi-Fi: conte em poucas palavras" in chat.text
    await chat.say("quero a senha nova 'casa2026'")
    await chat.tap("Abrir chamado")
    assert [t["Assunto"] for t in tickets_of(desk.sandbox, customer) if t["Topico"] == "Troca de senha Wi-Fi"]


# ---- the bot calls a person on its own --------------------------------------------------------------
async def test_three_misses_in_a_row_say_why_before_a_person_is_called(desk: Desk) -> None:
    chat = await desk.linked_chat()
    for _ in range(Policy().give_up_after):
        await chat.say("xyzzy plugh")
    lines = chat.text.splitlines()
    bridge = next(i for i, line in enumerate(lines) if "não estou conseguindo te entender" in line)
    opened = next(i for i, line in enumerate(lines) if "Registrei seu pedido no chamado nº" in line)
    assert bridge < opened
    async with desk.database.transaction() as session:
        state = await ChatStates().load(session, chat.chat_id)
    assert state.flow == "follow_ticket" and state.step is not None  # what they write next joins the ticket


async def test_a_ticket_closed_meanwhile_takes_no_more_words(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("atendente")
    (ticket,) = [t for t in tickets_of(desk.sandbox, MARIA) if t["Assunto"] == "Atendimento pelo Telegram"]
    row = desk.sandbox.store.find("tickets", Numero=int(ticket["Numero"]))
    assert row is not None
    row["Encerramento_DataHora"] = "2025-03-10 09:45:00"  # the staff closed it in the ISP system
    desk.expire_caches()
    await chat.say("ainda estou esperando")
    assert f"chamado nº {ticket['Numero']} já foi encerrado" in chat.text
    assert "Anotado" not in chat.text and "Como posso ajudar" in chat.text
    async with desk.database.transaction() as session:
        queued = [entry.message for entry in await Outbox().claim_batch(session, 100)]
    assert "ainda estou esperando" not in [m.content for m in queued]
