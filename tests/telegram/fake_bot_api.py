"""A fake Telegram Bot API server for the tests and benchmarks, served over real HTTP on 127.0.0.1.

It speaks the Bot API's shape, ``GET/POST /bot<token>/<method>``, with JSON, form-urlencoded and
multipart bodies (python-telegram-bot sends form fields whose non-string values are JSON-encoded),
and answers ``{"ok": true, "result": ...}`` or the Bot API's error shape
``{"ok": false, "error_code": N, "description": "...", "parameters": {...}}``.

    async with FakeBotApi() as api:
        bot = telegram.Bot(api.token, base_url=api.base_url + "/bot")
        api.push_update(text_message(chat_id=42, text="oi"))
        ...
        await api.wait_for_sent(42, count=1, within=2)

The server runs as an asyncio task on the test's own loop; every wait it does is bounded
(``getUpdates`` long polling is capped by ``max_poll_timeout``), and the test API never sleeps on
the wall clock except for the optional ``latency``.

``FakeBotApi(limits=TelegramLimits())`` enforces Telegram's flood limits on the messages a bot
sends (30 a second overall, 1 a second per private chat, 20 a minute per group; 1,000 a second for
``allow_paid_broadcast`` messages) as Telegram does: 429 with ``parameters.retry_after``, counted
in ``api.too_many_requests`` by the limit broken. Off by default, so that the tests of everything else stay fast.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl

import uvicorn
from bot.sandbox.server import PromptServer
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

DEFAULT_TOKEN = "123456789:AAFakeTokenForTheTestsOnly-0123456789"
BOT_ID = 123456789
BOT_USERNAME = "ispbot_test_bot"
MAX_TEXT = 4096
MAX_BOT_DOWNLOAD = 20 * 1024 * 1024  # getFile refuses bigger files to bots
MAX_CALLBACK_DATA = 64
MAX_TOPIC_NAME = 128

# Fields whose value is a plain string even when it looks like JSON ("123", "true", "null").
_STRING_FIELDS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "url",
        "secret_token",
        "name",
        "language_code",
        "icon_custom_emoji_id",
        "inline_message_id",
        "ip_address",
        "document",
        "title",
        "address",
    }
)

Json = dict[str, Any]


class ApiError(Exception):
    """A Bot API failure, answered in the Bot API's error shape."""

    def __init__(self, code: int, description: str, parameters: Json | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> Json:
        answer: Json = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            answer["parameters"] = self.parameters
        return answer


@dataclass
class Sent:
    """One outgoing call the bot made for a chat (a new message or an edit), in arrival order."""

    method: str
    chat_id: int | str
    message_id: int
    params: Json
    text: str | None = None

    @property
    def reply_markup(self) -> Json | None:
        markup = self.params.get("reply_markup")
        return markup if isinstance(markup, dict) else None

    @property
    def parse_mode(self) -> str | None:
        value = self.params.get("parse_mode")
        return value if isinstance(value, str) else None

    @property
    def message_thread_id(self) -> int | None:
        value = self.params.get("message_thread_id")
        return value if isinstance(value, int) else None

    def button_rows(self) -> list[list[Json]]:
        """The inline keyboard's rows (empty without one)."""
        markup = self.reply_markup or {}
        rows = markup.get("inline_keyboard", [])
        return rows if isinstance(rows, list) else []

    def callback_data(self) -> list[str]:
        return [
            str(button["callback_data"]) for row in self.button_rows() for button in row if "callback_data" in button
        ]


@dataclass(frozen=True)
class TelegramLimits:
    """At most ``(count, seconds)`` messages: overall, per private chat, per group, as paid broadcasts.
    ``slack``: Telegram does not count to the millisecond, and neither does this fake (a bot's sends
    reach it some milliseconds after the bot counted them): a window is that much shorter."""

    overall: tuple[int, float] = (30, 1.0)
    private_chat: tuple[int, float] = (1, 1.0)
    group_chat: tuple[int, float] = (20, 60.0)
    paid_broadcast: tuple[int, float] = (1000, 1.0)
    slack: float = 0.05


# The calls that post a message to a chat, which Telegram's flood limits count.
_LIMITED_METHODS = frozenset({"sendMessage", "sendDocument", "sendLocation", "copyMessage", "editMessageText"})


class _FloodControl:
    """Sliding windows of accepted sends; the wait before one more fits."""

    def __init__(self, limits: TelegramLimits) -> None:
        self.limits = limits
        self._sent: dict[object, deque[float]] = {}
        self.retry_after = 0  # of the last refusal, in whole seconds as Telegram gives it

    def check(self, chat_id: int | str, paid: bool, now: float) -> str | None:
        """Record the send when it fits; else which limit it broke ("overall", "paid", "chat")."""
        limits = self.limits
        overall: tuple[str, object, tuple[int, float]] = (
            ("paid", "paid", limits.paid_broadcast) if paid else ("overall", "overall", limits.overall)
        )
        chat = ("chat", chat_id, limits.group_chat if _is_group(chat_id) else limits.private_chat)
        for name, key, rate in (overall, chat):
            if (wait := self._wait(key, rate, now)) > 0:
                self.retry_after = max(1, math.ceil(wait))
                return name
        for _, key, _ in (overall, chat):
            self._sent.setdefault(key, deque()).append(now)
        return None

    def _wait(self, key: object, rate: tuple[int, float], now: float) -> float:
        count, period = rate
        period = max(period - self.limits.slack, 0.0)
        sent = self._sent.setdefault(key, deque())
        while sent and sent[0] <= now - period:
            sent.popleft()
        return 0.0 if len(sent) < count else sent[0] + period - now


@dataclass
class _Failure:
    method: str
    code: int
    description: str
    parameters: Json | None
    chat_id: int | str | None


@dataclass
class _Webhook:
    url: str = ""
    secret_token: str | None = None
    allowed_updates: list[str] | None = None
    max_connections: int = 40
    last_error_date: int | None = None
    last_error_message: str | None = None


@dataclass
class Group:
    """A group chat as the bot sees it (``FakeBotApi.set_group``). Any negative chat id the test did
    not set is a forum supergroup where the bot is an administrator that can manage topics."""

    chat_type: str = "supergroup"  # or "group" (a basic group, never a forum)
    is_forum: bool = True
    title: str = "Suporte"
    bot_status: str = "administrator"  # "member", "left" or "kicked" (getChat is then refused)
    can_manage_topics: bool = True


@dataclass
class _State:
    updates: list[Json] = field(default_factory=list)
    next_update_id: int = 1
    next_message_id: dict[int | str, int] = field(default_factory=dict)
    outgoing: list[Sent] = field(default_factory=list)
    messages: dict[tuple[int | str, int], Sent] = field(default_factory=dict)
    open_callbacks: set[str] = field(default_factory=set)
    answered_callbacks: list[Json] = field(default_factory=list)
    deleted: list[tuple[int | str, int]] = field(default_factory=list)  # deleteMessage: (chat_id, message_id)
    commands: dict[tuple[str, str], list[Json]] = field(default_factory=dict)
    topics: dict[int | str, list[Json]] = field(default_factory=dict)
    failures: list[_Failure] = field(default_factory=list)
    webhook: _Webhook = field(default_factory=_Webhook)
    groups: dict[int | str, Group | None] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)  # what people "sent", by file_id (getFile)


