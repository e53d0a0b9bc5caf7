"""The composition root: ``build_app`` builds the whole bot from its settings, and nothing else
constructs the runtime. Channels, ``ispbot run``, the console demo, the benchmarks and the test
harnesses all call it; nothing below ``bot.runtime`` imports it.

Without channel settings it builds the core (database, ISP client, coordinator, engine, outage
notifier, mirror worker). With Telegram's, WhatsApp's or both it also builds those channels and what
runs over them (``Runtime``: one processor routing each update to its channel, heartbeat,
housekeeping), deciding the engine's final policy first (a staff desk, ``ISPBOT_STAFF_DESK``, means
handoffs go to it live, carried out by the desk worker). Given a console channel (the demo's
terminal), it connects it to an inbox and a processor of its own (``Terminal``). New roles are
added to ``role_flows`` below.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import httpx
from flows.coordinator import IspCoordinator
from flows.deadlines import DeadlineWatch
from flows.engine import Engine, RoleFlows
from flows.files import FileSource, FileUnavailable
from flows.identity import target_key
from flows.intents import default_intents
from flows.notices import NoticeRound, NoticeSettings
from flows.outages import OutageNotifier
from flows.policy import Policy
from flows.restarts import RestartChecks
from flows.staff import staff_flows
from flows.subscriber import subscriber_flows
from flows.technician import technician_flows
from starlette.applications import Starlette

from bot import i18n, metrics
from bot.acs import AcsClient, AcsSettings
from bot.channels.console import ConsoleChannel
from bot.channels.telegram.channel import TelegramChannel, make_bot
from bot.channels.telegram.files import TelegramFiles
from bot.channels.telegram.settings import TelegramSettings
from bot.channels.whatsapp.channel import WhatsAppChannel
from bot.channels.whatsapp.client import CloudApi
from bot.channels.whatsapp.files import WhatsAppFiles
from bot.channels.whatsapp.settings import WhatsAppSettings
from bot.channels.whatsapp.templates import kinds, load_templates
from bot.channels.whatsapp.updates import MEDIA_PREFIX
from bot.desks.base import Desk
from bot.desks.chatwoot.client import ChatwootClient
from bot.desks.chatwoot.desk import ChatwootDesk
from bot.desks.chatwoot.files import URL_SCHEMES, ChatwootFiles
from bot.desks.chatwoot.intake import ChatwootIntake, web_hook
from bot.desks.chatwoot.recovery import ChatwootRecovery
from bot.desks.chatwoot.settings import REQUIRED, ChatwootSettings
from bot.desks.telegram.desk import TelegramForumDesk
from bot.desks.worker import DeskWorker
from bot.isp import IspClient, IspSettings
from bot.mirror import MirrorWorker
from bot.runtime.heartbeat import Heartbeat
from bot.runtime.housekeeping import Housekeeping
from bot.runtime.processor import DEFAULT_CONCURRENCY, LEASE, Processor
from bot.settings import BotSettings, ServerSettings, quiet_hours
from bot.store import Database, Inbox, Role
from bot.store.db import pool_size_for
from bot.store.migrate import ensure_current
from bot.store.processes import Processes
from bot.web import Health, Hook, WhatsAppHook, create_web_app
from telegram import Bot

# Each staff desk by the name ISPBOT_STAFF_DESK gives it; what it is (``follows_every_chat``) it says itself.
DESKS: dict[str, type[Desk]] = {desk.name: desk for desk in (TelegramForumDesk, ChatwootDesk)}


def role_flows() -> dict[Role, RoleFlows]:
    return {Role.SUBSCRIBER: subscriber_flows(), Role.TECHNICIAN: technician_flows(), Role.STAFF: staff_flows()}


@dataclass(frozen=True)
class Settings:
    """Everything ``build_app`` reads; no channel's settings: the core only (the console demo).
    ``server_settings``: the web server and concurrency of a bot without Telegram (Telegram's
    settings carry them otherwise)."""

    isp_settings: IspSettings
    bot_settings: BotSettings
    telegram_settings: TelegramSettings | None = None
    whatsapp_settings: WhatsAppSettings | None = None
    server_settings: ServerSettings | None = None
    chatwoot_settings: ChatwootSettings | None = None  # read when ISPBOT_STAFF_DESK=chatwoot
    acs_settings: AcsSettings | None = None  # the ACS, when ISPBOT_ACS_URL is set

    @property
    def concurrency(self) -> int:
        if self.telegram_settings is not None:
            return self.telegram_settings.concurrency
        return self.server_settings.concurrency if self.server_settings is not None else DEFAULT_CONCURRENCY

    @property
    def whatsapp(self) -> WhatsAppSettings | None:
        """WhatsApp's settings when it is configured."""
        settings = self.whatsapp_settings
        return settings if settings is not None and settings.configured else None


