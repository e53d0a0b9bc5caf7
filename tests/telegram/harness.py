"""The whole bot on Telegram, in a test: the fake Bot API over real HTTP, the seeded sandbox ISP
in-process, a scratch database, and the real python-telegram-bot ``Bot`` under our channel.

    async with running_bot(database, sandbox) as bot:
        bot.api.push_update(text_message(42, "oi"))
        await bot.api.wait_for_sent(42, count=1, within=5)

``running_bot`` polls by default; ``mode="webhook"`` serves ``bot.web``'s ASGI app instead and
``bot.post(update)`` delivers an update the way Telegram would. ``bot.shutdown(graceful=False)``
stops the bot as a crash would leave it (no drain); ``bot.start()`` then builds a new one (the
composition root, ``bot.runtime.app``) on the same database.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from bot.acs import AcsSettings
from bot.channels.telegram.channel import TelegramChannel
from bot.channels.telegram.sender import Rate
from bot.channels.telegram.settings import TelegramSettings
from bot.desks.chatwoot.settings import ChatwootSettings
from bot.isp import IspClient, IspSettings
from bot.runtime.app import App, Runtime, Settings, build_app
from bot.runtime.processor import Processor
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, Sandbox
from bot.sandbox.genieacs import ACS_URL
from bot.settings import BotSettings
from bot.store import Database, DeskJobState, InboxState, Invites, Role
from bot.store.models import DeskJobRow, InboxRow
from sqlalchemy import func, select

from tests.telegram import fake_bot_api as tg
from tests.telegram.fake_bot_api import FakeBotApi, Sent

WEBHOOK_SECRET = "test-webhook-secret-0123456789"


def fast_sender_limits() -> dict[str, Any]:
    """Telegram's real limits would make every multi-message turn take a second; the sender's own
    tests cover the limits, these tests cover the bot around it."""
    return {"overall": Rate(10_000, 1.0), "private_chat": Rate(1_000, 1.0), "group_chat": Rate(1_000, 1.0)}


@dataclass
class RunningBot:
    api: FakeBotApi
    database: Database
    client: IspClient
    sandbox: Sandbox
    settings: TelegramSettings
    sender_limits: dict[str, Any]
    mode: str
    app: App = field(init=False)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    web: httpx.AsyncClient | None = None
    poll_timeout: int = 1
    bot_settings: BotSettings | None = None  # None: from the environment, as `ispbot run` reads them
    chatwoot: ChatwootSettings | None = None
    acs: httpx.AsyncBaseTransport | None = None  # the ISP's ACS: a fake GenieACS NBI (bot/sandbox/genieacs.py)

    @property
    def runtime(self) -> Runtime:
        assert self.app.runtime is not None
        return self.app.runtime

    @property
    def channel(self) -> TelegramChannel:
        return self.runtime.channel

    @property
    def processor(self) -> Processor:
        return self.runtime.processor

    async def start(self) -> None:
        self.app = await build_app(
            Settings(self.client.settings, self.bot_settings or BotSettings(), self.settings,
                     chatwoot_settings=self.chatwoot,
                     acs_settings=AcsSettings(_env_file=None, url=ACS_URL) if self.acs is not None else None),
            database=self.database, client=self.client, wall_clock=self.sandbox.clock, sender_limits=self.sender_limits,
            acs_transport=self.acs,
        )
        await self.runtime.start()
        self.stop = asyncio.Event()
        if self.mode == "webhook":
            self.web = httpx.AsyncClient(
                transport=httpx.ASGITransport(app=self.runtime.web_app()), base_url="http://bot.test",
            )
            webhooks_set = self.api.answered["setWebhook"]
            self.task = asyncio.create_task(self.runtime.run_webhook(self.stop, self.stop.wait()))
            # Started as a process is: once Telegram was told where to post, so a test that makes the
            # fake unreachable next does not refuse the bot's own start.
            told = asyncio.create_task(self.api.wait_until(
                lambda: self.api.answered["setWebhook"] > webhooks_set, within=10))
            await asyncio.wait([told, self.task], return_when=asyncio.FIRST_COMPLETED)
            if self.task.done():  # the bot could not start: its error, not a timeout
                told.cancel()
                await self.task
            await told
        else:
            self.task = asyncio.create_task(self.runtime.run_polling(self.stop, poll_timeout=self.poll_timeout))

    async def shutdown(self, *, graceful: bool = True) -> None:
        self.stop.set()
        self.processor.wake()  # see the stop now, not after the idle wait
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
            await self.channel.bot.shutdown()
        if self.web is not None:
            await self.web.aclose()
            self.web = None

    async def handled(self, update_id: int, within: float = 15.0) -> None:
        """Wait until the update was processed and its answer accepted by the fake Telegram."""
        async with asyncio.timeout(within):
            while True:
                async with self.app.database.session() as session:
                    row = await session.get(InboxRow, update_id, populate_existing=True)
                if row is not None and row.state != InboxState.PENDING.value and row.answer is None:
                    await self.desk_done()
                    return
                if row is not None and row.state != InboxState.PENDING.value:
                    # Answered: the processor records the delivery on its next turn; start that turn now
                    # rather than after its idle wait.
                    self.processor.wake()
                await asyncio.sleep(0.01)

    async def desk_done(self) -> None:
        """Wait until the staff desk carried out the jobs the turns wrote (it does so after they commit)."""
        if self.runtime.desk is None:
            return
        while True:
            async with self.app.database.session() as session:
                pending = await session.scalar(select(func.count()).select_from(DeskJobRow).where(
                    DeskJobRow.state == DeskJobState.PENDING.value))
            if not pending:
                await self.channel.sender.drain()
                return
            self.runtime.desk.wake()
            await asyncio.sleep(0.01)

    async def handled_all(self, update_ids: list[int], within: float = 20.0) -> None:
        """Wait until every one of the updates was processed and its answer accepted."""
        async with asyncio.timeout(within):
            for update_id in update_ids:
                await self.handled(update_id, within=within)

    async def inbox_row(self, update_id: int) -> InboxRow | None:
        """The inbox's row of an update, fresh from the database."""
        async with self.app.database.session() as session:
            return await session.get(InboxRow, update_id, populate_existing=True)

    def chat(self, chat_id: int, language: str = "pt-br") -> TelegramChat:
        return TelegramChat(self, chat_id, language)

    async def maria(self, chat_id: int) -> TelegramChat:
        """A chat the demo customer (Maria) linked with her CPF and her own number."""
        chat = self.chat(chat_id)
        await chat.start()
        await chat.tap("CPF/CNPJ")
        await chat.say(DEMO_IDENTITIES.customer_cpf)
        await chat.share_contact("+55 11 98765-4321")
        assert "cadastro confirmado" in chat.text
        return chat

    async def post(self, update: dict[str, Any], secret: str = WEBHOOK_SECRET) -> httpx.Response:
        assert self.web is not None, "post() is for webhook mode"
        return await self.web.post(
            self.settings.webhook_path, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": secret},
        )


