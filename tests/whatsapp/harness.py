"""The whole bot on WhatsApp, in a test: the fake Cloud API, the seeded sandbox ISP in-process, a
scratch database, and the bot's own web app receiving Meta's signed posts.

    async with running_whatsapp(database, sandbox) as bot:
        chat = bot.chat(MARIA_WA_ID)
        await chat.say("oi")
        assert "CPF" in chat.text
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from bot.channels.whatsapp.channel import WhatsAppChannel
from bot.channels.whatsapp.settings import WhatsAppSettings
from bot.desks.chatwoot.settings import ChatwootSettings
from bot.isp import IspClient, IspSettings
from bot.runtime.app import App, Runtime, Settings, build_app
from bot.sandbox import PRODUCTION_KEY, Sandbox
from bot.settings import BotSettings, ServerSettings
from bot.store import Database, DeskJobState, InboxState
from bot.store.channels import UPDATE_BASE
from bot.store.models import ChannelUpdateRow, DeskJobRow, InboxRow
from sqlalchemy import func, select

from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi, Sent

MARIA_WA_ID = "5511987654321"  # the demo customer's mobile, as WhatsApp gives it


def whatsapp_settings(api: FakeCloudApi, **overrides: Any) -> WhatsAppSettings:
    values: dict[str, Any] = {
        "whatsapp_token": api.token, "whatsapp_phone_number_id": api.phone_number_id,
        "whatsapp_app_secret": api.app_secret, "whatsapp_verify_token": wa.VERIFY_TOKEN,
        "whatsapp_api_url": wa.BASE_URL, "whatsapp_api_version": wa.VERSION, **overrides,
    }
    return WhatsAppSettings(_env_file=None, **values)  # type: ignore[call-arg]


@dataclass
class RunningWhatsApp:
    api: FakeCloudApi
    database: Database
    client: IspClient
    sandbox: Sandbox
    settings: WhatsAppSettings
    app: App = field(init=False)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    web: httpx.AsyncClient | None = None
    bot_settings: BotSettings | None = None
    chatwoot: ChatwootSettings | None = None  # with ``bot_settings.staff_desk == "chatwoot"``
    concurrency: int | None = None  # chats processed at once (None: the server's default)

    @property
    def runtime(self) -> Runtime:
        assert self.app.runtime is not None
        return self.app.runtime

    @property
    def channel(self) -> WhatsAppChannel:
        assert self.runtime.whatsapp is not None
        return self.runtime.whatsapp

    async def start(self) -> None:
        self.app = await build_app(
            Settings(self.client.settings, self.bot_settings or BotSettings(), whatsapp_settings=self.settings,
                     server_settings=ServerSettings(  # type: ignore[call-arg]
                         _env_file=None, **({} if self.concurrency is None else {"concurrency": self.concurrency})),
                     chatwoot_settings=self.chatwoot),
            database=self.database, client=self.client, wall_clock=self.sandbox.clock,
            whatsapp_transport=httpx.ASGITransport(app=self.api.app),
        )
        await self.runtime.start()
        self.channel.sender.pair = wa_fast_pair()
        self.stop = asyncio.Event()
        self.web = httpx.AsyncClient(transport=httpx.ASGITransport(app=self.runtime.web_app()),
                                     base_url="http://bot.test")
        self.task = asyncio.create_task(self.runtime.run_webhook(self.stop, self.stop.wait()))

    async def shutdown(self, *, graceful: bool = True) -> None:
        self.stop.set()
        self.runtime.processor.wake()
        if self.task is not None:
            if graceful:
                await asyncio.wait_for(self.task, 10)
            else:
                self.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self.task
        if graceful:
            await self.runtime.stop()
        else:
            await self.channel.sender.aclose(within=0)
        if self.web is not None:
            await self.web.aclose()
            self.web = None

    async def post(self, body: dict[str, Any], *, signature: str | None = None) -> httpx.Response:
        """What Meta posts, signed with the app secret unless ``signature`` says otherwise ("" for none)."""
        assert self.web is not None
        raw = wa.encoded(body)
        headers = {"Content-Type": "application/json"}
        signature = wa.sign(raw, self.api.app_secret) if signature is None else signature
        if signature:
            headers["X-Hub-Signature-256"] = signature
        for change in body["entry"][0]["changes"]:
            for message in change["value"].get("messages", []):
                if "from" in message:
                    self.api.inbound(message["from"])
        return await self.web.post("/whatsapp/webhook", content=raw, headers=headers)

    async def update_id(self, wamid: str) -> int | None:
        async with self.database.session() as session:
            found = (await session.execute(
                select(ChannelUpdateRow.id).where(ChannelUpdateRow.external_id == wamid))).scalar_one_or_none()
        return None if found is None else UPDATE_BASE + found

    async def desk_done(self) -> None:
        """Wait until the staff desk carried out the jobs the turns wrote (it does so after they commit)."""
        desk = self.runtime.desk
        assert desk is not None, "no staff desk in this bot"
        while True:
            async with self.database.session() as session:
                pending = await session.scalar(select(func.count()).select_from(DeskJobRow).where(
                    DeskJobRow.state == DeskJobState.PENDING.value))
            if not pending:
                return
            desk.wake()
            await asyncio.sleep(0.01)

    async def handled(self, wamid: str, within: float = 15.0) -> None:
        """Wait until the message was processed and its answer accepted by the fake Cloud API."""
        async with asyncio.timeout(within):
            while True:
                update_id = await self.update_id(wamid)
                if update_id is not None:
                    async with self.database.session() as session:
                        row = await session.get(InboxRow, update_id, populate_existing=True)
                    if row is not None and row.state != InboxState.PENDING.value:
                        if row.answer is None:
                            return
                        self.runtime.processor.wake()
                await asyncio.sleep(0.01)

    def chat(self, wa_id: str) -> WhatsAppChat:
        return WhatsAppChat(self, wa_id)


def wa_fast_pair() -> Any:
    """Meta's per-person pace would make a walked flow wait seconds between answers; the sender's
    own tests cover it."""
    from bot.channels.whatsapp.sender import Pace  # noqa: PLC0415

    return Pace(burst=1000, every=0.001)


@contextlib.asynccontextmanager
async def running_whatsapp(
    database: Database, sandbox: Sandbox, *, api: FakeCloudApi | None = None, concurrency: int | None = None,
    **overrides: Any,
) -> AsyncIterator[RunningWhatsApp]:
    api = api or FakeCloudApi()
    client = IspClient(
        IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0),
        http_transport=httpx.ASGITransport(app=sandbox.app),
    )
    bot = RunningWhatsApp(api, database, client, sandbox, whatsapp_settings(api, **overrides))
    bot.concurrency = concurrency
    await bot.start()
    try:
        yield bot
    finally:
        await bot.shutdown()
        await client.aclose()


@dataclass
class WhatsAppChat:
    """A person writing to the bot's number: each action posts one webhook and waits for its answer."""

    __test__ = False
    bot: RunningWhatsApp
    wa_id: str
    replies: list[Sent] = field(default_factory=list)  # what the bot sent for the last action

    @property
    def text(self) -> str:
        return "\n".join(sent.text for sent in self.replies)

    async def send(self, message: dict[str, Any]) -> list[Sent]:
        before = len(self.bot.api.to(self.wa_id))
        response = await self.bot.post(wa.post(message))
        assert response.status_code == 200, response.text
        await self.bot.handled(message["id"])
        self.replies = self.bot.api.to(self.wa_id)[before:]
        return self.replies

    async def say(self, body: str) -> list[Sent]:
        return await self.send(wa.text(self.wa_id, body))

    def option(self, label: str) -> tuple[str, str]:
        """(id, kind) of the newest button or list row whose title contains ``label``."""
        for sent in reversed(self.bot.api.to(self.wa_id)):
            for option_id, title in sent.options():
                if label in title:
                    return option_id, sent.body["interactive"]["type"]
        raise AssertionError(f"no option with {label!r} for {self.wa_id}")

    async def tap(self, label: str) -> list[Sent]:
        option_id, kind = self.option(label)
        reply = wa.button_reply if kind == "button" else wa.list_reply
        return await self.send(reply(self.wa_id, option_id, label))
