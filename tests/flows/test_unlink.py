"""After /desvincular, the person's next message is read, not swallowed: the goodbye comes with the
greeting that asks how to link again, so a tax id typed at once goes on with linking."""

from __future__ import annotations

from bot.sandbox import DEMO_IDENTITIES as D
from bot.store import ChatStates

from tests.flows.harness import Desk


async def test_the_first_message_after_unlinking_is_read(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("desvincular")
    await chat.tap("Sim")
    assert "desvinculei" in chat.text and "titular do cadastro" in chat.text  # goodbye, then how to link
    assert any("CPF" in label for label in chat.buttons)
    await chat.say(D.blocked_customer_cpf)  # another customer's tax id, typed straight away
    assert "número" in chat.text and "titular do cadastro" not in chat.text  # asked for the phone, not greeted


async def test_a_button_pressed_after_unlinking_is_read(desk: Desk) -> None:
    chat = await desk.linked_chat(language="en")
    await chat.command("unlink")
    await chat.tap("Yes")
    assert "no longer linked" in chat.text
    await chat.tap("PPPoE")
    await chat.say(D.pppoe_login)
    await chat.say(D.pppoe_password)
    assert D.customer_name in chat.text  # linked again, in two messages, none lost


async def test_a_chat_left_in_the_old_wait_after_the_goodbye_is_greeted(desk: Desk) -> None:
    chat = desk.chat()
    async with desk.database.transaction() as session:
        state = await ChatStates().load(session, chat.chat_id)
        state.flow, state.step = "unlink", "unlinked"  # saved by a version that waited for any message
        await ChatStates().save(session, state)
    await chat.say("oi")
    assert "titular do cadastro" in chat.text
