"""The chat's language: a person is answered in the language they write, from the first message that
tells it (the client's language code, where there is one, only until then); two messages in a row in
another language switch a guessed one; ``/idioma`` sets it for good (``flows.chat_language``)."""

from __future__ import annotations

from bot.store import ChatStates

from tests.flows.harness import Desk, TestChat

PROTOCOL = {
    "pt_BR": "Protocolo deste atendimento", "en": "Protocol of this contact", "es": "Protocolo de esta atención",
}


async def language_of(desk: Desk, chat: TestChat) -> str | None:
    async with desk.database.transaction() as session:
        return (await ChatStates().load(session, chat.chat_id)).language


async def test_a_person_with_no_language_is_answered_in_the_one_they_write(desk: Desk) -> None:
    for text, language in [("hola, no tengo internet desde ayer", "es"),
                           ("hi, my internet has been down since this morning", "en"),
                           ("oi, minha internet caiu", "pt_BR")]:
        chat = desk.chat(language=None)  # WhatsApp gives no language code
        await chat.say(text)
        assert PROTOCOL[language] in chat.text, (text, chat.text)
        assert await language_of(desk, chat) == language


async def test_a_text_that_tells_no_language_waits_for_one_that_does(desk: Desk) -> None:
    chat = desk.chat(language=None)
    await chat.say("👍")
    assert await language_of(desk, chat) is None  # answered in the default meanwhile
    await chat.say("necesito la factura de este mes")
    assert await language_of(desk, chat) == "es"
    assert "titular de la cuenta" in chat.text, chat.text  # "identify yourself first", in Spanish


async def test_two_messages_in_another_language_switch_a_guessed_one(desk: Desk) -> None:
    chat = desk.chat(language=None)
    await chat.say("boa tarde, queria a segunda via do boleto")
    assert await language_of(desk, chat) == "pt_BR"
    await chat.say("hello, can you help me?")
    assert await language_of(desk, chat) == "pt_BR"  # one message: maybe a quote, a word borrowed
    await chat.say("ok")  # tells nothing: the row goes on
    await chat.say("i need my bill please")
    assert await language_of(desk, chat) == "en"
    await chat.say("hola")
    await chat.say("gracias")  # small talk in a row counts too
    assert await language_of(desk, chat) == "es"


async def test_a_language_chosen_with_idioma_stays_whatever_is_written(desk: Desk) -> None:
    chat = desk.chat(language=None)
    await chat.say("hola, buenas tardes")
    assert await language_of(desk, chat) == "es"
    await chat.command("idioma")
    await chat.tap("English")
    assert await language_of(desk, chat) == "en"
    await chat.say("necesito ayuda con la factura")
    await chat.say("no tengo internet")
    assert await language_of(desk, chat) == "en"


async def test_the_client_language_is_where_a_chat_starts_and_what_it_writes_wins(desk: Desk) -> None:
    # Telegram's app language, or the country of a WhatsApp number: a guess, like the text's.
    chat = desk.chat(language="pt-br")
    await chat.say("hola, no tengo internet desde ayer")
    assert await language_of(desk, chat) == "es" and PROTOCOL["es"] in chat.text
    quiet = desk.chat(language="en")
    await quiet.say("👍")
    assert await language_of(desk, quiet) == "en"
    await quiet.say("minha internet caiu")
    await quiet.say("não tem sinal nenhum")
    assert await language_of(desk, quiet) == "pt_BR"


async def test_a_password_is_never_read_for_its_language(desk: Desk) -> None:
    chat = desk.chat(language=None)
    await chat.say("oi, boa tarde")
    await chat.tap("PPPoE")
    for _ in range(2):
        await chat.say("maria.silva")
        await chat.say("wrong-password")  # an English-looking password, twice
        await chat.tap("PPPoE")
    assert await language_of(desk, chat) == "pt_BR"
