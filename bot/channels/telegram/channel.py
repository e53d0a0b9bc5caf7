"""The bot on Telegram: python-telegram-bot's ``Bot`` for the Bot API, our own loop around it, and
beside it the mirror (``chat_messages``), the staff desk and the housekeeping (outage notices, the
handoff queue, old inbox rows).

python-telegram-bot's ``Application`` is not used on purpose: its updater confirms updates before
they are handled and queues ahead without bound, one unparseable update stalls it, its webhook
answers 200 before anything is stored, and ``concurrent_updates`` costs a task per update. The
pieces here fix each (see their modules): ``Intake`` stores updates first, ``Processor`` runs chats
side by side and each chat in order, ``Sender`` keeps Telegram's rate limits per chat.

HTTP goes through aiohttp (``aiohttp_request``: a seventh of httpx's CPU per call), with one
connection pool for the sender's workers (and button acknowledgements) and a separate
one-connection pool for the long poll, as python-telegram-bot does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace
from datetime import timedelta
from typing import Any

from flows.outages import OutageNotifier
from flows.replies import Message
from starlette.applications import Starlette

from bot import metrics
from bot.channels.telegram import raw
from bot.channels.telegram.aiohttp_request import AiohttpRequest
from bot.channels.telegram.commands import default_menu_calls
from bot.channels.telegram.files import TelegramFiles
from bot.channels.telegram.intake import Intake
from bot.channels.telegram.polling import ALLOWED_UPDATES, Poller
from bot.channels.telegram.render import ApiCall, render
from bot.channels.telegram.sender import Rate, Sender
from bot.channels.telegram.settings import TelegramSettings
from bot.channels.telegram.staff import StaffDesk
from bot.i18n import pick_language
from bot.logs import chat_ref
from bot.mirror import MirrorWorker
from bot.runtime.app import App
from bot.runtime.heartbeat import Heartbeat
from bot.runtime.processor import Processor
from bot.store import Handoffs, Role, utcnow
from bot.store.dead_letters import DeadLetters
from bot.store.processes import Processes
from bot.web import Health, create_web_app
from telegram import Bot

log = logging.getLogger(__name__)

NOTICE_EVERY = 60.0  # seconds between looks for ended outages to tell the watchers about
PRUNE_EVERY = 3600.0
SLOW_DOWN_EVERY = 60.0  # seconds: a chat flooding for longer hears "slow down" again
KEEP_INBOX_FOR = 2  # days: Telegram never redelivers an update that old
# Bot API calls in flight at once. They wait on the network, not on this process's work, so they
# are not tied to ``ISPBOT_CONCURRENCY``: with as many workers as chats in hand (16), a Bot API that
# answers in 20 ms capped the bot at 800 calls a second and a third of its rate went waiting there.
# Telegram's own limit (about 30 messages a second) is the sender's to keep, not the pool's.
SEND_WORKERS = 32
PAID_BROADCAST = Rate(1000, 1.0)  # Telegram's ceiling for allow_paid_broadcast messages


def make_bot(settings: TelegramSettings) -> Bot:
    pool = SEND_WORKERS + 4  # and button acknowledgements, which do not queue behind the sends
    return Bot(
        settings.telegram_token.get_secret_value(),
        base_url=settings.base_url,
        base_file_url=settings.base_file_url,
        request=AiohttpRequest(pool, pool_timeout=10.0),
        get_updates_request=AiohttpRequest(1, read_timeout=40.0),
    )


class TelegramChannel:
    def __init__(
        self, app: App, settings: TelegramSettings, *, bot: Bot | None = None,
        sender_limits: dict[str, Any] | None = None,
    ) -> None:
        """``sender_limits``: keyword arguments for ``Sender`` (tests relax Telegram's rates with it)."""
        self.app = app
        self.settings = settings
        self.bot = bot or make_bot(settings)
        self.sender = Sender(self._call, workers=SEND_WORKERS, **{
            "network_horizon": settings.telegram_retry_hours * 3600, "on_dead": self._dead_letter,
            "paid_broadcast": PAID_BROADCAST if settings.paid_broadcast else None,
            **(sender_limits or {}),
        })
        self._keeping: set[asyncio.Task[None]] = set()  # dead letters being written
        app.engine.files = TelegramFiles(self.bot)  # receipts people send, fetched when a flow asks
        self.staff: StaffDesk | None = None
        if settings.staff_chat_id is not None:
            # Handoffs go to the staff group's topics, answered live (not only through a ticket).
            app.engine.policy = replace(app.engine.policy, staff_desk=True)
            self.staff = StaffDesk(
                self.bot, app.coordinator, settings.staff_chat_id, app.engine.policy, app.engine.translations,
            )
        self.processor = Processor(
            app.engine, app.database, self.bot, self.sender,
            staff_chat_id=settings.staff_chat_id, concurrency=settings.concurrency, staff=self.staff,
        )
        owner = self.processor.inbox.owner
        assert owner is not None  # noqa: S101 - the processor's own inbox names this process
        self.heartbeat = Heartbeat(app.database, Processes(owner), self.processor.resend_soon)
        self.intake = Intake(
            app.database, self.processor.inbox, self.processor.wake, self.processor.acknowledge,
            chat_backlog=settings.chat_backlog, on_flooded=self._slow_down,
            unlimited=frozenset() if settings.staff_chat_id is None else frozenset({settings.staff_chat_id}),
        )
        self._told_to_slow_down: dict[int, float] = {}  # chat id: when (event loop time)
        self.mirror = MirrorWorker(app.database, app.client)  # chat_messages, from the outbox
        self.notifier = OutageNotifier(app.database, app.coordinator)

    def web_app(self) -> Starlette:
        """``bot.web``'s app for this channel: the webhook route only in webhook mode."""
        settings = self.settings
        webhook = settings.mode == "webhook" and settings.webhook_secret is not None
        return create_web_app(
            Health(self.app.database, self.app.coordinator),
            intake=self.intake if webhook else None,
            webhook_path=settings.webhook_path if webhook else None,
            webhook_secret=settings.webhook_secret.get_secret_value() if settings.webhook_secret and webhook else None,
        )

    async def _call(self, method: str, params: dict[str, Any]) -> Any:
        return await raw.call(self.bot, method, params)

    async def _slow_down(self, chat_id: int, latest: dict[str, Any]) -> None:
        """A person's messages were set aside (``Intake``): ask them, once a minute at most, to wait."""
        now = asyncio.get_running_loop().time()
        if chat_id < 0 or now - self._told_to_slow_down.get(chat_id, float("-inf")) < SLOW_DOWN_EVERY:
            return  # a group's, or told already during this burst
        if len(self._told_to_slow_down) > 10_000:
            self._told_to_slow_down = {c: t for c, t in self._told_to_slow_down.items() if now - t < SLOW_DOWN_EVERY}
        self._told_to_slow_down[chat_id] = now
        message = latest.get("message") or latest.get("edited_message") or latest.get("callback_query") or {}
        person = message.get("from") if isinstance(message, dict) else None
        code = person.get("language_code") if isinstance(person, dict) else None
        text = self.app.engine.translations.render(pick_language(code if isinstance(code, str) else None),
                                                   "common.slow_down")
        await self.sender.submit_all(render(Message(text), chat_id))

    def _dead_letter(self, call: ApiCall, error: str) -> None:
        task = asyncio.create_task(self._keep_dead_letter(call, error))
        self._keeping.add(task)
        task.add_done_callback(self._keeping.discard)

    async def _keep_dead_letter(self, call: ApiCall, error: str) -> None:
        try:
            async with self.app.database.transaction() as session:
                await DeadLetters().add(session, call.chat_id, call.method, call.params, error=error, now=utcnow())
        except Exception as exc:
            log.error("could not keep a dead letter (%s): a %s to chat %s is lost", type(exc).__name__,
                      call.method, chat_ref(call.chat_id))

    async def start(self) -> None:
        """Check the token (``getMe``) and publish the command menu."""
        await self.bot.initialize()
        log.info("connected to Telegram as @%s", self.bot.username)
        for call in default_menu_calls(self.app.engine.flows[Role.SUBSCRIBER], self.app.engine.translations):
            await self._call(call.method, call.params)

    async def stop(self) -> None:
        await self.processor.drain()
        await self.sender.aclose(within=0)  # drained as far as Telegram let it
        await asyncio.gather(*self._keeping)
        await self.heartbeat.leave()
        await self.bot.shutdown()

    async def run_polling(self, stop: asyncio.Event, *, poll_timeout: int = 25) -> None:
        await raw.call(self.bot, "deleteWebhook", {"drop_pending_updates": False})
        poller = Poller(self.bot, self.intake, timeout=poll_timeout, backlog_wait=self.processor.progressed)
        await self._run(stop, poller.run(stop))

    async def run_webhook(self, stop: asyncio.Event, serve: Any) -> None:
        """``serve`` is the web server's coroutine (``bot.web``), which stores what Telegram posts."""
        secret = self.settings.webhook_secret.get_secret_value() if self.settings.webhook_secret else ""
        await raw.call(self.bot, "setWebhook", {
            "url": f"{self.settings.webhook_url}{self.settings.webhook_path}",
            "secret_token": secret,
            "allowed_updates": ALLOWED_UPDATES,
            "max_connections": min(100, self.settings.concurrency * 2),
        })
        await self._run(stop, serve)

    async def _run(self, stop: asyncio.Event, intake: Any) -> None:
        tasks = [
            asyncio.create_task(intake, name="intake"),
            asyncio.create_task(self.processor.run(stop), name="processor"),
            asyncio.create_task(self._housekeeping(stop), name="housekeeping"),
            asyncio.create_task(self.mirror.run(stop), name="mirror"),
        ]
        # The heartbeat outlives the others: a process still finishing its chats keeps its work.
        beating = asyncio.Event()
        heartbeat = asyncio.create_task(self.heartbeat.run(beating), name="heartbeat")
        stopped = asyncio.create_task(stop.wait())
        try:
            # Until the stop, or until a part ends on its own (a fatal error: it is raised).
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

    async def _tell_waiting(self) -> None:
        """Subscribers nobody in the staff answered yet hear their place in the queue (once)."""
        if self.staff is None:
            return
        settings = self.app.settings
        async with self.app.database.transaction() as session:
            calls = await self.staff.waiting_calls(
                session, utcnow(), timedelta(minutes=settings.handoff_wait_minutes), settings.handoff_minutes_each,
            )
        await self.sender.submit_all(calls, notice=True)

    async def refresh_metrics(self) -> None:
        """The gauges read from the database: conversations with the staff now."""
        async with self.app.database.transaction() as session:
            metrics.HANDOFFS_OPEN.set(await Handoffs().count_open(session))

    async def _housekeeping(self, stop: asyncio.Event) -> None:
        """Outage notices and the gauges every minute; old inbox rows every hour."""
        pruned_at = 0.0
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            try:
                await self.processor.send_notices(await self.notifier.check())
                await self._tell_waiting()
                await self.refresh_metrics()
                if loop.time() - pruned_at >= PRUNE_EVERY:
                    pruned_at = loop.time()
                    async with self.app.database.transaction() as session:
                        await self.processor.inbox.prune(session, utcnow() - timedelta(days=KEEP_INBOX_FOR))
            except Exception as exc:
                log.error("housekeeping failed (%s); trying again in a minute", type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), NOTICE_EVERY)
