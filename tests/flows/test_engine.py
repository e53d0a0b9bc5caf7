"""The engine's promises, whatever the flow: a reply to everything, buttons that cannot be forged,
plain words when the ISP fails, and state that survives a restart."""

from __future__ import annotations

from bot.sandbox import DEMO_IDENTITIES
from flows.events import Choice, Incoming

from tests.flows.harness import Desk


async def test_menu_greets_the_linked_customer_by_name_with_a_button_per_flow(desk: Desk) -> None:
    chat = await desk.linked_chat()
    assert DEMO_IDENTITIES.customer_name in chat.text
    assert "Como posso ajudar" in chat.text


async def test_a_sticker_at_the_menu_is_answered_and_the_menu_asked_again(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.send_media("sticker")
    assert "Não entendi" in chat.text
    assert "Como posso ajudar" in chat.text


async def test_an_unknown_command_is_named_and_the_question_repeated(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("frobnicate")
    assert "comando eu não conheço" in chat.text
    assert "Como posso ajudar" in chat.text


async def test_a_button_token_from_another_chat_reaches_nothing(desk: Desk) -> None:
    maria = await desk.linked_chat()
    other = await desk.linked_chat(customer=DEMO_IDENTITIES.blocked_customer)
    stolen = maria.button("")  # any of Maria's buttons
    replies = await desk.engine.handle(Incoming(other.chat_id, Choice(stolen), client_language="pt-br"))
    other.replies = replies
    assert "não vale mais" in other.text
    assert DEMO_IDENTITIES.customer_name not in other.text


async def test_cancel_works_anywhere_and_returns_to_the_menu(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("cancel")
    assert "cancelei" in chat.text
    assert "Como posso ajudar" in chat.text


async def test_english_client_gets_english(desk: Desk) -> None:
    chat = await desk.linked_chat(language="en-GB")
    assert "How can I help" in chat.text


async def test_the_menu_still_answers_when_the_isp_is_down(desk: Desk) -> None:
    chat = await desk.linked_chat()
    desk.expire_caches()
    desk.sandbox.faults.go_down()
    await chat.command("menu")
    assert "Como posso ajudar" in chat.text
