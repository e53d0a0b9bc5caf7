"""A WhatsApp-only bot with its staff desk in Chatwoot: both webhooks on one web server, a WhatsApp
subscriber's handoff opening the conversation (the contact says "whatsapp"), and an agent's reply,
kept under the chat's channel, answered by this process on WhatsApp."""

from __future__ import annotations

import asyncio

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
from tests.chatwoot.fake_chatwoot import TEAM_ID, FakeChatwoot
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