@dataclass
class Runtime:
    """The bot running over its channels: updates in through each channel's intake, processed, answered."""

    database: Database
    coordinator: IspCoordinator
    telegram_settings: TelegramSettings | None
    telegram: TelegramChannel | None
    processor: Processor
    heartbeat: Heartbeat
    housekeeping: Housekeeping
    mirror: MirrorWorker
    whatsapp: WhatsAppChannel | None = None
    whatsapp_settings: WhatsAppSettings | None = field(default=None, repr=False)

    desk: DeskWorker | None = None  # the staff desk's jobs, when there is a desk
    hooks: tuple[Hook, ...] = ()  # the desk's webhook (Chatwoot's), served in both modes
    chatwoot: ChatwootClient | None = None
    recovery: ChatwootRecovery | None = None  # agents' messages whose webhook never came, read back

    @property
    def channel(self) -> TelegramChannel:
        """The Telegram channel (a bot built with Telegram's settings)."""
        assert self.telegram is not None, "no Telegram channel in this bot"  # noqa: S101
        return self.telegram

    @property
    def settings(self) -> TelegramSettings:
        assert self.telegram_settings is not None, "no Telegram channel in this bot"  # noqa: S101
        return self.telegram_settings

    def web_app(self) -> Starlette:
        """``bot.web``'s app: the health endpoints, the desk's webhook, Telegram's webhook route in
        webhook mode, and WhatsApp's webhook when WhatsApp is configured."""
        settings = self.telegram_settings
        secret = settings.webhook_secret if settings is not None and settings.mode == "webhook" else None
        hook = None
        if self.whatsapp is not None and (wa := self.whatsapp_settings) is not None:
            assert wa.whatsapp_app_secret is not None and wa.whatsapp_verify_token is not None  # noqa: S101
            hook = WhatsAppHook(self.whatsapp.store_posted, wa.whatsapp_app_secret.get_secret_value(),
                                wa.whatsapp_verify_token.get_secret_value())
        return create_web_app(
            Health(self.database, self.coordinator),
            store_update=self.channel.store_posted if secret else None,
            webhook_path=settings.webhook_path if secret and settings else None,
            webhook_secret=secret.get_secret_value() if secret else None,
            whatsapp=hook,
            hooks=self.hooks,
            states={"whatsapp": self.whatsapp.state} if self.whatsapp is not None else None,
        )

    async def start(self) -> None:
        if self.telegram is not None:
            await self.telegram.start()
        if self.whatsapp is not None:
            await self.whatsapp.start()

    async def run_polling(self, stop: asyncio.Event, *, poll_timeout: int = 25) -> None:
        await self.run(stop, await self.channel.start_polling(stop, poll_timeout=poll_timeout))

    async def run_webhook(self, stop: asyncio.Event, serve: Awaitable[None]) -> None:
        """``serve`` is the web server's coroutine (``bot.web``), which stores what the channels post;
        Telegram (when it is a channel here) is pointed at it first."""
        if self.telegram is not None:
            await self.telegram.start_webhook()
        await self.run(stop, serve)

    async def run(self, stop: asyncio.Event, receive: Awaitable[None]) -> None:
        """Until ``stop``, or until a part ends on its own (a fatal error: it is raised)."""
        tasks = [
            asyncio.create_task(_coroutine(receive), name="intake"),
            asyncio.create_task(self.processor.run(stop), name="processor"),
            asyncio.create_task(self.housekeeping.run(stop), name="housekeeping"),
            asyncio.create_task(self.mirror.run(stop), name="mirror"),
            asyncio.create_task(self.housekeeping.run_restarts(stop), name="restarts"),
            asyncio.create_task(self.housekeeping.run_notices(stop), name="notices"),
        ]
        graces = [1.0, 30.0, 5.0, 10.0, 5.0, 10.0]
        if self.desk is not None:
            tasks.append(asyncio.create_task(self.desk.run(stop), name="desk"))
            graces.append(10.0)
        if self.recovery is not None:
            tasks.append(asyncio.create_task(self.recovery.run(stop), name="chatwoot-recovery"))
            graces.append(5.0)
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
            for task, grace in zip(tasks, graces, strict=True):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await asyncio.wait_for(task, grace)
            beating.set()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(heartbeat, 5.0)

    async def stop(self) -> None:
        await self.processor.drain()
        for channel in (self.telegram, self.whatsapp):
            if channel is not None:
                await channel.stop()  # drained as far as the channel let it
        await self.heartbeat.leave()
        if self.chatwoot is not None:
            await self.chatwoot.aclose()


