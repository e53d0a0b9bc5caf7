"""The composition root: ``build_app`` builds the whole bot from its settings, and nothing else
constructs the runtime. Channels, ``ispbot run``, the console demo, the benchmarks and the test
harnesses all call it; nothing below ``bot.runtime`` imports it.

Without Telegram settings it builds the core (database, ISP client, coordinator, engine, outage
notifier, mirror worker): what the console demo drives. With them it also builds the Telegram
channel and what runs over it (``Runtime``: processor, heartbeat, housekeeping), deciding the
engine's final policy first (a staff group means handoffs go to its live desk). New roles are
added to ``role_flows`` below.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import httpx
from flows.coordinator import IspCoordinator
from flows.deadlines import DeadlineWatch
from flows.engine import Engine, RoleFlows
from flows.files import FileSource
from flows.identity import target_key
from flows.outages import OutageNotifier
from flows.policy import Policy
from flows.staff import staff_flows
from flows.subscriber import subscriber_flows
from flows.technician import technician_flows
from starlette.applications import Starlette

from bot import i18n, metrics
from bot.channels.telegram.channel import TelegramChannel, make_bot
from bot.channels.telegram.files import TelegramFiles
from bot.channels.telegram.settings import DEFAULT_CONCURRENCY, TelegramSettings
from bot.channels.telegram.staff.desk import StaffDesk
from bot.isp import IspClient, IspSettings
from bot.mirror import MirrorWorker
from bot.runtime.heartbeat import Heartbeat
from bot.runtime.housekeeping import Housekeeping
from bot.runtime.processor import LEASE, Processor
from bot.settings import BotSettings
from bot.store import Database, Inbox, Role
from bot.store.db import pool_size_for
from bot.store.migrate import ensure_current
from bot.store.processes import Processes
from bot.web import Health, create_web_app
from telegram import Bot


def role_flows() -> dict[Role, RoleFlows]:
    return {Role.SUBSCRIBER: subscriber_flows(), Role.TECHNICIAN: technician_flows(), Role.STAFF: staff_flows()}


@dataclass(frozen=True)
class Settings:
    """Everything ``build_app`` reads; no ``telegram_settings``: the core only (the console demo)."""

    isp_settings: IspSettings
    bot_settings: BotSettings
    telegram_settings: TelegramSettings | None = None


@dataclass
class Runtime:
    """The bot running over its channel: updates in through the channel's intake, processed, answered."""

    database: Database
    coordinator: IspCoordinator
    settings: TelegramSettings
    channel: TelegramChannel
    processor: Processor
    heartbeat: Heartbeat
    housekeeping: Housekeeping
    mirror: MirrorWorker

    def web_app(self) -> Starlette:
        """``bot.web``'s app: the health endpoints, and the webhook route in webhook mode."""
        settings = self.settings
        secret = settings.webhook_secret if settings.mode == "webhook" else None
        return create_web_app(
            Health(self.database, self.coordinator),
            store_update=self.channel.store_posted if secret else None,
            webhook_path=settings.webhook_path if secret else None,
            webhook_secret=secret.get_secret_value() if secret else None,
        )

    async def start(self) -> None:
        await self.channel.start()

    async def run_polling(self, stop: asyncio.Event, *, poll_timeout: int = 25) -> None:
        await self.run(stop, await self.channel.start_polling(stop, poll_timeout=poll_timeout))

    async def run_webhook(self, stop: asyncio.Event, serve: Awaitable[None]) -> None:
        """``serve`` is the web server's coroutine (``bot.web``), which stores what Telegram posts."""
        await self.channel.start_webhook()
        await self.run(stop, serve)

    async def run(self, stop: asyncio.Event, receive: Awaitable[None]) -> None:
        """Until ``stop``, or until a part ends on its own (a fatal error: it is raised)."""
        tasks = [
            asyncio.create_task(_coroutine(receive), name="intake"),
            asyncio.create_task(self.processor.run(stop), name="processor"),
            asyncio.create_task(self.housekeeping.run(stop), name="housekeeping"),
            asyncio.create_task(self.mirror.run(stop), name="mirror"),
        ]
        # The heartbeat outlives the others: a process still finishing its chats keeps its work.
        beating = asyncio.Event()
        heartbeat = asyncio.create_task(self.heartbeat.run(beating), name="heartbeat")
        stopped = asyncio.create_task(stop.wait())
        try:
            done, _ = await asyncio.wait([*tasks, stopped], return_when=asyncio.FIRST_COMPLETED)
            for task in done - {stopped}:
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
        finally:
            stop.set()
            stopped.cancel()
            # A long poll in flight is dropped (what it brings is not confirmed, so not lost);
            # the chats in hand get time to finish.
            for task, grace in zip(tasks, (1.0, 30.0, 5.0, 10.0), strict=True):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await asyncio.wait_for(task, grace)
            beating.set()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(heartbeat, 5.0)

    async def stop(self) -> None:
        await self.processor.drain()
        await self.channel.stop()  # drained as far as Telegram let it
        await self.heartbeat.leave()


async def _coroutine(awaitable: Awaitable[None]) -> None:
    await awaitable


