"""The ISP's own facts (phone and hours, address, web site) for anyone who asks, at any point: at the
identification prompt and at linking's own questions the facts come first and the same question is
asked again; at the menu, the facts and the menu. Goodbyes are answered with a goodbye."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from bot.sandbox import FixedClock, Sandbox

from tests.flows.harness import Desk, make_desk, sandbox_policy
from tests.store.dbtools import ScratchDatabase

PHONE = "0800 123 4567"
HOURS = "seg. a sex., 8h às 18h"
ADDRESS = "Rua das Flores, 123, Centro"
SITE = "www.provedor.example.com.br"


@pytest.fixture
async def facts(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Desk]:
    """The operator gave the phone, its hours, the address and the site."""
    desk = make_desk(sandbox, database, clock, sandbox_policy(
        sandbox, support_phone=PHONE, support_hours=HOURS, address=ADDRESS, website=SITE,
    ))
    try:
        yield desk
    finally:
        await desk.client.aclose()


def says_every_fact(text: str) -> bool:
    return all(fact in text for fact in (PHONE, HOURS, ADDRESS, SITE))


@pytest.mark.parametrize("asked", [
    "qual o telefone de vocês?", "qual o horário de atendimento?", "onde fica a loja de vocês?",
    "vcs tem whatsapp?", "qual o site de vocês",
])
async def test_someone_not_linked_gets_the_facts_and_the_same_question_again(facts: Desk, asked: str) -> None:
    chat = facts.chat()
    await chat.start()
    buttons = chat.buttons
    await chat.say(asked)
    assert says_every_fact(chat.text), chat.text
    assert chat.buttons == buttons  # how to prove who they are, asked again
    assert "Olá" not in chat.text and "mas antes" not in chat.text  # not the greeting, nor "identify first"


async def test_asked_while_typing_the_tax_id_the_facts_and_that_question_again(facts: Desk) -> None:
    chat = facts.chat()
    await chat.start()
    await chat.tap("CPF")
    asked = chat.text
    assert "Digite o CPF" in asked
    await chat.say("antes, qual o horário de atendimento de vocês?")
    assert says_every_fact(chat.text)
    assert chat.text.endswith(asked)
    assert "caracteres" not in chat.text  # not taken for a mistyped tax id


async def test_a_subscriber_at_the_menu_gets_the_facts_then_the_menu(facts: Desk) -> None:
    chat = await facts.linked_chat()
    await chat.say("qual o endereço de vocês?")
    assert says_every_fact(chat.text)
    assert "Segunda via" in " ".join(chat.buttons)  # the menu again
    await chat.say("me passa o telefone de vocês")
    assert PHONE in chat.text and "Meus dados" not in chat.text.split(PHONE)[0]  # not "my data"


@pytest.mark.parametrize(("language", "asked", "words"), [
    ("en", "what are your opening hours?", "Phone"),
    ("es", "¿cuál es el teléfono de ustedes?", "Teléfono"),
])
async def test_the_facts_in_every_language(facts: Desk, language: str, asked: str, words: str) -> None:
    chat = await facts.linked_chat(language=language)
    await chat.say(asked)
    assert says_every_fact(chat.text) and words in chat.text


async def test_where_the_operator_gave_nothing_the_bot_says_where_to_find_it(desk: Desk) -> None:
    chat = desk.chat()
    await chat.start()
    await chat.say("qual o telefone de vocês?")
    assert "no seu contrato e nos boletos" in chat.text
    assert "\n\n\n" not in chat.text and ": \n" not in chat.text


async def test_only_what_the_operator_gave_is_said(desk: Desk) -> None:
    desk.engine.policy = sandbox_policy(desk.sandbox, support_hours=HOURS)
    chat = await desk.linked_chat()
    await chat.command("contato")
    assert HOURS in chat.text
    assert "Telefone" not in chat.text and "Endereço" not in chat.text and "Site" not in chat.text


@pytest.mark.parametrize(("language", "said", "goodbye"), [
    ("pt-br", "valeu, tchau", "Até logo"),
    ("pt-br", "obrigado, tchau", "Até logo"),
    ("pt-br", "era só isso, obrigada", "Até logo"),
    ("en", "thanks, bye", "Goodbye"),
    ("en", "that's all, have a nice day", "Goodbye"),
    ("es", "gracias, chau", "Hasta luego"),
    ("es", "listo, hasta mañana", "Hasta luego"),
])
async def test_a_goodbye_gets_a_goodbye_not_the_menu(desk: Desk, language: str, said: str, goodbye: str) -> None:
    chat = await desk.linked_chat(language=language)
    await chat.say(said)
    assert goodbye in chat.text
    assert not chat.buttons  # neither the greeting nor the menu
    await chat.say("segunda via" if language == "pt-br" else "2")  # the menu still reads what comes next
    assert chat.buttons


async def test_a_goodbye_at_the_identification_prompt_is_a_goodbye(desk: Desk) -> None:
    chat = desk.chat()
    await chat.start()
    await chat.say("ah ok, obrigado, tchau")
    assert "Até logo" in chat.text and not chat.buttons