async def _coroutine(awaitable: Awaitable[None]) -> None:
    await awaitable


@dataclass
class Terminal:
    """The bot over the console channel (``ispbot demo``): typed lines stored in the inbox, claimed
    by the processor (``Processor.run``, run by the demo) and printed by the channel, as on Telegram."""

    channel: ConsoleChannel
    processor: Processor


@dataclass
class App:
    settings: Settings
    database: Database
    client: IspClient
    coordinator: IspCoordinator
    engine: Engine
    notifier: OutageNotifier
    mirror: MirrorWorker
    runtime: Runtime | None  # with a channel's settings only
    owns_client: bool
    owns_database: bool
    terminal: Terminal | None = None  # with a console channel only
    deadlines: DeadlineWatch | None = None  # complaints' and requests' deadlines close to their end
    notices: NoticeRound | None = None  # the notices the bot writes first (bills, payments, outages)
    acs: AcsClient | None = None  # the ACS's NBI, when configured

    async def aclose(self) -> None:
        """Close what the app opened itself (what was passed in belongs to whoever passed it)."""
        if self.owns_client:
            await self.client.aclose()
        if self.acs is not None:
            await self.acs.aclose()
        if self.owns_database:
            await self.database.dispose()


async def build_app(
    settings: Settings, *, database: Database | None = None, client: IspClient | None = None,
    http_transport: httpx.AsyncBaseTransport | None = None, wall_clock: Callable[[], datetime] | None = None,
    bot: Bot | None = None, sender_limits: dict[str, Any] | None = None, files: FileSource | None = None,
    whatsapp_transport: httpx.AsyncBaseTransport | None = None, console: ConsoleChannel | None = None,
    acs_transport: httpx.AsyncBaseTransport | None = None,
) -> App:
    """The bot, ready to run. The keywords are seams for tests, benchmarks and the demo: a database
    or client they own, the ISP's transport, the wall clock, a ``Bot``, relaxed sender limits,
    ``files`` for a channel-less engine, the Cloud API's transport, ``console``, the demo's terminal
    to run over, and ``acs_transport``, the ACS's (a fake NBI). Raises ``DatabaseRevisionError`` (its
    message says how to fix it) on a database not at this code's migration head: the bot never writes
    to a schema it does not know."""
    telegram_settings, whatsapp_settings = settings.telegram_settings, settings.whatsapp
    owns_database = database is None
    if database is None:
        database = Database(settings.bot_settings.database_url, pool_size=pool_size_for(settings.concurrency))
    try:
        await ensure_current(database)
    except BaseException:
        if owns_database:
            await database.dispose()
        raise
    # Receipts people send, fetched from their channel when a flow asks.
    telegram_files: FileSource | None = None
    api = None
    if telegram_settings is not None:
        bot = bot or make_bot(telegram_settings)
        files = telegram_files = TelegramFiles(bot)
    # Files agents attach in Chatwoot, fetched to be sent to the person as files.
    desk_files = ChatwootFiles(settings.chatwoot_settings.timeout) if settings.chatwoot_settings is not None else None
    if whatsapp_settings is not None:
        assert whatsapp_settings.whatsapp_token is not None  # noqa: S101 - configured
        assert whatsapp_settings.whatsapp_phone_number_id is not None  # noqa: S101
        api = CloudApi(whatsapp_settings.graph_root, whatsapp_settings.whatsapp_token.get_secret_value(),
                       whatsapp_settings.whatsapp_phone_number_id, transport=whatsapp_transport)
        files = ChannelFiles(telegram_files, WhatsAppFiles(api, whatsapp_settings.whatsapp_max_media_mb << 20),
                             desk_files)
    elif telegram_files is not None and desk_files is not None:
        files = ChannelFiles(telegram_files, None, desk_files)
    elif console is not None:
        files = console.files  # what "/file <path>" sends, read from this machine
    app = build_core(
        settings, database, client=client, http_transport=http_transport, wall_clock=wall_clock, files=files,
        acs_transport=acs_transport,
    )
    default_intents()  # its models are trained now (a second), not when the first person writes
    runtime = None
    if (telegram_settings is not None and bot is not None) or whatsapp_settings is not None:
        runtime = _build_runtime(app, bot, sender_limits, api, telegram_files)
    terminal = None
    if console is not None:
        processor = Processor(app.engine, database, console, inbox=Inbox(lease=LEASE, owner=str(uuid.uuid4())))
        console.connect(database, processor.inbox, processor.wake, processor.progressed)
        terminal = Terminal(console, processor)
    return replace(app, runtime=runtime, owns_database=owns_database, terminal=terminal)