@contextlib.asynccontextmanager
async def running_bot(
    database: Database, sandbox: Sandbox, *, mode: str = "polling", sender_limits: dict[str, Any] | None = None,
    staff_chat_id: int | None = None, concurrency: int = 32, poll_timeout: int = 1, api: FakeBotApi | None = None,
    paid_broadcast: bool = False, api_url: str | None = None, bot_settings: BotSettings | None = None,
    chatwoot: ChatwootSettings | None = None, acs: httpx.AsyncBaseTransport | None = None,
) -> AsyncIterator[RunningBot]:
    """``api``: another bot's fake Telegram, for a second worker of the same bot (webhook mode), or
    one that enforces Telegram's limits; ``api_url``: where the bot reaches it (a proxy in front);
    ``bot_settings`` and ``chatwoot``: a staff desk in Chatwoot (``tests/chatwoot``)."""
    async with contextlib.AsyncExitStack() as stack:
        if api is None:
            # Long polls end after a quarter second without updates, so stopping the bot never waits long.
            api = await stack.enter_async_context(FakeBotApi(max_poll_timeout=0.25))
        client = IspClient(
            IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0),
            http_transport=httpx.ASGITransport(app=sandbox.app),
        )
        extra: dict[str, Any] = {}
        if mode == "webhook":
            extra = {"mode": "webhook", "webhook_url": "https://bot.example.net", "webhook_secret": WEBHOOK_SECRET}
        settings = TelegramSettings(
            telegram_token=api.token, telegram_api_url=api_url or api.base_url, staff_chat_id=staff_chat_id,
            concurrency=concurrency, paid_broadcast=paid_broadcast, **extra,
        )
        limits = fast_sender_limits() if sender_limits is None else sender_limits
        bot = RunningBot(api, database, client, sandbox, settings, limits, mode)
        bot.poll_timeout = poll_timeout
        bot.bot_settings, bot.chatwoot, bot.acs = bot_settings, chatwoot, acs
        await bot.start()
        try:
            yield bot
        finally:
            await bot.shutdown()
            await client.aclose()


@dataclass
class TelegramChat:
    """A person's private chat with the bot: each action pushes one update and waits for its answer."""

    __test__ = False
    bot: RunningBot
    chat_id: int
    language: str
    replies: list[Sent] = field(default_factory=list)  # what the bot sent for the last action

    @property
    def text(self) -> str:
        return "\n".join(sent.text or "" for sent in self.replies)

    async def send(self, update: dict[str, Any]) -> list[Sent]:
        before = len(self.bot.api.sent(self.chat_id))
        update_id = self.bot.api.push_update(update)
        await self.bot.handled(update_id)
        self.replies = self.bot.api.sent(self.chat_id)[before:]
        return self.replies

    async def start(self, payload: str | None = None) -> list[Sent]:
        return await self.send(tg.start(self.chat_id, payload))

    async def say(self, text: str) -> list[Sent]:
        return await self.send(tg.text_message(self.chat_id, text))

    async def share_contact(self, phone: str, *, own: bool = True) -> list[Sent]:
        contact_user = self.chat_id if own else self.chat_id + 1
        return await self.send(tg.contact_message(self.chat_id, phone, contact_user_id=contact_user))

    async def share_location(self, latitude: float, longitude: float) -> list[Sent]:
        return await self.send(tg.location_message(self.chat_id, latitude, longitude))

    async def send_photo(self, caption: str | None = None) -> list[Sent]:
        return await self.send(tg.photo_message(self.chat_id, caption))

    def button(self, label: str) -> str:
        """The callback data of the newest button whose label contains ``label``."""
        for sent in reversed(self.bot.api.sent(self.chat_id)):
            for row in sent.button_rows():
                for button in row:
                    if label in str(button.get("text", "")) and "callback_data" in button:
                        return str(button["callback_data"])
        raise AssertionError(f"no button with {label!r} in chat {self.chat_id}")

    async def tap(self, label: str) -> list[Sent]:
        return await self.send(tg.callback_query(self.chat_id, self.button(label)))


async def joined_technician(bot: RunningBot, chat_id: int) -> TelegramChat:
    """A chat that joined as the demo technician with a fresh invite."""
    async with bot.app.database.transaction() as session:
        code = (await Invites().create(session, Role.TECHNICIAN, DEMO_IDENTITIES.technician)).code
    chat = bot.chat(chat_id)
    await chat.start(code)
    return chat
