"""The whole bot with its staff desk in Chatwoot: a subscriber on (fake) Telegram, the seeded sandbox
ISP, the fake Chatwoot posting signed webhooks to the bot's web server. The chat lives in a pending
conversation while the bot serves; asking for a person opens it with the card as a private note;
agents answer from Chatwoot and the person reads it on Telegram; notes never reach the person;
resolving gives the chat back to the bot."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import pytest
from bot.desks.chatwoot.desk import ChatwootDesk, identifier
from bot.desks.chatwoot.intake import PATH, REPLIES
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.sandbox.clock import ISP_ZONE
from bot.settings import BotSettings
from bot.store import Database
from bot.web import serve
from flows.desk import DeskChat

from tests.chatwoot.conftest import settings_for
from tests.chatwoot.fake_chatwoot import AGENT_ID, TEAM_ID, Conversation, FakeChatwoot
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, TelegramChat, running_bot
from tests.telegram.test_handoff_expectations import HOURS, answered_lately, at

MARIA = 8401


@pytest.fixture
async def bot(database: Database, sandbox: Sandbox, chatwoot: FakeChatwoot, free_tcp_port: int,
              ) -> AsyncIterator[RunningBot]:
    desk = BotSettings(_env_file=None, staff_desk="chatwoot")  # type: ignore[call-arg]
    settings = settings_for(chatwoot, timeout=1.0, team_id=TEAM_ID)
    async with running_bot(database, sandbox, bot_settings=desk, chatwoot=settings) as running:
        stop = asyncio.Event()
        server = asyncio.create_task(serve(running.runtime.web_app(), "127.0.0.1", free_tcp_port, stop))
        chatwoot.webhook_url = f"http://127.0.0.1:{free_tcp_port}{PATH}"
        for _ in range(400):
            if await chatwoot.post_webhook({"event": "ping"}) == 200:
                break
            await asyncio.sleep(0.01)
        try:
            yield running
        finally:
            await chatwoot.settle()
            stop.set()
            await server


def conversation(chatwoot: FakeChatwoot, chat_id: int = MARIA) -> Conversation:
    found = chatwoot.conversation_of(identifier(DeskChat(chat_id, "telegram", "pt_BR", "")))
    assert found is not None, "the chat has no conversation in Chatwoot"
    return found


async def agent(bot: RunningBot, chatwoot: FakeChatwoot, conversation_id: int, text: str, **how: Any) -> None:
    """An agent writes in Chatwoot; wait until the bot handled it (or had nothing to handle)."""
    message = await chatwoot.agent_reply(conversation_id, text, **how)
    if await bot.inbox_row(REPLIES + message["id"]) is not None:
        await bot.handled(REPLIES + message["id"])
    await bot.desk_done()


async def maria_says(bot: RunningBot, chatwoot: FakeChatwoot, text: str) -> tuple[TelegramChat, Conversation]:
    """Maria, linked, says ``text``; her conversation once the desk caught up."""
    maria = await bot.maria(MARIA)
    await maria.say(text)
    await bot.desk_done()
    return maria, conversation(chatwoot)


async def handed_over(bot: RunningBot, chatwoot: FakeChatwoot) -> tuple[TelegramChat, Conversation]:
    return await maria_says(bot, chatwoot, "/atendente")


async def test_the_bot_serves_in_a_pending_conversation_without_secrets(
    bot: RunningBot, chatwoot: FakeChatwoot,
) -> None:
    _, talk = await maria_says(bot, chatwoot, "/menu")
    assert talk.status == "pending"
    said = chatwoot.contents(talk.id)
    assert said and "Como posso ajudar" in said[-1]
    digits = "".join(c for c in D.customer_cpf if c.isdigit())
    assert not any(digits in "".join(c for c in text if c.isdigit()) for text in said)  # the CPF she typed


async def test_a_handoff_opens_the_conversation_with_the_card(bot: RunningBot, chatwoot: FakeChatwoot) -> None:
    maria, talk = await handed_over(bot, chatwoot)
    assert "Chamei uma pessoa" in maria.text
    assert talk.status == "open" and talk.team_id == TEAM_ID
    contact = chatwoot.contacts[talk.contact_id]
    digits = "".join(c for c in D.customer_cpf if c.isdigit())
    shown = str(contact["custom_attributes"]["tax_id"])
    assert "*" in shown and digits not in "".join(c for c in shown if c.isdigit())  # masked
    assert contact["custom_attributes"]["channel"] == "telegram"
    assert contact["custom_attributes"]["customer_code"] == D.customer
    [card] = chatwoot.contents(talk.id, private=True)
    assert "5001" in card and "Boletos em aberto: 2" in card
    await maria.say("ainda estou sem internet")
    await bot.desk_done()
    assert maria.replies == []  # a person handles it now
    assert chatwoot.contents(talk.id)[-1] == "ainda estou sem internet"
    assert talk.messages[-1]["message_type"] == "incoming"


async def test_an_agents_reply_reaches_the_subscriber_and_a_note_never_does(
    bot: RunningBot, chatwoot: FakeChatwoot,
) -> None:
    _, talk = await handed_over(bot, chatwoot)
    heard = len(bot.api.sent(MARIA))
    await agent(bot, chatwoot, talk.id, "Olá! Vou verificar sua conexão.")
    [told] = bot.api.sent(MARIA)[heard:]
    assert "Olá! Vou verificar sua conexão." in (told.text or "") and "Ana" in (told.text or "")
    await agent(bot, chatwoot, talk.id, "cliente parece irritada", private=True)
    await agent(bot, chatwoot, talk.id, "/note cliente reiniciou a ONU", private=True)
    assert len(bot.api.sent(MARIA)) == heard + 1
    assert any("Nota" in note for note in chatwoot.contents(talk.id, private=True))


async def test_resolving_in_chatwoot_returns_the_chat_to_the_bot(bot: RunningBot, chatwoot: FakeChatwoot) -> None:
    maria, talk = await handed_over(bot, chatwoot)
    heard = len(bot.api.sent(MARIA))
    await chatwoot.resolve(talk.id)
    await chatwoot.settle()
    await bot.api.wait_for_sent(MARIA, count=heard + 1, within=10)
    assert "Voltei a atender" in (bot.api.sent(MARIA)[-1].text or "")
    await bot.desk_done()
    await maria.say("/menu")
    assert "Como posso ajudar" in maria.text  # the bot answers again
    await bot.desk_done()
    assert talk.status == "pending"  # the bot's again, not reopened for the agents
    assert len(chatwoot.conversations) == 1


async def test_a_failing_then_slow_chatwoot_loses_and_repeats_nothing(bot: RunningBot, chatwoot: FakeChatwoot) -> None:
    maria, talk = await handed_over(bot, chatwoot)
    chatwoot.fail("/messages", 502, count=2)
    await maria.say("um")
    chatwoot.fail("/messages", 500, after=True)
    await maria.say("dois")
    chatwoot.slow("/messages", 1.5)
    await maria.say("três")
    await maria.say("quatro")
    await bot.desk_done()
    assert chatwoot.contents(talk.id)[-4:] == ["um", "dois", "três", "quatro"]
    assert chatwoot.contents(talk.id).count("dois") == 1


async def test_an_agent_who_answers_a_chat_the_bot_serves_takes_it_over(
    bot: RunningBot, chatwoot: FakeChatwoot,
) -> None:
    maria, talk = await maria_says(bot, chatwoot, "/menu")
    assert talk.status == "pending"
    heard = len(bot.api.sent(MARIA))
    await agent(bot, chatwoot, talk.id, "Oi Maria, vi que a sua conexão caiu agora há pouco. Posso ajudar?")
    [told] = bot.api.sent(MARIA)[heard:]  # the reply, and no "a person is coming" before it
    assert "vi que a sua conexão caiu" in (told.text or "") and "Ana" in (told.text or "")
    assert talk.status == "open" and talk.team_id == TEAM_ID
    [card] = chatwoot.contents(talk.id, private=True)
    assert "5001" in card  # the staff see whose chat it is, as after a handoff
    await maria.say("sim, está sem internet")
    await bot.desk_done()
    assert maria.replies == []  # a person holds the chat: the bot keeps quiet
    assert chatwoot.contents(talk.id)[-1] == "sim, está sem internet"
    await chatwoot.resolve(talk.id)
    await chatwoot.settle()
    await bot.api.wait_for_sent(MARIA, count=heard + 2, within=10)
    assert "Voltei a atender" in (bot.api.sent(MARIA)[-1].text or "")
    assert len(chatwoot.conversations) == 1


async def test_a_take_over_the_isp_cannot_ticket_tells_the_agent_and_changes_nothing_for_the_person(
    bot: RunningBot, chatwoot: FakeChatwoot, sandbox: Sandbox,
) -> None:
    maria, talk = await maria_says(bot, chatwoot, "/menu")
    heard = len(bot.api.sent(MARIA))
    sandbox.faults.go_down()
    await agent(bot, chatwoot, talk.id, "Oi Maria, posso ajudar?")
    assert len(bot.api.sent(MARIA)) == heard and talk.status == "pending"
    [note] = chatwoot.contents(talk.id, private=True)
    assert "não foi entregue" in note
    sandbox.faults.come_back()
    await maria.say("/menu")
    assert "Como posso ajudar" in maria.text  # still the bot's chat


async def test_an_agent_listed_in_the_settings_assigns_the_ticket_to_their_own_isp_user(
    bot: RunningBot, chatwoot: FakeChatwoot, sandbox: Sandbox,
) -> None:
    chatwoot_desk = bot.runtime.desk.desk if bot.runtime.desk is not None else None
    assert isinstance(chatwoot_desk, ChatwootDesk)
    chatwoot_desk.agents = {AGENT_ID: "atendente.rui"}  # ISPBOT_CHATWOOT_AGENTS=12=atendente.rui
    _, talk = await handed_over(bot, chatwoot)
    await agent(bot, chatwoot, talk.id, "/assign", private=True)
    ticket = int(talk.custom_attributes["ticket"])
    assert sandbox.store.find("tickets", Numero=ticket)["Designacao_Usuario"] == "atendente.rui"
    assert any("atendente.rui" in note for note in chatwoot.contents(talk.id, private=True))


async def test_files_go_both_ways_as_files_for_a_telegram_subscriber(bot: RunningBot, chatwoot: FakeChatwoot) -> None:
    jpeg = b"\xff\xd8\xff\xe0" + b"luzes do roteador" * 32
    maria, talk = await handed_over(bot, chatwoot)
    bot.api.add_file("PHOTO2", jpeg)  # the largest size, which the bot fetches
    await maria.send(tg.photo_message(MARIA, "a luz vermelha"))
    await bot.desk_done()
    assert [(kind, data) for kind, data, _ in chatwoot.attachments(talk.id)] == [("image", jpeg)]

    heard = len(bot.api.sent(MARIA))
    await agent(bot, chatwoot, talk.id, "Veja", files=[("roteador.jpg", jpeg, "image/jpeg")])
    told = bot.api.sent(MARIA)[heard:]
    assert not any(chatwoot.url in str(sent.params) for sent in told)
    [photo] = [sent for sent in told if sent.method == "sendPhoto"]
    assert photo.params["photo"] == jpeg


async def test_a_handoff_tells_the_place_in_line_at_the_pace_chatwoot_agents_answered(
    database: Database, sandbox: Sandbox, chatwoot: FakeChatwoot, free_tcp_port: int,
) -> None:
    # The desk's pace comes from its own answers, the same handoff rows whichever desk answered.
    await answered_lately(database, 4, 5, 7)
    desk = BotSettings(_env_file=None, staff_desk="chatwoot", support_hours=HOURS)  # type: ignore[call-arg]
    settings = settings_for(chatwoot, timeout=1.0, team_id=TEAM_ID)
    async with running_bot(database, sandbox, bot_settings=desk, chatwoot=settings) as running:
        first = await running.maria(MARIA)
        await first.say("/atendente")
        assert "Você é o próximo da fila. Espera estimada: cerca de 5 minutos." in first.text
        second = await running.maria(MARIA + 1)
        await second.say("/atendente")
        assert "Há 1 pessoa na sua frente. Espera estimada: cerca de 10 minutos." in second.text
        at(sandbox, datetime(2025, 3, 14, 18, 30, tzinfo=ISP_ZONE))  # Friday after closing
        third = await running.maria(MARIA + 2)
        await third.say("/atendente")
        assert "respondemos amanhã a partir das 8h." in third.text  # Saturday morning
        assert "Antes de você, 2 pessoas aguardam." in third.text