class ChannelFiles:
    """A file fetched from where it is kept: WhatsApp's media ids, Chatwoot's attachment URLs (an
    agent's file), Telegram's file ids."""

    def __init__(
        self, telegram: FileSource | None, whatsapp: FileSource | None, desk: FileSource | None = None,
    ) -> None:
        self.telegram = telegram
        self.whatsapp = whatsapp
        self.desk = desk

    async def fetch(self, ref: str, *, limit: int) -> bytes:
        if ref.startswith(MEDIA_PREFIX):
            if self.whatsapp is None:
                raise FileUnavailable("no WhatsApp channel here")
            return await self.whatsapp.fetch(ref, limit=limit)
        if ref.startswith(URL_SCHEMES):
            if self.desk is None:
                raise FileUnavailable("no desk here keeps files by URL")
            return await self.desk.fetch(ref, limit=limit)
        if self.telegram is None:
            raise FileUnavailable("no Telegram channel here")
        return await self.telegram.fetch(ref, limit=limit)


def build_core(
    settings: Settings, database: Database, *, client: IspClient | None = None,
    http_transport: httpx.AsyncBaseTransport | None = None, wall_clock: Callable[[], datetime] | None = None,
    cache_clock: Callable[[], float] | None = None, policy: Policy | None = None, files: FileSource | None = None,
    acs_transport: httpx.AsyncBaseTransport | None = None,
) -> App:
    """``build_app`` without a channel, on a database known to be current: the engine and what
    surrounds it. ``cache_clock`` (the coordinator's) and ``policy`` (instead of the settings') are
    for tests, ``acs_transport`` the ACS's transport (a fake NBI)."""
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
    if (desk := staff_desk(settings)) is not None:
        # Handoffs go to the staff desk, answered live (not only through a ticket); a shared inbox
        # (Chatwoot) keeps every chat's whole history, a forum topic only the handed-over part.
        policy = replace(policy, staff_desk=True, desk_follows_every_chat=DESKS[desk].follows_every_chat)
    if settings.whatsapp is not None and not policy.held_outside_window:
        # What WhatsApp holds outside its window is not said to have reached the person.
        path = settings.whatsapp.whatsapp_templates
        found = set(load_templates(path)) if path is not None else set()
        policy = replace(policy, held_outside_window=frozenset(set(kinds(i18n.default_translations())) - found))
    acs_settings = settings.acs_settings
    acs = AcsClient(acs_settings, http_transport=acs_transport) if acs_settings and acs_settings.configured else None
    engine = Engine(database, coordinator, role_flows(), policy=policy, files=files, acs=acs)
    notifier = OutageNotifier(database, coordinator)
    mirror = MirrorWorker(database, client)  # chat_messages, from the outbox
    deadlines = DeadlineWatch(
        database, coordinator, engine.translations,
        warn_before=timedelta(hours=settings.bot_settings.deadline_warn_hours), desk=policy.staff_desk,
    )
    bot_settings = settings.bot_settings
    notices = NoticeRound(engine, NoticeSettings(
        due_days=bot_settings.notice_due_days, overdue_days=bot_settings.notice_overdue_days,
        quiet=quiet_hours(bot_settings.notice_quiet),
    ))
    return App(
        settings, database, client, coordinator, engine, notifier, mirror, None, owns_client, False,
        deadlines=deadlines, notices=notices, acs=acs,
    )