class FakeBotApi:
    """The fake server and its test API. ``async with FakeBotApi() as api`` serves on a free port."""

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        max_poll_timeout: float = 1.0,
        start_timeout: float = 5.0,
        limits: TelegramLimits | None = None,
    ) -> None:
        self.token = token
        self._flood = _FloodControl(limits) if limits is not None else None
        self.too_many_requests: Counter[str] = Counter()  # 429s answered, by the limit broken
        self.tokens = {token}
        self.max_poll_timeout = max_poll_timeout
        self.start_timeout = start_timeout
        self.latency = 0.0
        self.calls: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()  # calls whose answer was made, as the caller sees it
        self.abandoned: Counter[str] = Counter()  # calls whose caller went away before its body arrived
        self.bot_user: Json = {
            "id": int(token.split(":", 1)[0]) if token.split(":", 1)[0].isdigit() else BOT_ID,
            "is_bot": True,
            "first_name": "ISP Bot",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }
        self._state = _State()
        self._changed = asyncio.Event()
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._port: int | None = None
        self._host = "127.0.0.1"
        self._methods: dict[str, Callable[[Json], Awaitable[Any]]] = {
            "getMe": self._get_me,
            "logOut": self._true,
            "close": self._true,
            "getUpdates": self._get_updates,
            "setWebhook": self._set_webhook,
            "deleteWebhook": self._delete_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "getChat": self._get_chat,
            "getChatMember": self._get_chat_member,
            "sendMessage": self._send_message,
            "editMessageText": self._edit_message_text,
            "answerCallbackQuery": self._answer_callback_query,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "createForumTopic": self._create_forum_topic,
            "closeForumTopic": self._close_forum_topic,
            "copyMessage": self._copy_message,
            "sendDocument": self._send_document,
            "sendPhoto": self._send_photo,
            "getFile": self._get_file,
            "sendLocation": self._send_location,
            "sendChatAction": self._send_chat_action,
            "deleteMessage": self._delete_message,
        }
        self.app = Starlette(
            routes=[Route("/bot{token}/{method}", self._endpoint, methods=["GET", "POST"]),
                    Route("/file/bot{token}/{path:path}", self._download, methods=["GET"])],
        )

    # ----------------------------------------------------------------- serving

    @property
    def base_url(self) -> str:
        """``http://<host>:<port>``; python-telegram-bot wants ``base_url=api.base_url + "/bot"``."""
        if self._port is None:
            raise RuntimeError("the fake Bot API is not serving")
        return f"http://{self._host}:{self._port}"

    async def start(self, port: int = 0, host: str = "127.0.0.1") -> FakeBotApi:
        """Serve on ``host`` (loopback unless a container on a bridge must reach it) and ``port``."""
        self._host = host
        config = uvicorn.Config(
            self.app,
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        server = PromptServer(config)  # stopped in milliseconds
        # The test runner owns the signals; the fake server is stopped through should_exit.
        server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
        self._server = server
        self._task = asyncio.create_task(server.serve(), name="fake-bot-api")
        try:
            await asyncio.wait_for(self._until_started(server), self.start_timeout)
        except BaseException:
            await self.stop()
            raise
        self._port = int(server.servers[0].sockets[0].getsockname()[1])
        return self

    async def _until_started(self, server: uvicorn.Server) -> None:
        for _ in range(100_000):
            if server.started:
                return
            if self._task is not None and self._task.done():
                raise RuntimeError("the fake Bot API server stopped while starting")
            await asyncio.sleep(0.005)
        raise RuntimeError("the fake Bot API server did not start")

    async def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._changed.set()  # wake long polls so the server can drain
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, self.start_timeout)
            except TimeoutError:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
        self._server = None
        self._task = None
        self._port = None

    @contextlib.asynccontextmanager
    async def unreachable(self) -> AsyncIterator[None]:
        """Nothing listens meanwhile, so every call is refused (connection refused, not a hang), as
        when Telegram's side is down; then the same fake, its state kept, serves on the same port."""
        port = self._port
        assert port is not None, "the fake Bot API is not serving"
        await self.stop()
        try:
            yield
        finally:
            await self.start(port, self._host)

    async def __aenter__(self) -> FakeBotApi:
        return await self.start()

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    # ----------------------------------------------------------------- test API

    def push_update(self, update: Json) -> int:
        """Queue an update for getUpdates; assigns ``update_id`` when missing. Answers the update_id."""
        state = self._state
        if "update_id" not in update:
            update = {"update_id": state.next_update_id, **update}
        update_id = int(update["update_id"])
        state.next_update_id = max(state.next_update_id, update_id + 1)
        query = update.get("callback_query")
        if isinstance(query, dict) and "id" in query:
            state.open_callbacks.add(str(query["id"]))
        state.updates.append(update)
        self._notify()
        return update_id

    @property
    def pending_updates(self) -> list[Json]:
        """Updates not yet confirmed by an offset."""
        return list(self._state.updates)

    def sent(self, chat_id: int | str) -> list[Sent]:
        """New messages the bot sent to ``chat_id`` (sendMessage, sendDocument, sendLocation), in order."""
        return [s for s in self._state.outgoing if s.chat_id == chat_id and not s.method.startswith("edit")]

    def edits(self, chat_id: int | str) -> list[Sent]:
        """Successful editMessageText calls for ``chat_id``, in order."""
        return [s for s in self._state.outgoing if s.chat_id == chat_id and s.method.startswith("edit")]

    def outgoing(self, chat_id: int | str | None = None) -> list[Sent]:
        """Every successful outgoing call (sends and edits), optionally for one chat, in order."""
        return [s for s in self._state.outgoing if chat_id is None or s.chat_id == chat_id]

    def outgoing_since(self, index: int) -> list[Sent]:
        """The outgoing calls after the first ``index`` (to follow them as they come without copying all)."""
        return self._state.outgoing[index:]

    def message(self, chat_id: int | str, message_id: int) -> Sent | None:
        """The current state of a message the bot sent (text after edits)."""
        return self._state.messages.get((chat_id, message_id))

    def delete_by_user(self, chat_id: int | str, message_id: int) -> None:
        """The person deleted their own message: the bot's deleteMessage finds nothing to delete."""
        self._state.deleted.append((chat_id, message_id))

    @property
    def deleted(self) -> list[tuple[int | str, int]]:
        """The messages deleted with deleteMessage, in order: ``(chat_id, message_id)``."""
        return list(self._state.deleted)

    @property
    def answered_callbacks(self) -> list[Json]:
        """answerCallbackQuery calls, in order: ``{"callback_query_id", "text", "show_alert", ...}``."""
        return list(self._state.answered_callbacks)

    def commands(self, scope: Json | None = None, language_code: str = "") -> list[Json]:
        """The command menu set with setMyCommands for a scope (default scope) and language."""
        return list(self._state.commands.get((_scope_key(scope), language_code), []))

    def topics(self, chat_id: int | str) -> list[Json]:
        return list(self._state.topics.get(chat_id, []))

    @property
    def webhook_url(self) -> str:
        return self._state.webhook.url

    @property
    def webhook_secret(self) -> str | None:
        return self._state.webhook.secret_token

    def set_group(self, chat_id: int, group: Group | None) -> None:
        """How the bot sees a group chat from now on; None: a chat the bot does not know ("chat not found")."""
        self._state.groups[chat_id] = group

    def webhook_delivery_failed(self, message: str, at: int | None = None) -> None:
        """Telegram could not post an update to the webhook: getWebhookInfo reports it from now on."""
        self._state.webhook.last_error_date = int(time.time()) if at is None else at
        self._state.webhook.last_error_message = message

    def fail_next(
        self,
        method: str,
        code: int = 429,
        *,
        retry_after: int | None = None,
        chat_id: int | str | None = None,
        description: str | None = None,
        times: int = 1,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (only for ``chat_id`` when given) fail with ``code``.

        A 429 carries ``parameters.retry_after`` (default 1) as Telegram sends it.
        """
        parameters: Json | None = None
        if code == 429:
            seconds = 1 if retry_after is None else retry_after
            parameters = {"retry_after": seconds}
            description = description or f"Too Many Requests: retry after {seconds}"
        elif retry_after is not None:
            parameters = {"retry_after": retry_after}
        text = description or _DEFAULT_DESCRIPTIONS.get(code, f"Error {code}")
        for _ in range(times):
            self._state.failures.append(_Failure(method, code, text, parameters, chat_id))

    async def wait_until(self, predicate: Callable[[], bool], within: float = 10.0) -> None:
        """Wait (bounded) until ``predicate()`` holds after some call or push; TimeoutError otherwise."""

        async def loop() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), within)

    async def wait_for_sent(self, chat_id: int | str, count: int = 1, within: float = 10.0) -> list[Sent]:
        """Wait (bounded) until the bot sent at least ``count`` messages to ``chat_id``."""
        await self.wait_until(lambda: len(self.sent(chat_id)) >= count, within)
        return self.sent(chat_id)

    def _notify(self) -> None:
        self._changed.set()

    # ----------------------------------------------------------------- HTTP

    async def _endpoint(self, request: Request) -> JSONResponse:
        token = request.path_params["token"]
        method_name = request.path_params["method"]
        if token not in self.tokens:
            return JSONResponse(ApiError(401, "Unauthorized").body(), status_code=401)
        handler = self._find_method(method_name)
        if handler is None:
            return JSONResponse(ApiError(404, "Not Found").body(), status_code=404)
        canonical = next(name for name in self._methods if name.lower() == method_name.lower())
        self.calls[canonical] += 1
        self._notify()  # a waiter may be counting calls, long polls included
        try:
            params = await _read_params(request)
            if self.latency > 0:
                await asyncio.sleep(self.latency)
            self._raise_planned_failure(canonical, params)
            self._flood_control(canonical, params)
            result = await handler(params)
        except ApiError as error:
            return JSONResponse(error.body(), status_code=error.code)
        except ClientDisconnect:
            # The caller went away before its body arrived (a benchmark stopping a contender while
            # it sends): there is nobody to answer, and it is not the server's failure to report.
            self.abandoned[canonical] += 1
            return JSONResponse({"ok": False, "error_code": 499, "description": "client gone"}, status_code=499)
        finally:
            self.answered[canonical] += 1
            self._notify()
        return JSONResponse({"ok": True, "result": result})

    def _find_method(self, name: str) -> Callable[[Json], Awaitable[Any]] | None:
        # Telegram matches method names case-insensitively.
        for known, handler in self._methods.items():
            if known.lower() == name.lower():
                return handler
        return None

    def _flood_control(self, method: str, params: Json) -> None:
        if self._flood is None or method not in _LIMITED_METHODS or "chat_id" not in params:
            return
        broken = self._flood.check(_chat_id(params), params.get("allow_paid_broadcast") is True, time.monotonic())
        if broken is not None:
            self.too_many_requests[broken] += 1
            seconds = self._flood.retry_after
            raise ApiError(429, f"Too Many Requests: retry after {seconds}", {"retry_after": seconds})

    def _raise_planned_failure(self, method: str, params: Json) -> None:
        for index, failure in enumerate(self._state.failures):
            if failure.method.lower() != method.lower():
                continue
            if failure.chat_id is not None and params.get("chat_id") != failure.chat_id:
                continue
            del self._state.failures[index]
            raise ApiError(failure.code, failure.description, failure.parameters)

    # ----------------------------------------------------------------- methods

    async def _true(self, params: Json) -> bool:
        return True

    async def _get_me(self, params: Json) -> Json:
        return dict(self.bot_user)

    async def _get_updates(self, params: Json) -> list[Json]:
        state = self._state
        if state.webhook.url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = _int(params.get("offset"), 0)
        limit = min(max(_int(params.get("limit"), 100), 1), 100)
        timeout = max(_float(params.get("timeout"), 0.0), 0.0)
        allowed = params.get("allowed_updates")
        self._confirm(offset)
        if not state.updates and timeout > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._until_updates(), min(timeout, self.max_poll_timeout))
            self._confirm(offset)
        batch: Any = state.updates
        if isinstance(allowed, list) and allowed:  # looked at only as far as the batch goes
            batch = (u for u in batch if any(kind in u for kind in allowed))
        return [dict(u) for u in itertools.islice(batch, limit)]

    async def _until_updates(self) -> None:
        while not self._state.updates:
            if self._server is not None and self._server.should_exit:
                return
            self._changed.clear()
            await self._changed.wait()

    def _confirm(self, offset: int) -> None:
        """Telegram's offset semantics: updates below a positive offset are forgotten for good;
        a negative offset keeps only the last ``-offset`` updates."""
        state = self._state
        if offset > 0:
            state.updates = [u for u in state.updates if _int(u.get("update_id"), 0) >= offset]
        elif offset < 0:
            state.updates = state.updates[offset:]

    async def _set_webhook(self, params: Json) -> bool:
        url = params.get("url")
        if not isinstance(url, str):
            raise ApiError(400, "Bad Request: bad webhook: URL must be a string")
        if url and not url.startswith(("https://", "http://")):
            raise ApiError(400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
        allowed = params.get("allowed_updates")
        self._state.webhook = _Webhook(
            url=url,
            secret_token=params.get("secret_token") or None,
            allowed_updates=allowed if isinstance(allowed, list) else None,
            max_connections=_int(params.get("max_connections"), 40),
        )
        if params.get("drop_pending_updates") is True:
            self._state.updates.clear()
        return True

    async def _delete_webhook(self, params: Json) -> bool:
        self._state.webhook = _Webhook()
        if params.get("drop_pending_updates") is True:
            self._state.updates.clear()
        return True

    async def _get_webhook_info(self, params: Json) -> Json:
        hook = self._state.webhook
        info: Json = {
            "url": hook.url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._state.updates),
        }
        if hook.url:
            info["max_connections"] = hook.max_connections
            if hook.allowed_updates is not None:
                info["allowed_updates"] = hook.allowed_updates
        if hook.last_error_date is not None:
            info["last_error_date"] = hook.last_error_date
            info["last_error_message"] = hook.last_error_message or ""
        return info

    def _group(self, chat_id: int | str) -> Group:
        """The group as the bot sees it; Telegram's refusals for one it does not know or was removed from."""
        group = self._state.groups[chat_id] if chat_id in self._state.groups else Group()
        if group is None:
            raise ApiError(400, "Bad Request: chat not found")
        kind = group.chat_type
        if group.bot_status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
        if group.bot_status == "left":
            raise ApiError(403, f"Forbidden: bot is not a member of the {kind} chat")
        return group

    async def _get_chat(self, params: Json) -> Json:
        """A ChatFullInfo: the fields every chat has, and those of its type."""
        chat_id = _chat_id(params)
        info: Json = {**_chat(chat_id), "accent_color_id": 0, "max_reaction_count": 11,
                      "accepted_gift_types": {"unlimited_gifts": False, "limited_gifts": False,
                                              "unique_gifts": False, "premium_subscription": False,
                                              "gifts_from_channels": False}}
        if _is_group(chat_id):
            group = self._group(chat_id)
            info.update(type=group.chat_type, title=group.title)
            info.pop("is_forum", None)
            if group.chat_type == "supergroup" and group.is_forum:
                info["is_forum"] = True
        return info

    async def _get_chat_member(self, params: Json) -> Json:
        chat_id = _chat_id(params)
        user_id = _int(params.get("user_id"), 0)
        if user_id <= 0:
            raise ApiError(400, "Bad Request: invalid user_id specified")
        if user_id != self.bot_user["id"]:
            return {"status": "member", "user": {"id": user_id, "is_bot": False, "first_name": "Membro"}}
        user = {k: self.bot_user[k] for k in ("id", "is_bot", "first_name", "username")}
        if not _is_group(chat_id):
            return {"status": "member", "user": user}
        group = self._group(chat_id)
        if group.bot_status != "administrator":
            return {"status": group.bot_status, "user": user}
        rights = dict.fromkeys((
            "can_manage_chat", "can_delete_messages", "can_manage_video_chats", "can_restrict_members",
            "can_change_info", "can_invite_users", "can_post_stories", "can_edit_stories", "can_delete_stories",
            "can_pin_messages",
        ), True)
        return {"status": "administrator", "user": user, "can_be_edited": False, "is_anonymous": False,
                "can_promote_members": False, **rights, "can_manage_topics": group.can_manage_topics}

    def _check_topic_rights(self, chat_id: int | str, action: str) -> None:
        if not _is_group(chat_id):
            raise ApiError(400, "Bad Request: the chat is not a forum")
        group = self._group(chat_id)
        if group.chat_type != "supergroup" or not group.is_forum:
            raise ApiError(400, "Bad Request: the chat is not a forum")
        if group.bot_status != "administrator" or not group.can_manage_topics:
            raise ApiError(400, f"Bad Request: not enough rights to {action} a topic in the chat")

    async def _send_message(self, params: Json) -> Json:
        chat_id = _chat_id(params)
        text = params.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ApiError(400, "Bad Request: message text is empty")
        if len(text) > MAX_TEXT:
            raise ApiError(400, "Bad Request: message is too long")
        _check_markup(params.get("reply_markup"))
        return self._record("sendMessage", chat_id, params, text=text, content={"text": text})

    async def _send_document(self, params: Json) -> Json:
        chat_id = _chat_id(params)
        document = params.get("document")
        if document is None:
            raise ApiError(400, "Bad Request: there is no document in the request")
        if isinstance(document, bytes):
            file_id, size = f"DOC{len(self._state.outgoing) + 1}", len(document)
        else:
            file_id, size = str(document), 0
        _check_markup(params.get("reply_markup"))
        content: Json = {
            "document": {
                "file_id": file_id,
                "file_unique_id": file_id.lower(),
                "file_name": params.get("_filename", "document"),
                "file_size": size,
            }
        }
        caption = params.get("caption")
        if isinstance(caption, str):
            content["caption"] = caption
        return self._record(
            "sendDocument", chat_id, params, text=caption if isinstance(caption, str) else None, content=content
        )

    async def _send_photo(self, params: Json) -> Json:
        chat_id = _chat_id(params)
        photo = params.get("photo")
        if not isinstance(photo, bytes | str) or not photo:
            raise ApiError(400, "Bad Request: there is no photo in the request")
        if isinstance(photo, bytes) and not photo.startswith((b"\x89PNG", b"\xff\xd8")):
            raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
        _check_markup(params.get("reply_markup"))
        size = len(photo) if isinstance(photo, bytes) else 0
        file_id = f"PHOTO_OUT{len(self._state.outgoing) + 1}"
        content: Json = {"photo": [{"file_id": file_id, "file_unique_id": file_id.lower(), "width": 512,
                                    "height": 512, "file_size": size}]}
        caption = params.get("caption")
        if isinstance(caption, str):
            content["caption"] = caption
        return self._record("sendPhoto", chat_id, params, text=caption if isinstance(caption, str) else None,
                            content=content)

    # ---------------------------------------------------------------- files people send

    def add_file(self, file_id: str, content: bytes) -> None:
        """Make ``file_id`` fetchable with getFile and its download (a photo or document a person sent)."""
        self._state.files[file_id] = content

    async def _get_file(self, params: Json) -> Json:
        file_id = str(params.get("file_id", ""))
        content = self._state.files.get(file_id)
        if content is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        if len(content) > MAX_BOT_DOWNLOAD:
            raise ApiError(400, "Bad Request: file is too big")
        return {"file_id": file_id, "file_unique_id": file_id.lower(), "file_size": len(content),
                "file_path": f"documents/{file_id}"}

    async def _download(self, request: Request) -> Response:
        if request.path_params["token"] not in self.tokens:
            return Response(status_code=401)
        self.calls["(download)"] += 1
        content = self._state.files.get(str(request.path_params["path"]).rsplit("/", 1)[-1])
        return Response(status_code=404) if content is None else Response(content)

    async def _send_location(self, params: Json) -> Json:
        chat_id = _chat_id(params)
        latitude, longitude = params.get("latitude"), params.get("longitude")
        if not isinstance(latitude, int | float) or not isinstance(longitude, int | float):
            raise ApiError(400, "Bad Request: wrong latitude or longitude")
        _check_markup(params.get("reply_markup"))
        return self._record(
            "sendLocation",
            chat_id,
            params,
            text=None,
            content={"location": {"latitude": latitude, "longitude": longitude}},
        )

    async def _send_chat_action(self, params: Json) -> bool:
        _chat_id(params)
        return True

    def _record(self, method: str, chat_id: int | str, params: Json, *, text: str | None, content: Json) -> Json:
        state = self._state
        message_id = state.next_message_id.get(chat_id, 1)
        state.next_message_id[chat_id] = message_id + 1
        sent = Sent(method=method, chat_id=chat_id, message_id=message_id, params=dict(params), text=text)
        state.outgoing.append(sent)
        state.messages[(chat_id, message_id)] = sent
        message: Json = {
            "message_id": message_id,
            "from": {k: self.bot_user[k] for k in ("id", "is_bot", "first_name", "username")},
            "date": int(time.time()),
            "chat": _chat(chat_id),
            **content,
        }
        thread_id = params.get("message_thread_id")
        if isinstance(thread_id, int) and _is_group(chat_id):
            message["message_thread_id"] = thread_id
            message["is_topic_message"] = thread_id in {t["message_thread_id"] for t in state.topics.get(chat_id, [])}
        markup = params.get("reply_markup")
        if isinstance(markup, dict) and "inline_keyboard" in markup:
            message["reply_markup"] = markup
        return message

    async def _edit_message_text(self, params: Json) -> Json | bool:
        if "inline_message_id" in params:
            raise ApiError(400, "Bad Request: inline messages are not supported by the fake Bot API")
        chat_id = _chat_id(params)
        message_id = _int(params.get("message_id"), 0)
        text = params.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ApiError(400, "Bad Request: message text is empty")
        if len(text) > MAX_TEXT:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        _check_markup(params.get("reply_markup"))
        current = self._state.messages.get((chat_id, message_id))
        if current is None or current.text is None:
            raise ApiError(400, "Bad Request: message to edit not found")
        if current.text == text and current.reply_markup == params.get("reply_markup"):
            raise ApiError(
                400,
                "Bad Request: message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message",
            )
        edit = Sent(method="editMessageText", chat_id=chat_id, message_id=message_id, params=dict(params), text=text)
        self._state.outgoing.append(edit)
        self._state.messages[(chat_id, message_id)] = edit
        message: Json = {
            "message_id": message_id,
            "from": {k: self.bot_user[k] for k in ("id", "is_bot", "first_name", "username")},
            "date": int(time.time()),
            "edit_date": int(time.time()),
            "chat": _chat(chat_id),
            "text": text,
        }
        markup = params.get("reply_markup")
        if isinstance(markup, dict):
            message["reply_markup"] = markup
        return message

    async def _delete_message(self, params: Json) -> bool:
        chat_id, message_id = params.get("chat_id"), params.get("message_id")
        if not isinstance(chat_id, int | str) or not isinstance(message_id, int) \
                or (chat_id, message_id) in self._state.deleted:
            raise ApiError(400, "Bad Request: message to delete not found")
        self._state.deleted.append((chat_id, message_id))
        self._state.messages.pop((chat_id, message_id), None)
        return True

    async def _answer_callback_query(self, params: Json) -> bool:
        query_id = params.get("callback_query_id")
        if not isinstance(query_id, str) or query_id not in self._state.open_callbacks:
            raise ApiError(400, "Bad Request: query is too old and response timeout expired or query ID is invalid")
        self._state.open_callbacks.discard(query_id)
        text = params.get("text")
        if isinstance(text, str) and len(text) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        self._state.answered_callbacks.append(
            {
                "callback_query_id": query_id,
                "text": text,
                "show_alert": params.get("show_alert") is True,
                "url": params.get("url"),
                "cache_time": _int(params.get("cache_time"), 0),
            }
        )
        return True

    async def _set_my_commands(self, params: Json) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise ApiError(400, "Bad Request: commands must be a list of at most 100 commands")
        for command in commands:
            name = command.get("command") if isinstance(command, dict) else None
            description = command.get("description") if isinstance(command, dict) else None
            if (
                not isinstance(name, str)
                or not 1 <= len(name) <= 32
                or not all(c.islower() or c.isdigit() or c == "_" for c in name)
            ):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not 1 <= len(description) <= 256:
                raise ApiError(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
        key = (_scope_key(params.get("scope")), str(params.get("language_code") or ""))
        self._state.commands[key] = [dict(c) for c in commands]
        return True

    async def _get_my_commands(self, params: Json) -> list[Json]:
        key = (_scope_key(params.get("scope")), str(params.get("language_code") or ""))
        return list(self._state.commands.get(key, []))

    async def _delete_my_commands(self, params: Json) -> bool:
        key = (_scope_key(params.get("scope")), str(params.get("language_code") or ""))
        self._state.commands.pop(key, None)
        return True

    async def _create_forum_topic(self, params: Json) -> Json:
        chat_id = _chat_id(params)
        self._check_topic_rights(chat_id, "create")
        name = params.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_TOPIC_NAME:
            raise ApiError(400, "Bad Request: TOPIC_TITLE_EMPTY" if not name else "Bad Request: TOPIC_TITLE_INVALID")
        topics = self._state.topics.setdefault(chat_id, [])
        # Telegram's thread ids are the id of the topic's service message; any increasing int will do.
        thread_id = 1000 + len(topics) * 2 + 1
        topic: Json = {
            "message_thread_id": thread_id,
            "name": name,
            "icon_color": _int(params.get("icon_color"), 7322096),
        }
        emoji = params.get("icon_custom_emoji_id")
        if isinstance(emoji, str) and emoji:
            topic["icon_custom_emoji_id"] = emoji
        topics.append(topic)
        return dict(topic)


    async def _close_forum_topic(self, params: Json) -> bool:
        chat_id = _chat_id(params)
        self._check_topic_rights(chat_id, "close")
        thread_id = _int(params.get("message_thread_id"), 0)
        topic = next((t for t in self._state.topics.get(chat_id, []) if t["message_thread_id"] == thread_id), None)
        if topic is None:
            raise ApiError(400, "Bad Request: TOPIC_ID_INVALID")
        if topic.get("is_closed"):
            raise ApiError(400, "Bad Request: TOPIC_NOT_MODIFIED")
        topic["is_closed"] = True
        return True

    async def _copy_message(self, params: Json) -> Json:
        """A copy of a message the bot can see (any chat's update): recorded with a marker text."""
        chat_id = _chat_id(params)
        source, message_id = params.get("from_chat_id"), _int(params.get("message_id"), 0)
        if source is None or message_id <= 0:
            raise ApiError(400, "Bad Request: message to copy not found")
        caption = params.get("caption")
        text = f"[copy of {source}/{message_id}]" + (f" {caption}" if isinstance(caption, str) else "")
        sent = self._record("copyMessage", chat_id, params, text=text, content={"text": text})
        return {"message_id": sent["message_id"]}


_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request: message to edit not found",
    403: "Forbidden: bot was blocked by the user",
    409: "Conflict: terminated by other getUpdates request",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


# --------------------------------------------------------------------- request parsing


async def _read_params(request: Request) -> Json:
    """The call's parameters from the query string and a JSON, form-urlencoded or multipart body."""
    params: Json = {name: _decode(name, value) for name, value in request.query_params.items()}
    body = await request.body()
    if not body:
        return params
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("application/json"):
        try:
            decoded = json.loads(body)
        except ValueError as exc:
            raise ApiError(400, "Bad Request: can't parse JSON encoded request") from exc
        if not isinstance(decoded, dict):
            raise ApiError(400, "Bad Request: can't parse JSON encoded request")
        params.update(decoded)
    elif content_type.startswith("application/x-www-form-urlencoded"):
        for name, value in parse_qsl(body.decode("utf-8"), keep_blank_values=True):
            params[name] = _decode(name, value)
    elif content_type.startswith("multipart/form-data"):
        params.update(_parse_multipart(content_type, body))
    else:
        raise ApiError(400, f"Bad Request: unsupported content type {content_type!r}")
    return params


def _parse_multipart(content_type: str, body: bytes) -> Json:
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    params: Json = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        if filename is not None:
            params[name] = data
            params["_filename"] = filename
        else:
            params[name] = _decode(name, data.decode("utf-8"))
    # python-telegram-bot sends an uploaded file as "attach://<name>" in the field, the bytes in <name>.
    for name, value in list(params.items()):
        if isinstance(value, str) and value.startswith("attach://"):
            params[name] = params.get(value.removeprefix("attach://"), value)
    return params


def _decode(name: str, value: str) -> Any:
    """Form fields carry JSON for non-string values (python-telegram-bot's ``json_value``)."""
    if name in _STRING_FIELDS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _int(value: Any, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return int(value)
    return default


def _float(value: Any, default: float) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return float(value)
    return default


def _chat_id(params: Json) -> int | str:
    chat_id = params.get("chat_id")
    if isinstance(chat_id, int) and not isinstance(chat_id, bool) and chat_id != 0:
        return chat_id
    if isinstance(chat_id, str) and chat_id.startswith("@") and len(chat_id) > 1:
        return chat_id
    raise ApiError(400, "Bad Request: chat not found")


def _is_group(chat_id: int | str) -> bool:
    return isinstance(chat_id, int) and chat_id < 0


def _chat(chat_id: int | str) -> Json:
    if isinstance(chat_id, str):
        return {"id": -1001000000000, "type": "channel", "title": chat_id, "username": chat_id[1:]}
    if chat_id < 0:
        return {"id": chat_id, "type": "supergroup", "title": "Suporte", "is_forum": True}
    return {"id": chat_id, "type": "private", "first_name": "Cliente"}


def _check_markup(markup: Any) -> None:
    if markup is None:
        return
    if not isinstance(markup, dict):
        raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
    rows = markup.get("inline_keyboard")
    if rows is None:
        return
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise ApiError(400, 'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an Array')
    for row in rows:
        for button in row:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise ApiError(400, "Bad Request: can't parse inline keyboard button: Text buttons are unallowed")
            data = button.get("callback_data")
            if data is not None and (not isinstance(data, str) or not 1 <= len(data.encode()) <= MAX_CALLBACK_DATA):
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")


def _scope_key(scope: Any) -> str:
    if not isinstance(scope, dict) or scope.get("type") in (None, "default"):
        return "default"
    return json.dumps(scope, sort_keys=True)


# --------------------------------------------------------------------- update builders
# Realistic updates as Telegram sends them (field names and shapes of the Bot API's Update object).
# Positive chat ids are private chats (chat id == user id), negative ones supergroups.

_message_ids = itertools.count(1)
_callback_ids = itertools.count(1)
STAFF_GROUP_ID = -1001234567890


def user(user_id: int, first_name: str = "Ana", *, language_code: str | None = "pt-br") -> Json:
    person: Json = {"id": user_id, "is_bot": False, "first_name": first_name}
    if language_code is not None:
        person["language_code"] = language_code
    return person


def _message(chat_id: int, *, user_id: int | None = None, date: int | None = None, **content: Any) -> Json:
    sender = user(user_id if user_id is not None else chat_id)
    chat = _chat(chat_id)
    if chat["type"] == "private":
        chat["first_name"] = sender["first_name"]
    return {
        "message_id": next(_message_ids),
        "from": sender,
        "chat": chat,
        "date": date if date is not None else int(time.time()),
        **content,
    }


def text_message(chat_id: int, text: str, *, user_id: int | None = None, date: int | None = None) -> Json:
    """A text message; a leading ``/command`` carries its ``bot_command`` entity as Telegram sends it."""
    content: Json = {"text": text}
    if text.startswith("/"):
        length = len(text.split(maxsplit=1)[0].encode("utf-16-le")) // 2
        content["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
    return {"message": _message(chat_id, user_id=user_id, date=date, **content)}


def start(chat_id: int, payload: str | None = None, *, user_id: int | None = None) -> Json:
    """``/start <payload>``, what a deep link ``t.me/<bot>?start=<payload>`` sends."""
    return text_message(chat_id, "/start" if payload is None else f"/start {payload}", user_id=user_id)


def edited_text(chat_id: int, message_id: int, text: str, *, user_id: int | None = None) -> Json:
    message = _message(chat_id, user_id=user_id, text=text)
    message["message_id"] = message_id
    message["edit_date"] = message["date"]
    return {"edited_message": message}


def callback_query(
    chat_id: int, data: str, *, message_id: int = 1, user_id: int | None = None, message_text: str = "Escolha:"
) -> Json:
    """A press on an inline button of the bot's message ``message_id`` in ``chat_id``."""
    sender = user(user_id if user_id is not None else chat_id)
    return {
        "callback_query": {
            "id": str(4_000_000_000_000 + next(_callback_ids)),
            "from": sender,
            "message": {
                "message_id": message_id,
                "from": {"id": BOT_ID, "is_bot": True, "first_name": "ISP Bot", "username": BOT_USERNAME},
                "chat": _chat(chat_id),
                "date": int(time.time()),
                "text": message_text,
            },
            "chat_instance": str(-7_000_000_000 - abs(chat_id)),
            "data": data,
        }
    }


def contact_message(
    chat_id: int,
    phone_number: str,
    *,
    contact_user_id: int | None = None,
    user_id: int | None = None,
    first_name: str = "Ana",
) -> Json:
    """A shared contact; ``contact_user_id`` equal to the sender means the person shared their own."""
    contact: Json = {"phone_number": phone_number, "first_name": first_name}
    if contact_user_id is not None:
        contact["user_id"] = contact_user_id
    return {"message": _message(chat_id, user_id=user_id, contact=contact)}


def location_message(
    chat_id: int, latitude: float, longitude: float, *, live_period: int | None = None, user_id: int | None = None
) -> Json:
    location: Json = {"latitude": latitude, "longitude": longitude}
    if live_period is not None:
        location["live_period"] = live_period
        location["horizontal_accuracy"] = 12.5
    return {"message": _message(chat_id, user_id=user_id, location=location)}


def live_location_edit(
    chat_id: int,
    message_id: int,
    latitude: float,
    longitude: float,
    *,
    live_period: int = 900,
    user_id: int | None = None,
) -> Json:
    """A live location moving: Telegram sends it as an ``edited_message`` of the original message."""
    message = _message(
        chat_id,
        user_id=user_id,
        location={"latitude": latitude, "longitude": longitude, "live_period": live_period, "heading": 90},
    )
    message["message_id"] = message_id
    message["edit_date"] = message["date"]
    return {"edited_message": message}


def photo_message(chat_id: int, caption: str | None = None, *, user_id: int | None = None) -> Json:
    sizes = [
        {"file_id": f"PHOTO{n}", "file_unique_id": f"ph{n}", "width": w, "height": h, "file_size": w * h // 10}
        for n, (w, h) in enumerate([(90, 67), (320, 240), (1280, 960)])
    ]
    content: Json = {"photo": sizes}
    if caption is not None:
        content["caption"] = caption
    return {"message": _message(chat_id, user_id=user_id, **content)}


def document_message(
    chat_id: int, file_name: str = "comprovante.pdf", caption: str | None = None, *, user_id: int | None = None,
    file_id: str = "DOC1", file_size: int = 48213, mime_type: str = "application/pdf",
) -> Json:
    content: Json = {
        "document": {
            "file_id": file_id,
            "file_unique_id": file_id.lower(),
            "file_name": file_name,
            "mime_type": mime_type,
            "file_size": file_size,
        }
    }
    if caption is not None:
        content["caption"] = caption
    return {"message": _message(chat_id, user_id=user_id, **content)}


def topic_message(thread_id: int, text: str, *, user_id: int = 555, chat_id: int = STAFF_GROUP_ID) -> Json:
    """A staff member writing in forum topic ``thread_id`` of the staff supergroup."""
    message = _message(chat_id, user_id=user_id, text=text)
    message["message_thread_id"] = thread_id
    message["is_topic_message"] = True
    return {"message": message}


def topic_closed(thread_id: int, *, user_id: int = 555, chat_id: int = STAFF_GROUP_ID) -> Json:
    """The service message of a staff member closing forum topic ``thread_id`` in Telegram's own screen."""
    message = _message(chat_id, user_id=user_id, forum_topic_closed={})
    message["message_thread_id"] = thread_id
    message["is_topic_message"] = True
    return {"message": message}


def group_reply(chat_id: int, reply_to_message_id: int, text: str, *, user_id: int = 555) -> Json:
    """A reply in an ordinary supergroup: it carries ``message_thread_id`` but is no topic message."""
    message = _message(chat_id, user_id=user_id, text=text)
    message["chat"]["is_forum"] = False
    message["message_thread_id"] = reply_to_message_id
    message["reply_to_message"] = {
        "message_id": reply_to_message_id,
        "from": user(user_id),
        "chat": message["chat"],
        "date": message["date"],
        "text": "antes",
    }
    return {"message": message}


def malformed_update(chat_id: int = 1111111, text: str = "Hello") -> Json:
    """Telegram's own published sample update: ``from`` lacks ``is_bot``, which a strict parser refuses."""
    return {
        "message": {
            "date": 1441645532,
            "chat": {
                "last_name": "Test Lastname",
                "id": chat_id,
                "type": "private",
                "first_name": "Test Firstname",
                "username": "Testusername",
            },
            "message_id": 1365,
            "from": {
                "last_name": "Test Lastname",
                "id": chat_id,
                "first_name": "Test Firstname",
                "username": "Testusername",
            },
            "text": text,
        }
    }
