"""A WhatsApp-only bot with its staff desk in Chatwoot: both webhooks on one web server, a WhatsApp
subscriber's handoff opening the conversation (the contact says "whatsapp"), and an agent's reply,
kept under the chat's channel, answered by this process on WhatsApp."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import httpx
from bot.desks.chatwoot.desk import identifier
from bot.desks.chatwoot.intake import PATH, REPLIES
from bot.isp import IspClient, IspSettings
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import PRODUCTION_KEY, Sandbox
from bot.settings import BotSettings
from bot.store import Database
from bot.store.channels import WHATSAPP, ChannelIds
from bot.store.models import InboxRow
from bot.web import serve
from flows.desk import DeskChat

from tests.chatwoot.conftest import chatwoot, settings_for  # noqa: F401 - the fake Chatwoot's fixture
from tests.chatwoot.fake_chatwoot import TEAM_ID, Conversation, FakeChatwoot
from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import MARIA_WA_ID, RunningWhatsApp, whatsapp_settings


async def test_a_whatsapp_subscriber_is_served_from_chatwoot(
    database: Database, sandbox: Sandbox, chatwoot: FakeChatwoot, free_tcp_port: int,  # noqa: F811
) -> None:
    api = FakeCloudApi()
    client = IspClient(IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0),
                       http_transport=httpx.ASGITransport(app=sandbox.app))
    bot = RunningWhatsApp(
        api, database, client, sandbox, whatsapp_settings(api),
        bot_settings=BotSettings(_env_file=None, staff_desk="chatwoot"),  # type: ignore[call-arg]
        chatwoot=settings_for(chatwoot, timeout=1.0, team_id=TEAM_ID),
    )
    await bot.start()
    stop = asyncio.Event()
    server = asyncio.create_task(serve(bot.runtime.web_app(), "127.0.0.1", free_tcp_port, stop))
    try:
        chatwoot.webhook_url = f"http://127.0.0.1:{free_tcp_port}{PATH}"
        for _ in range(400):
            if await chatwoot.post_webhook({"event": "ping"}) == 200:
                break
            await asyncio.sleep(0.01)
        assert bot.web is not None
        assert (await bot.web.get("/whatsapp/webhook", params={"hub.mode": "x"})).status_code == 403  # served too

        maria = bot.chat(MARIA_WA_ID)
        await maria.say("oi")
        await maria.tap("CPF/CNPJ")
        await maria.say(D.customer_cpf)
        await maria.say("/atendente")
        assert "Chamei uma pessoa" in maria.text
        await bot.desk_done()
        async with database.session() as session:
            chat_id = (await ChannelIds().chat_ids(session, WHATSAPP, [MARIA_WA_ID], sandbox.clock()))[MARIA_WA_ID]
        talk = chatwoot.conversation_of(identifier(DeskChat(chat_id, WHATSAPP, "pt_BR", "")))
        assert talk is not None and talk.status == "open"
        assert chatwoot.contacts[talk.contact_id]["custom_attributes"]["channel"] == WHATSAPP
        [card] = chatwoot.contents(talk.id, private=True)
        assert "Atendimento pedido pelo WhatsApp" in card and "5001" in card

        heard = len(api.to(MARIA_WA_ID))
        message = await chatwoot.agent_reply(talk.id, "Olá! Vou verificar sua conexão.")
        told = (await api.wait_for_sent(MARIA_WA_ID, heard + 1))[heard:]
        assert len(told) == 1 and "Olá! Vou verificar sua conexão." in told[0].text
        async with database.session() as session:
            row = await session.get(InboxRow, REPLIES + message["id"])
        assert row is not None and row.channel == WHATSAPP  # read by this process, which runs WhatsApp only
    finally:
        await chatwoot.settle()
        stop.set()
        await server
        await bot.shutdown()
        await client.aclose()


@contextlib.asynccontextmanager
async def _served(database: Database, sandbox: Sandbox, chatwoot: FakeChatwoot,  # noqa: F811
                  port: int, api: FakeCloudApi | None = None) -> AsyncIterator[RunningWhatsApp]:
    """A WhatsApp bot with its desk in the fake Chatwoot, whose webhooks reach it on ``port``."""
    api = api or FakeCloudApi()
    client = IspClient(IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0),
                       http_transport=httpx.ASGITransport(app=sandbox.app))
    bot = RunningWhatsApp(
        api, database, client, sandbox, whatsapp_settings(api),
        bot_settings=BotSettings(_env_file=None, staff_desk="chatwoot"),  # type: ignore[call-arg]
        chatwoot=settings_for(chatwoot, timeout=1.0, team_id=TEAM_ID),
    )
    await bot.start()
    stop = asyncio.Event()
    server = asyncio.create_task(serve(bot.runtime.web_app(), "127.0.0.1", port, stop))
    try:
        chatwoot.webhook_url = f"http://127.0.0.1:{port}{PATH}"
        for _ in range(400):
            if await chatwoot.post_webhook({"event": "ping"}) == 200:
                break
            await asyncio.sleep(0.01)
        yield bot
    finally:
        await chatwoot.settle()
        stop.set()
        await server
        await bot.shutdown()
        await client.aclose()


async def _handed_over(bot: RunningWhatsApp, chatwoot: FakeChatwoot) -> Conversation:  # noqa: F811
    maria = bot.chat(MARIA_WA_ID)
    await maria.say("oi")
    await maria.tap("CPF/CNPJ")
    await maria.say(D.customer_cpf)
    await maria.say("/atendente")
    await bot.desk_done()
    async with bot.database.session() as session:
        chat_id = (await ChannelIds().chat_ids(session, WHATSAPP, [MARIA_WA_ID], bot.sandbox.clock()))[MARIA_WA_ID]
    talk = chatwoot.conversation_of(identifier(DeskChat(chat_id, WHATSAPP, "pt_BR", "")))
    assert talk is not None and talk.status == "open"
    return talk


JPEG = b"\xff\xd8\xff\xe0" + b"foto do roteador" * 64
PDF = b"%PDF-1.4\n" + b"laudo" * 64


async def test_files_go_both_ways_as_files_and_the_hand_back_is_in_the_conversation(
    database: Database, sandbox: Sandbox, chatwoot: FakeChatwoot, free_tcp_port: int,  # noqa: F811
) -> None:
    async with _served(database, sandbox, chatwoot, free_tcp_port) as bot:
        api, maria = bot.api, bot.chat(MARIA_WA_ID)
        talk = await _handed_over(bot, chatwoot)

        # The subscriber's photo and document reach the conversation as attachments, bytes and all.
        await maria.send(wa.image(MARIA_WA_ID, api.add_media(JPEG, "image/jpeg"), "a luz vermelha"))
        await maria.send(wa.document(MARIA_WA_ID, api.add_media(PDF, "application/pdf"), "fatura.pdf"))
        await bot.desk_done()
        files = chatwoot.attachments(talk.id)
        assert [(kind, data) for kind, data, _ in files] == [("image", JPEG), ("file", PDF)]
        assert files[1][2] == "fatura.pdf"
        assert chatwoot.contents(talk.id, private=False)[-2:] == ["a luz vermelha", ""]  # the files say the rest

        # An agent's image and file reach her as WhatsApp media of their own, never as a link.
        heard = len(api.to(MARIA_WA_ID))
        await chatwoot.agent_reply(talk.id, "Veja a foto", files=[("roteador.jpg", JPEG, "image/jpeg")])
        await chatwoot.agent_reply(talk.id, "", files=[("laudo.pdf", PDF, "application/pdf")])
        told = (await api.wait_for_sent(MARIA_WA_ID, heard + 3))[heard:]  # the words, the photo, the file
        assert not any(chatwoot.url in sent.text or "active_storage" in json.dumps(sent.body) for sent in told)
        media = [sent.body for sent in told if sent.type in ("image", "document")]
        assert [body["type"] for body in media] == ["image", "document"]
        assert [api.uploads[body[body["type"]]["id"]][0] for body in media] == [JPEG, PDF]
        assert media[1]["document"]["filename"] == "laudo.pdf"
        assert "Veja a foto" in told[0].text

        # The agent hands the chat back: what the bot told her is in the conversation too.
        heard = len(api.to(MARIA_WA_ID))
        await chatwoot.agent_reply(talk.id, "/bot", private=True)
        (back,) = (await api.wait_for_sent(MARIA_WA_ID, heard + 1))[heard:]
        assert "Voltei a atender" in back.text
        await bot.desk_done()
        public = chatwoot.contents(talk.id, private=False)
        assert any("Voltei a atender" in content for content in public)


async def test_agents_replies_whose_webhook_was_lost_are_read_back_once_in_order(
    database: Database, sandbox: Sandbox, chatwoot: FakeChatwoot, free_tcp_port: int,  # noqa: F811
) -> None:
    """Chatwoot posts an API inbox's webhook once (a failed post marks the message failed, nothing
    more): what agents wrote while the bot was down reaches the person when it is back, once."""
    api = FakeCloudApi()
    async with _served(database, sandbox, chatwoot, free_tcp_port, api=api) as bot:
        talk = await _handed_over(bot, chatwoot)
        await chatwoot.agent_reply(talk.id, "Primeira resposta, entregue.")
        await api.wait_for_sent(MARIA_WA_ID, len(api.to(MARIA_WA_ID)) + 1)
    heard = len(api.to(MARIA_WA_ID))
    # The bot is down: Chatwoot's posts fail and are not sent again.
    await chatwoot.agent_reply(talk.id, "Segunda, enquanto o bot estava fora.")
    await chatwoot.agent_reply(talk.id, "Terceira, também.")
    await chatwoot.agent_reply(talk.id, "uma nota que não é para ela", private=True)
    assert [d.status for d in chatwoot.deliveries[-3:]] == [None, None, None]
    async with _served(database, sandbox, chatwoot, free_tcp_port, api=api) as bot:
        told = (await api.wait_for_sent(MARIA_WA_ID, heard + 2))[heard:]
        assert [sent.text.split(": ", 1)[-1] for sent in told] == [
            "Segunda, enquanto o bot estava fora.", "Terceira, também."]
        # An agent's next reply comes by its webhook as before; nothing is told twice meanwhile.
        await chatwoot.agent_reply(talk.id, "Quarta, com o bot de volta.")
        told = (await api.wait_for_sent(MARIA_WA_ID, heard + 3))[heard:]
        assert await bot.runtime.recovery.round() == 0  # type: ignore[union-attr]
        await bot.desk_done()
        texts = [sent.text for sent in api.to(MARIA_WA_ID)]
        for words in ("Primeira", "Segunda", "Terceira", "Quarta"):
            assert sum(words in text for text in texts) == 1, texts
        assert not any("nota" in text for text in texts)


async def test_the_first_message_after_a_hand_back_is_answered_as_any_other(
    database: Database, sandbox: Sandbox, chatwoot: FakeChatwoot, free_tcp_port: int,  # noqa: F811
) -> None:
    async with _served(database, sandbox, chatwoot, free_tcp_port) as bot:
        api, maria = bot.api, bot.chat(MARIA_WA_ID)
        talk = await _handed_over(bot, chatwoot)
        heard = len(api.to(MARIA_WA_ID))
        await chatwoot.agent_reply(talk.id, "/bot", private=True)
        await api.wait_for_sent(MARIA_WA_ID, heard + 1)
        await maria.say("segunda via do boleto")
        after = maria.text
        await maria.say("menu")
        await maria.say("segunda via do boleto")
        assert "28/03/2025" in maria.text  # what the words ask, at the menu
        assert "28/03/2025" in after, after  # and the same right after the hand-back


async def test_a_conversation_resolved_while_the_bot_was_down_hands_the_chat_back_once(
    database: Database, sandbox: Sandbox, chatwoot: FakeChatwoot, free_tcp_port: int,  # noqa: F811
) -> None:
    api = FakeCloudApi()
    async with _served(database, sandbox, chatwoot, free_tcp_port, api=api) as bot:
        talk = await _handed_over(bot, chatwoot)
    heard = len(api.to(MARIA_WA_ID))
    await chatwoot.resolve(talk.id)  # its webhook fails: the bot is down
    assert chatwoot.deliveries[-1].status is None
    async with _served(database, sandbox, chatwoot, free_tcp_port, api=api) as bot:
        (back,) = (await api.wait_for_sent(MARIA_WA_ID, heard + 1))[heard:]
        assert "Voltei a atender" in back.text
        await bot.desk_done()
        assert await bot.runtime.recovery.round() == 0  # type: ignore[union-attr]
        maria = bot.chat(MARIA_WA_ID)
        await maria.say("segunda via do boleto")  # the bot's again: it answers
        assert "28/03/2025" in maria.text
        assert sum("Voltei a atender" in sent.text for sent in api.to(MARIA_WA_ID)) == 1