def _build_runtime(app: App, bot: Bot | None, sender_limits: dict[str, Any] | None, api: CloudApi | None,
                   telegram_files: FileSource | None = None) -> Runtime:
    database, engine, settings = app.database, app.engine, app.settings
    telegram_settings, whatsapp_settings = settings.telegram_settings, settings.whatsapp
    channels: list[Any] = []
    telegram = None
    if telegram_settings is not None and bot is not None:
        telegram = TelegramChannel(
            bot, telegram_settings, database, engine.flows, engine.translations, sender_limits=sender_limits,
        )
        channels.append(telegram)
    whatsapp = None
    if whatsapp_settings is not None:
        # A staff member's photo at the Telegram desk reaches a WhatsApp subscriber as a file of its own.
        whatsapp = WhatsAppChannel(whatsapp_settings, database, api=api, staff_files=telegram_files)
        channels.append(whatsapp)
    desk, chatwoot, chatwoot_desk = None, None, None
    port: Desk | None = None
    chosen, chatwoot_settings = staff_desk(settings), settings.chatwoot_settings
    staff_chat = telegram_settings.staff_chat_id if telegram_settings is not None else None
    if chosen == TelegramForumDesk.name and telegram is not None and staff_chat is not None:
        # Every channel's subscribers reach the forum; the staff's answers go back by the chat's channel.
        forum = TelegramForumDesk(telegram.sender.submit, staff_chat, engine.translations)
        desk, port = DeskWorker(database, forum), forum
    elif chosen == ChatwootDesk.name and chatwoot_settings is not None:
        chatwoot = ChatwootClient(chatwoot_settings)
        chatwoot_desk = ChatwootDesk(chatwoot, team_id=chatwoot_settings.team_id,
                                     agents=chatwoot_settings.agent_users(), files=engine.files)
        desk, port = DeskWorker(database, chatwoot_desk), chatwoot_desk
    if desk is not None:
        engine.on_desk_jobs = desk.wake
    inbox = Inbox(lease=LEASE, owner=str(uuid.uuid4()))
    processor = Processor(engine, database, channels, concurrency=settings.concurrency, inbox=inbox,
                          desk=port)
    if telegram is not None:
        telegram.connect(inbox, processor.wake, processor.progressed)
    if whatsapp is not None:
        whatsapp.connect(inbox, processor.wake)
    hooks: tuple[Hook, ...] = ()
    recovery = None
    if chatwoot_settings is not None and chatwoot_desk is not None and chatwoot is not None:
        intake = ChatwootIntake(database, inbox, chatwoot.inbox_id, processor.wake)
        hooks = (web_hook(chatwoot_settings, intake),)
        recovery = ChatwootRecovery(chatwoot, intake)
    assert inbox.owner is not None  # noqa: S101 - named just above
    heartbeat = Heartbeat(database, Processes(inbox.owner), processor.resend_soon)
    housekeeping = Housekeeping(database, settings.bot_settings, notifier=app.notifier, processor=processor,
                                deadlines=app.deadlines, restarts=RestartChecks(engine), notices=app.notices)
    return Runtime(database, app.coordinator, telegram_settings, telegram, processor, heartbeat, housekeeping,
                   app.mirror, whatsapp=whatsapp, whatsapp_settings=whatsapp_settings, desk=desk, hooks=hooks,
                   chatwoot=chatwoot, recovery=recovery)


class DeskSettingsError(ValueError):
    """``ISPBOT_STAFF_DESK`` names a desk this configuration cannot run; the message says what to set."""


def staff_desk(settings: Settings) -> str | None:
    """The staff desk to run (``ISPBOT_STAFF_DESK``; telegram when a staff group is set), or None (also
    without a channel: the console demo has no desk)."""
    if settings.telegram_settings is None and settings.whatsapp is None:
        return None
    chosen = settings.bot_settings.staff_desk
    group = settings.telegram_settings.staff_chat_id if settings.telegram_settings is not None else None
    if chosen == "chatwoot":
        chatwoot = settings.chatwoot_settings
        missing = chatwoot.missing() if chatwoot is not None else [f"ISPBOT_CHATWOOT_{n.upper()}" for n in REQUIRED]
        if missing:
            raise DeskSettingsError(f"ISPBOT_STAFF_DESK=chatwoot needs {', '.join(missing)}")
        return "chatwoot"
    if chosen == "telegram" and group is None:
        raise DeskSettingsError("ISPBOT_STAFF_DESK=telegram needs ISPBOT_STAFF_CHAT_ID, the staff supergroup (a forum)")
    return "telegram" if group is not None else None
