"""Telegram and WhatsApp in one process: one inbox, one processor routing each update to its
channel, a notice crossing from one channel to the other (a technician on Telegram moves the visit
of a customer who writes on WhatsApp), each channel's answers on its own API, and the Telegram forum
desk serving a WhatsApp subscriber (her turns write desk jobs; the staff's answers reach her as
notices routed by her chat's channel; after 24 hours each as its own kind's template)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from bot.channels.telegram.settings import TelegramSettings
from bot.isp import IspClient, IspSettings
from bot.runtime.app import Settings, build_app
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import PRODUCTION_KEY, Sandbox
from bot.settings import BotSettings
from bot.store import Database
from bot.store.models import InboxRow
from sqlalchemy import select, update

from tests.telegram import fake_bot_api as tg
from tests.telegram.fake_bot_api import FakeBotApi
from tests.telegram.harness import RunningBot, fast_sender_limits, joined_technician
from tests.telegram.test_staff_handoff import STAFF_USER, in_topic, staff_member
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import MARIA_WA_ID, RunningWhatsApp, wa_fast_pair, whatsapp_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "ops" / "whatsapp-templates.yaml"


@dataclass
class RunningBoth(RunningBot):
    wa_api: FakeCloudApi = field(default_factory=FakeCloudApi)
    wa_overrides: dict[str, Any] = field(default_factory=dict)

    async def start(self) -> None:
        self.app = await build_app(
            Settings(self.client.settings, BotSettings(), self.settings,
                     whatsapp_settings(self.wa_api, **self.wa_overrides)),
            database=self.database, client=self.client, wall_clock=self.sandbox.clock,
            sender_limits=self.sender_limits, whatsapp_transport=httpx.ASGITransport(app=self.wa_api.app),
        )
        await self.runtime.start()
        assert self.runtime.whatsapp is not None
        self.runtime.whatsapp.sender.pair = wa_fast_pair()
        self.task = asyncio.create_task(self.runtime.run_polling(self.stop, poll_timeout=1))

    def whatsapp(self) -> RunningWhatsApp:
        """The WhatsApp side of the same bot, for ``WhatsAppChat``."""
        side = RunningWhatsApp(self.wa_api, self.database, self.client, self.sandbox, whatsapp_settings(self.wa_api))
        side.app = self.app
        side.web = httpx.AsyncClient(transport=httpx.ASGITransport(app=self.runtime.web_app()),
                                     base_url="http://bot.test")
        return side


@contextlib.asynccontextmanager
async def running_both(
    database: Database, sandbox: Sandbox, *, staff_chat_id: int | None = None, wa_api: FakeCloudApi | None = None,
    **wa_overrides: Any,
) -> AsyncIterator[RunningBoth]:
    async with FakeBotApi(max_poll_timeout=0.25) as api:
        client = IspClient(IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0),
                           http_transport=httpx.ASGITransport(app=sandbox.app))
        settings = TelegramSettings(telegram_token=api.token, telegram_api_url=api.base_url, concurrency=8,
                                    staff_chat_id=staff_chat_id)
        bot = RunningBoth(api, database, client, sandbox, settings, fast_sender_limits(), "polling",
                          wa_api=wa_api or FakeCloudApi(), wa_overrides=wa_overrides)
        await bot.start()
        try:
            yield bot
        finally:
            await bot.shutdown()
            await client.aclose()


async def test_one_process_answers_both_channels_and_a_notice_crosses_to_whatsapp(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_both(database, sandbox) as bot:
        side = bot.whatsapp()
        maria = side.chat(MARIA_WA_ID)
        await maria.say("oi")
        await maria.tap("CPF/CNPJ")
        await maria.say(D.customer_cpf)
        assert "Este WhatsApp agora está vinculado" in maria.text

        telegram_person = bot.chat(4242)
        await telegram_person.start()
        assert "titular" in telegram_person.text and "Telegram" in telegram_person.text

        tech = await joined_technician(bot, 5151)
        await tech.say("/agenda")
        await tech.tap("11/03")
        await tech.say("/agenda")
        before = len(bot.wa_api.to(MARIA_WA_ID))
        await tech.tap("#70001")
        await tech.tap("Status da OS")
        await tech.tap("A caminho")
        told = await bot.wa_api.wait_for_sent(MARIA_WA_ID, before + 1)
        assert "caminho" in told[-1].text.lower()
        assert all(sent.chat_id != (1 << 53) + 1 for sent in bot.api.outgoing())  # nothing of hers on Telegram
        async with database.session() as session:
            channels = set((await session.execute(select(InboxRow.channel))).scalars())
        assert channels == {"telegram", "whatsapp"}
        assert side.web is not None
        await side.web.aclose()


async def test_a_whatsapp_subscriber_reaches_the_staff_desk_and_its_answer_comes_back_on_whatsapp(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_both(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        await staff_member(bot)
        side = bot.whatsapp()
        maria = side.chat(MARIA_WA_ID)
        await maria.say("oi")
        await maria.tap("CPF/CNPJ")
        await maria.say(D.customer_cpf)
        await maria.say("/atendente")
        assert "Chamei uma pessoa" in maria.text
        await bot.desk_done()  # the desk worker opens the topic once her turn committed
        [topic] = bot.api.topics(tg.STAFF_GROUP_ID)
        thread = topic["message_thread_id"]
        [card] = in_topic(bot, thread)
        assert "Atendimento pedido pelo WhatsApp" in card and "5001" in card

        await maria.say("ainda estou sem internet")
        assert maria.replies == []  # a person handles it now
        await bot.desk_done()
        assert "ainda estou sem internet" in in_topic(bot, thread)[-1]

        heard = len(bot.wa_api.to(MARIA_WA_ID))
        await bot.handled(bot.api.push_update(tg.topic_message(thread, "Olá! Vou verificar.", user_id=STAFF_USER)))
        told = (await bot.wa_api.wait_for_sent(MARIA_WA_ID, heard + 1))[heard:]
        assert len(told) == 1 and "Olá! Vou verificar." in told[0].text and "*" in told[0].text  # name in bold
        assert all(sent.chat_id != (1 << 53) + 1 for sent in bot.api.outgoing())  # nothing to her on Telegram
        assert side.web is not None
        await side.web.aclose()


async def test_after_24_hours_the_staff_answer_and_the_technician_on_the_way_go_as_their_own_templates(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_both(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID, wa_api=FakeCloudApi(window=True),
                            whatsapp_templates=EXAMPLE) as bot:
        await staff_member(bot)
        side = bot.whatsapp()
        maria = side.chat(MARIA_WA_ID)
        await maria.say("oi")
        await maria.tap("CPF/CNPJ")
        await maria.say(D.customer_cpf)
        await maria.say("/atendente")
        await bot.desk_done()
        [topic] = bot.api.topics(tg.STAFF_GROUP_ID)
        bot.wa_api.inbound_clear(MARIA_WA_ID)  # she last wrote more than a day ago

        heard = len(bot.wa_api.to(MARIA_WA_ID))
        await bot.handled(bot.api.push_update(tg.topic_message(topic["message_thread_id"], "Já resolvi.\nPode testar?",
                                                               user_id=STAFF_USER)))
        template = (await bot.wa_api.wait_for_sent(MARIA_WA_ID, heard + 1))[-1].body["template"]
        assert template["name"] == "ispbot_staff_answer" and template["language"] == {"code": "pt_BR"}
        name, said = (p["text"] for p in template["components"][0]["parameters"])
        assert name and said == "Já resolvi. · Pode testar?"

        tech = await joined_technician(bot, 5151)
        await tech.say("/agenda")
        await tech.tap("11/03")
        await tech.say("/agenda")
        await tech.tap("#70001")
        await tech.tap("Status da OS")
        await tech.tap("A caminho")
        template = (await bot.wa_api.wait_for_sent(MARIA_WA_ID, heard + 2))[-1].body["template"]
        assert template["name"] == "ispbot_technician_on_the_way"
        assert bot.wa_api.errors == {131047: 2}  # each plain message refused once, then its template
        assert side.web is not None
        await side.web.aclose()


async def test_a_staff_members_photo_at_the_telegram_desk_reaches_whatsapp_as_an_image(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_both(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        await staff_member(bot)
        side = bot.whatsapp()
        maria = side.chat(MARIA_WA_ID)
        await maria.say("oi")
        await maria.tap("CPF/CNPJ")
        await maria.say(D.customer_cpf)
        await maria.say("/atendente")
        await bot.desk_done()
        [topic] = bot.api.topics(tg.STAFF_GROUP_ID)
        photo = b"\xff\xd8\xff\xe0 the router's lights, photographed"
        bot.api.add_file("PHOTO2", photo)  # the largest size, which the bot fetches
        update = tg.photo_message(tg.STAFF_GROUP_ID, "Deixe assim", user_id=STAFF_USER)
        update["message"].update(message_thread_id=topic["message_thread_id"], is_topic_message=True)
        heard = len(bot.wa_api.to(MARIA_WA_ID))
        await bot.handled(bot.api.push_update(update))
        told = (await bot.wa_api.wait_for_sent(MARIA_WA_ID, heard + 2))[heard:]
        assert "Deixe assim" in told[0].text
        assert told[1].type == "image"
        data, mime, _ = bot.wa_api.uploads[told[1].body["image"]["id"]]
        assert data == photo and mime == "image/jpeg"
        assert side.web is not None
        await side.web.aclose()


async def test_a_technician_is_not_told_the_customer_heard_a_notice_whatsapp_held(
    database: Database, sandbox: Sandbox,
) -> None:
    """No template for ``technician_on_the_way`` and Maria wrote on WhatsApp more than a day ago: the
    notice is held, and the technician hears that, not "the customer was told"."""
    async with running_both(database, sandbox, wa_api=FakeCloudApi(window=True)) as bot:
        side = bot.whatsapp()
        maria = side.chat(MARIA_WA_ID)
        await maria.say("oi")
        await maria.tap("CPF/CNPJ")
        await maria.say(D.customer_cpf)
        bot.wa_api.inbound_clear(MARIA_WA_ID)
        async with database.transaction() as session:  # she last wrote more than a day ago
            await session.execute(update(InboxRow).where(InboxRow.channel == "whatsapp").values(
                received_at=datetime.now(UTC) - timedelta(hours=25)))
        tech = await joined_technician(bot, 5151)
        await tech.say("/agenda")
        await tech.tap("11/03")
        await tech.say("/agenda")
        await tech.tap("#70001")
        await tech.tap("Status da OS")
        await tech.tap("A caminho")
        assert "O cliente foi avisado" not in tech.text
        assert "não</b> foi avisado" in tech.text or "não foi avisado" in tech.text, tech.text
        assert side.web is not None
        await side.web.aclose()
