"""The bot on Telegram: the Telegram adapter of ``bot.channels.base.Channel``, over
python-telegram-bot's ``Bot`` for the Bot API and our own loop around it.

python-telegram-bot's ``Application`` is not used on purpose: its updater confirms updates before
they are handled and queues ahead without bound, one unparseable update stalls it, and its webhook
answers 200 before anything is stored. Here polling and the webhook only forward updates into the
runtime's core (``Intake`` stores them in the inbox first; ``bot.runtime`` runs them), ``Sender``
keeps Telegram's rate limits per chat; the staff group's topics are read as staff events for the
engine, and the forum desk (``desk.py``) posts there through the same sender.

HTTP goes through aiohttp (``aiohttp_request``), with one connection pool for the sender's workers
(and button acknowledgements) and a separate one-connection pool for the long poll, as
python-telegram-bot does.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from flows.engine import RoleFlows
from flows.replies import Message, Notice, Reply, RoleMenu
from sqlalchemy.ext.asyncio import AsyncSession
from telegram.error import BadRequest, NetworkError

from bot.channels.telegram import raw
from bot.channels.telegram.aiohttp_request import AiohttpRequest, UnreadableAnswer
from bot.channels.telegram.commands import chat_scope_calls, default_menu_calls
from bot.channels.telegram.intake import Intake
from bot.channels.telegram.polling import ALLOWED_UPDATES, Poller
from bot.channels.telegram.render import ApiCall, render, render_turn
from bot.channels.telegram.sender import Rate, Sender
from bot.channels.telegram.settings import TelegramSettings
from bot.channels.telegram.updates import route_stored
from bot.i18n import Translations, pick_language
from bot.logs import chat_ref
from bot.reads import Read
from bot.store import Database, Inbox, Role, utcnow
from bot.store.dead_letters import DeadLetters, unstorable
from bot.store.models import TELEGRAM
from telegram import Bot

log = logging.getLogger(__name__)

SLOW_DOWN_EVERY = 60.0  # seconds: a chat flooding for longer hears "slow down" again
# Bot API calls in flight at once. They wait on the network, not on this process's work, so they
# are not tied to ``ISPBOT_CONCURRENCY``; Telegram's own limit is the sender's to keep, not the pool's.
SEND_WORKERS = 32
PAID_BROADCAST = Rate(1000, 1.0)  # Telegram's ceiling for allow_paid_broadcast messages
START_TRIES = 3  # a call the bot starts with, after a connection lost or refused
DEAD_LETTER_TRIES = 12  # about five minutes of a database refusing to keep an undeliverable answer


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
    name = TELEGRAM
    sends_at_once = SEND_WORKERS

    def __init__(
        self, bot: Bot, settings: TelegramSettings, database: Database, flows: Mapping[Role, RoleFlows],
        translations: Translations, *, sender_limits: dict[str, Any] | None = None,
    ) -> None:
        """``sender_limits``: keyword arguments for ``Sender`` (tests relax Telegram's rates with it)."""
        self.bot = bot
        self.settings = settings
        self.database = database
        self.flows = flows
        self.translations = translations
        self.sender = Sender(self._call, workers=SEND_WORKERS, **{
            "network_horizon": settings.telegram_retry_hours * 3600, "on_dead": self._keep_dead_letter,
            "paid_broadcast": PAID_BROADCAST if settings.paid_broadcast else None,
            **(sender_limits or {}),
        })
        self.intake: Intake | None = None  # once ``connect`` named the runtime's inbox
        self._progressed: Callable[[float], Awaitable[None]] | None = None
        self._side_tasks: set[asyncio.Task[None]] = set()  # button acknowledgements
        self._told_to_slow_down: dict[int, float] = {}  # chat id: when (event loop time)

    def connect(
        self, inbox: Inbox, on_stored: Callable[[], None], progressed: Callable[[float], Awaitable[None]],
    ) -> None:
        """Where polling and the webhook forward updates: the runtime's inbox, then ``on_stored``;
        ``progressed(within)`` waits for the runtime to finish some (polling pauses on a backlog)."""
        settings = self.settings
        self.intake = Intake(
            self.database, inbox, on_stored, self.acknowledge, chat_backlog=settings.chat_backlog,
            on_flooded=self._slow_down,
            unlimited=frozenset() if settings.staff_chat_id is None else frozenset({settings.staff_chat_id}),
        )
        self._progressed = progressed

    # ---- bot.channels.base.Channel ---------------------------------------------------------------
    def read(self, payload: dict[str, Any]) -> Read:
        # Most updates are a private chat's words or button: read from the JSON, no ``Update`` built.
        found = route_stored(payload, self.bot, self.settings.staff_chat_id)
        if isinstance(found, Read):
            return found
        if found.staff:  # a topic of the staff group: the forum desk's to read (``bot.desks.telegram``), not ours
            return Read("other")
        return Read(type(found.incoming.event).__name__.lower(), found.incoming)

    async def answer(
        self, session: AsyncSession, read: Read, replies: list[Reply], notices: list[Notice],
    ) -> list[ApiCall]:
        assert read.incoming is not None  # noqa: S101 - only what was read is answered
        chat_id = read.incoming.chat_id
        calls = render_turn(replies, chat_id)
        menus = [reply for reply in replies if isinstance(reply, RoleMenu)]
        calls += [call for menu in menus for call in self._menu(chat_id, menu)]
        calls += [call for notice in notices for call in self.render_notice(notice)]
        return calls

    def forget(self, read: Read) -> list[ApiCall]:
        """Telegram lets a bot delete a person's message in its private chat (within 48 hours)."""
        incoming = read.incoming
        if incoming is None or incoming.message_id is None:
            return []
        return [ApiCall("deleteMessage", {"chat_id": incoming.chat_id, "message_id": incoming.message_id})]

    def render_notice(self, notice: Notice) -> list[ApiCall]:
        return render(notice.reply, notice.chat_id)

    def decode(self, kept: dict[str, Any]) -> ApiCall:
        return ApiCall.from_json(kept)

    async def send(self, calls: Sequence[ApiCall], *, notice: bool = False) -> list[asyncio.Future[Any]]:
        return await self.sender.submit_all(calls, notice=notice)

    async def drain(self, within: float) -> None:
        await self.sender.drain(within=within)

    def _menu(self, chat_id: int, change: RoleMenu) -> list[ApiCall]:
        """The "/" menu of the chat's new role, for this chat only."""
        flows = self.flows.get(Role(change.role))
        if flows is None:
            return []
        return chat_scope_calls(chat_id, flows, self.translations, change.language)

    # ---- what only Telegram has -------------------------------------------------------------------
    async def _call(self, method: str, params: dict[str, Any]) -> Any:
        return await raw.call(self.bot, method, params)

    def acknowledge(self, callback_id: str) -> None:
        """Stop a button's spinner now, outside the chat's queue (it is not a message)."""
        task = asyncio.create_task(self._answer_callback(callback_id))
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    async def _answer_callback(self, callback_id: str) -> None:
        try:
            await raw.call(self.bot, "answerCallbackQuery", {"callback_query_id": callback_id})
        except Exception as exc:  # too old, or Telegram unreachable: the spinner stops by itself
            log.info("could not acknowledge a button press: %s", type(exc).__name__)

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
        text = self.translations.render(pick_language(code if isinstance(code, str) else None), "common.slow_down")
        await self.sender.submit_all(render(Message(text), chat_id))

    async def _keep_dead_letter(self, call: ApiCall, error: str) -> None:
        """Store an undeliverable call for ``ispbot undelivered``; while the database refuses, try again
        (its update is confirmed only after this returns, so the chat waits rather than loses it)."""
        for attempt in itertools.count():
            try:
                async with self.database.transaction() as session:
                    await DeadLetters().add(session, call.chat_id, call.method, call.params, error=error, now=utcnow())
                return
            except Exception as exc:
                if attempt == DEAD_LETTER_TRIES - 1 or unstorable(exc):  # the letter itself: retrying won't help
                    log.error("could not keep a dead letter (%s): a %s to chat %s is lost", type(exc).__name__,
                              call.method, chat_ref(call.chat_id))
                    return
                log.warning("could not keep a dead letter (%s); trying again", type(exc).__name__)
                await asyncio.sleep(min(2.0 ** attempt, 30.0))

    async def start(self) -> None:
        """Check the token (``getMe``) and publish the command menu."""
        await self.bot.initialize()
        log.info("connected to Telegram as @%s", self.bot.username)
        for call in default_menu_calls(self.flows[Role.SUBSCRIBER], self.translations):
            await self._start_call(call.method, call.params)

    async def _start_call(self, method: str, params: dict[str, Any]) -> Any:
        """A call the bot cannot start without, tried again after a connection lost or refused (a
        keep-alive connection the Bot API closed as it was reused); what Telegram answers is final."""
        for attempt in range(START_TRIES):
            try:
                return await raw.call(self.bot, method, params)
            except NetworkError as exc:
                if isinstance(exc, BadRequest | UnreadableAnswer) or attempt == START_TRIES - 1:
                    raise
                log.warning("%s at start: %s; trying again", method, exc)
                await asyncio.sleep(0.5 * 2 ** attempt)
        raise AssertionError("unreachable")  # pragma: no cover - the last try raises or returns

    async def stop(self) -> None:
        """After the runtime drained: what Telegram let the sender send is sent, the dead letters kept."""
        await self.sender.aclose(within=0)
        await self.bot.shutdown()

    async def store_posted(self, update: dict[str, Any]) -> None:
        """An update the webhook received (``bot.web``), forwarded into the inbox."""
        assert self.intake is not None  # noqa: S101 - connected by the composition root
        await self.intake.store([update], "webhook")

    async def start_polling(self, stop: asyncio.Event, *, poll_timeout: int = 25) -> Awaitable[None]:
        """Telegram told to stop posting; the long poll of ``getUpdates`` into the inbox, to run until ``stop``."""
        assert self.intake is not None  # noqa: S101 - connected by the composition root
        await self._start_call("deleteWebhook", {"drop_pending_updates": False})
        poller = Poller(self.bot, self.intake, timeout=poll_timeout, backlog_wait=self._progressed)
        return poller.run(stop)

    async def start_webhook(self) -> None:
        """Point Telegram at this process; ``bot.web`` then forwards what it posts (``store_posted``)."""
        settings = self.settings
        secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else ""
        await self._start_call("setWebhook", {
            "url": f"{settings.webhook_url}{settings.webhook_path}",
            "secret_token": secret,
            "allowed_updates": ALLOWED_UPDATES,
            "max_connections": min(100, settings.concurrency * 2),
        })