@dataclass
class App:
    settings: Settings
    database: Database
    client: IspClient
    coordinator: IspCoordinator
    engine: Engine
    notifier: OutageNotifier
    mirror: MirrorWorker
    runtime: Runtime | None  # with Telegram settings only
    owns_client: bool
    owns_database: bool
    deadlines: DeadlineWatch | None = None  # complaints' and requests' deadlines close to their end

    async def aclose(self) -> None:
        """Close what the app opened itself (what was passed in belongs to whoever passed it)."""
        if self.owns_client:
            await self.client.aclose()
        if self.owns_database:
            await self.database.dispose()


async def build_app(
    settings: Settings, *, database: Database | None = None, client: IspClient | None = None,
    http_transport: httpx.AsyncBaseTransport | None = None, wall_clock: Callable[[], datetime] | None = None,
    bot: Bot | None = None, sender_limits: dict[str, Any] | None = None, files: FileSource | None = None,
) -> App:
    """The bot, ready to run. The keywords are seams for tests, benchmarks and the demo: a database
    or client they own, the ISP's transport, the wall clock, a ``Bot``, relaxed sender limits, and
    ``files`` for a channel-less engine. Raises ``DatabaseRevisionError`` (its message says how to fix
    it) on a database not at this code's migration head: the bot never writes to a schema it does not
    know."""
    telegram_settings = settings.telegram_settings
    owns_database = database is None
    if database is None:
        concurrency = telegram_settings.concurrency if telegram_settings else DEFAULT_CONCURRENCY
        database = Database(settings.bot_settings.database_url, pool_size=pool_size_for(concurrency))
    try:
        await ensure_current(database)
    except BaseException:
        if owns_database:
            await database.dispose()
        raise
    if telegram_settings is not None:
        bot = bot or make_bot(telegram_settings)
        files = TelegramFiles(bot)  # receipts people send, fetched from Telegram when a flow asks
    app = build_core(
        settings, database, client=client, http_transport=http_transport, wall_clock=wall_clock, files=files,
    )
    runtime = None
    if telegram_settings is not None and bot is not None:
        runtime = _build_runtime(app, telegram_settings, bot, sender_limits)
    return replace(app, runtime=runtime, owns_database=owns_database)


def build_core(
    settings: Settings, database: Database, *, client: IspClient | None = None,
    http_transport: httpx.AsyncBaseTransport | None = None, wall_clock: Callable[[], datetime] | None = None,
    cache_clock: Callable[[], float] | None = None, policy: Policy | None = None, files: FileSource | None = None,
) -> App:
    """``build_app`` without a channel, on a database known to be current: the engine and what
    surrounds it. ``cache_clock`` (the coordinator's) and ``policy`` (instead of the settings') are
    for tests."""
    i18n.use_locales_dir(settings.bot_settings.locales_dir)  # the texts the engine, flows and notices read
    owns_client = client is None
    if client is None:
        client = IspClient(settings.isp_settings, http_transport=http_transport)
    metrics.watch_isp(client)
    coordinator = IspCoordinator(
        client, zone=client.settings.zone, clock=cache_clock or time.monotonic, wall_clock=wall_clock,
    )
    if policy is None:
        # The hashes naming people in link_attempts are keyed by the ISP key: every process of the
        # bot, and `ispbot locks`, has it; a stolen database alone does not.
        key = target_key(client.settings.key.get_secret_value())
        policy = replace(settings.bot_settings.policy(), link_target_key=key)
    telegram_settings = settings.telegram_settings
    if telegram_settings is not None and telegram_settings.staff_chat_id is not None:
        # Handoffs go to the staff group's topics, answered live (not only through a ticket).
        policy = replace(policy, staff_desk=True)
    engine = Engine(database, coordinator, role_flows(), policy=policy, files=files)
    notifier = OutageNotifier(database, coordinator)
    mirror = MirrorWorker(database, client)  # chat_messages, from the outbox
    deadlines = DeadlineWatch(
        database, coordinator, engine.translations,
        warn_before=timedelta(hours=settings.bot_settings.deadline_warn_hours),
    )
    return App(
        settings, database, client, coordinator, engine, notifier, mirror, None, owns_client, False,
        deadlines=deadlines,
    )


def _build_runtime(app: App, telegram_settings: TelegramSettings, bot: Bot, sender_limits: dict[str, Any] | None,
                   ) -> Runtime:
    database, engine = app.database, app.engine
    staff = None
    if telegram_settings.staff_chat_id is not None:
        staff = StaffDesk(bot, app.coordinator, telegram_settings.staff_chat_id, engine.policy, engine.translations)
    channel = TelegramChannel(
        bot, telegram_settings, database, engine.flows, engine.translations, staff=staff,
        sender_limits=sender_limits,
    )
    inbox = Inbox(lease=LEASE, owner=str(uuid.uuid4()))
    processor = Processor(engine, database, channel, concurrency=telegram_settings.concurrency, inbox=inbox)
    channel.connect(inbox, processor.wake, processor.progressed)
    assert inbox.owner is not None  # noqa: S101 - named just above
    heartbeat = Heartbeat(database, Processes(inbox.owner), processor.resend_soon)
    housekeeping = Housekeeping(database, app.settings.bot_settings, notifier=app.notifier, processor=processor,
                                channel=channel, deadlines=app.deadlines, staff_chat=telegram_settings.staff_chat_id)
    return Runtime(database, app.coordinator, telegram_settings, channel, processor, heartbeat, housekeeping,
                   app.mirror)
