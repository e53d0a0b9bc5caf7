"""A fake WhatsApp Cloud API (Graph API) for the tests and benchmarks: an ASGI app, reached through
httpx's ``ASGITransport`` (or served on 127.0.0.1), nothing on the internet.

It speaks the shapes of ``POST /{version}/{phone-number-id}/messages`` (text, interactive buttons,
lists and location requests, image and document by media id or link, templates, read receipts),
``POST /{version}/{phone-number-id}/media`` (multipart upload), ``GET /{version}/{media-id}`` then the
media's URL (both with the token), and ``GET /{version}/{phone-number-id}``; errors come as Meta's
``{"error": {"message", "type", "code", "error_data": {"details"}, "fbtrace_id"}}``. It checks the
limits Meta checks (3 buttons of 20 characters, 10 list rows of 24 and 72, bodies of 1,024 and
4,096) and refuses what breaks them with code 131009, as Meta does, so a rendering bug fails a test.

``fail_next(code)`` injects an error; ``latency`` slows every answer to a send; ``portal`` answers
every request with a page (a proxy's or captive portal's, status 200); ``throughput`` (sends
a second, 130429 past it), ``pair_limit`` (per recipient, 131056; Meta's: ``META_PAIR_LIMIT``) and
``window`` (131047 without a message from the person in the last 24 hours) enforce Meta's rules when
set. ``post(...)`` builders and ``sign`` make the webhook's bodies and their ``X-Hub-Signature-256``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import itertools
import json
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

import uvicorn
from bot.sandbox.server import PromptServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

TOKEN = "EAAFakeWhatsAppTokenForTheTestsOnly0123456789"
PHONE_NUMBER_ID = "106540352242922"
APP_SECRET = "fake-app-secret-0123456789abcdef"
VERIFY_TOKEN = "fake-verify-token-42"
VERSION = "v23.0"
BASE_URL = "http://graph.fake"
# Meta's pair rate limit as its throughput page and error 131056 describe it: one message every
# 6 seconds to the same person, bursts of up to 45 borrowed against that pace.
META_PAIR_LIMIT = (45, 6.0)


@dataclass
class Sent:
    """A message the bot sent: its recipient, the request's message object and its wamid."""

    to: str
    body: dict[str, Any]
    wamid: str
    at: float

    @property
    def type(self) -> str:
        return str(self.body.get("type"))

    @property
    def text(self) -> str:
        """What the person reads: the text, an interactive body, a caption."""
        body = self.body
        if self.type == "text":
            return str(body["text"]["body"])
        if self.type == "interactive":
            return str(body["interactive"]["body"]["text"])
        if self.type in ("image", "document"):
            return str(body[self.type].get("caption", ""))
        if self.type == "template":
            return f"[template {body['template']['name']}]"
        return ""

    def options(self) -> list[tuple[str, str]]:
        """(id, what the person reads) of each reply button or list row (a row's title, and its
        description when it has one)."""
        if self.type != "interactive":
            return []
        interactive = self.body["interactive"]
        if interactive["type"] == "button":
            return [(b["reply"]["id"], b["reply"]["title"]) for b in interactive["action"]["buttons"]]
        if interactive["type"] == "list":
            return [(r["id"], f"{r['title']} {r.get('description', '')}".strip())
                    for s in interactive["action"]["sections"] for r in s["rows"]]
        return []


@dataclass
class _Failure:
    code: int
    status: int
    message: str
    to: str | None
    remaining: int


@dataclass
class FakeCloudApi:
    token: str = TOKEN
    phone_number_id: str = PHONE_NUMBER_ID
    app_secret: str = APP_SECRET
    throughput: int | None = None  # messages in any second; more: 130429
    # (burst, seconds) to one person: up to ``burst`` at once, borrowed against one message every so
    # many seconds (a bucket); past it: 131056
    pair_limit: tuple[int, float] | None = None
    window: bool = False  # 131047 for free-form messages to someone who has not written in 24 hours
    sent: list[Sent] = field(default_factory=list)
    read: list[str] = field(default_factory=list)  # wamids marked read
    uploads: dict[str, tuple[bytes, str, str]] = field(default_factory=dict)  # id: (bytes, mime, filename)
    media: dict[str, tuple[bytes, str]] = field(default_factory=dict)  # media people sent: id: (bytes, mime)
    errors: dict[int, int] = field(default_factory=dict)  # code: times answered
    expired: bool = False  # the token expired: 190 to everything
    latency: float = 0.0  # seconds each answer takes, as over the internet (a turn may end meanwhile)
    portal: bool = False  # a captive portal or a proxy in the way: every request answered with its page, 200
    base_url: str = BASE_URL  # where it is reached (``serving`` sets the loopback address)
    _failures: list[_Failure] = field(default_factory=list)
    _recent: deque[float] = field(default_factory=deque)
    _pairs: dict[str, tuple[float, float]] = field(default_factory=dict)  # person: (allowance left, when)
    _last_inbound: dict[str, float] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _changed: asyncio.Event | None = None

    # ---- the test's side ---------------------------------------------------------------------
    @property
    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/files/{media_id}", self._download, methods=["GET"]),  # before "/{version}/{node}"
            Route("/{version}/{node}/messages", self._messages, methods=["POST"]),
            Route("/{version}/{node}/media", self._upload, methods=["POST"]),
            Route("/{version}/{node}", self._node, methods=["GET"]),
        ])

    @contextlib.asynccontextmanager
    async def serving(self, port: int = 0) -> AsyncIterator[str]:
        """Served over HTTP on 127.0.0.1 (for a bot in another process, or ``ispbot run``): its root."""
        server = PromptServer(uvicorn.Config(self.app, host="127.0.0.1", port=port, log_level="warning",
                                               access_log=False, lifespan="off"))
        server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
        task = asyncio.create_task(server.serve())
        try:
            while not server.started:
                if task.done():
                    raise RuntimeError("the fake Cloud API did not start")
                await asyncio.sleep(0.01)
            self.base_url = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
            yield self.base_url
        finally:
            server.should_exit = True
            await task

    def fail_next(self, code: int, *, count: int = 1, to: str | None = None, status: int = 400,
                  message: str = "injected") -> None:
        self._failures.append(_Failure(code, status, message, to, count))

    def add_media(self, data: bytes, mime: str) -> str:
        """Media a person sends (a receipt): its id, for a message's ``image`` or ``document``."""
        media_id = f"media-{next(self._ids)}"
        self.media[media_id] = (data, mime)
        return media_id

    def inbound(self, wa_id: str) -> None:
        """The person wrote now: the 24-hour window is open."""
        self._last_inbound[wa_id] = time.monotonic()

    def inbound_clear(self, wa_id: str) -> None:
        """The person last wrote more than 24 hours ago: the window is closed."""
        self._last_inbound.pop(wa_id, None)

    def to(self, wa_id: str) -> list[Sent]:
        return [sent for sent in self.sent if sent.to == wa_id]

    async def wait_for_sent(self, wa_id: str, count: int, within: float = 10.0) -> list[Sent]:
        if self._changed is None:
            self._changed = asyncio.Event()
        async with asyncio.timeout(within):
            while len(self.to(wa_id)) < count:
                self._changed.clear()
                await self._changed.wait()
        return self.to(wa_id)

    # ---- Meta's side -------------------------------------------------------------------------
    def _error(self, code: int, message: str, status: int = 400, details: str = "") -> Response:
        self.errors[code] = self.errors.get(code, 0) + 1
        error: dict[str, Any] = {"message": message, "type": "OAuthException", "code": code,
                                 "fbtrace_id": "AFakeTrace"}
        if details:
            error["error_data"] = {"messaging_product": "whatsapp", "details": details}
        return JSONResponse({"error": error}, status_code=status)

    def _authorized(self, request: Request) -> Response | None:
        if self.portal:
            return HTMLResponse("<html><body><h1>Welcome</h1><p>Accept the terms to go on.</p></body></html>")
        if self.expired or request.headers.get("authorization") != f"Bearer {self.token}":
            return self._error(190, "Error validating access token: Session has expired", 401)
        return None

    async def _node(self, request: Request) -> Response:
        if (refused := self._authorized(request)) is not None:
            return refused
        node = request.path_params["node"]
        if node == self.phone_number_id:
            return JSONResponse({"verified_name": "Provedor Teste", "display_phone_number": "+55 11 4000-0000",
                                 "quality_rating": "GREEN", "id": node})
        if node in self.media:
            data, mime = self.media[node]
            return JSONResponse({"messaging_product": "whatsapp", "url": f"{self.base_url}/files/{node}",
                                 "mime_type": mime, "sha256": hashlib.sha256(data).hexdigest(),
                                 "file_size": len(data), "id": node})
        return self._error(100, f"Unsupported get request. Object with ID '{node}' does not exist")

    async def _download(self, request: Request) -> Response:
        if (refused := self._authorized(request)) is not None:
            return refused
        found = self.media.get(request.path_params["media_id"])
        if found is None:
            return Response(status_code=404)
        return Response(found[0], media_type=found[1])

    async def _upload(self, request: Request) -> Response:
        if (refused := self._authorized(request)) is not None:
            return refused
        form = _multipart(request.headers.get("content-type", ""), await request.body())
        upload = form.get("file")
        if form.get("messaging_product") != "whatsapp" or not isinstance(upload, tuple):
            return self._error(100, "Invalid parameter")
        media_id = f"upload-{next(self._ids)}"
        self.uploads[media_id] = (upload[0], str(form.get("type")), upload[1])
        return JSONResponse({"id": media_id})

    async def _messages(self, request: Request) -> Response:
        if self.latency:
            await asyncio.sleep(self.latency)
        if (refused := self._authorized(request)) is not None:
            return refused
        if request.path_params["node"] != self.phone_number_id:
            return self._error(100, "Unsupported post request")
        body = await request.json()
        if body.get("messaging_product") != "whatsapp":
            return self._error(100, "The parameter messaging_product is required.")
        if body.get("status") == "read":
            self.read.append(str(body.get("message_id")))
            return JSONResponse({"success": True})
        to = body.get("to") or body.get("recipient")
        if not isinstance(to, str) or not to:
            return self._error(100, "The parameter to is required.")
        for failure in self._failures:
            if failure.remaining > 0 and failure.to in (None, to):
                failure.remaining -= 1
                return self._error(failure.code, failure.message, failure.status)
        if (problem := _invalid(body, set(self.uploads))) is not None:
            return self._error(131009, "Parameter value is not valid", details=problem)
        now = time.monotonic()
        if (limited := self._limited(to, body, now)) is not None:
            return limited
        self._recent.append(now)
        wamid = f"wamid.OUT{next(self._ids):08d}"
        message = {k: v for k, v in body.items() if k not in ("messaging_product", "recipient_type", "to", "recipient")}
        self.sent.append(Sent(to, message, wamid, now))
        if self._changed is not None:
            self._changed.set()
        return JSONResponse({"messaging_product": "whatsapp", "contacts": [{"input": to, "wa_id": to}],
                             "messages": [{"id": wamid}]})

    def _limited(self, to: str, body: dict[str, Any], now: float) -> Response | None:
        """Meta's refusal of a message past one of its limits, when they are enforced."""
        if self.throughput is not None:
            while self._recent and self._recent[0] <= now - 1.0:
                self._recent.popleft()
            if len(self._recent) >= self.throughput:
                return self._error(130429, "Rate limit hit")
        if self.window and body.get("type") != "template":
            last = self._last_inbound.get(to)
            if last is None or now - last > 24 * 3600:
                return self._error(131047, "Re-engagement message",
                                   details="Message failed to send because more than 24 hours have passed")
        if self.pair_limit is not None:
            burst, every = self.pair_limit
            left, since = self._pairs.get(to, (float(burst), now))
            left = min(float(burst), left + (now - since) / every)
            if left < 1:
                self._pairs[to] = (left, now)
                return self._error(131056, "(Business Account, Consumer Account) pair rate limit hit")
            self._pairs[to] = (left - 1, now)
        return None


def _multipart(content_type: str, body: bytes) -> dict[str, Any]:
    """A multipart form's fields: text as ``str``, a file as ``(bytes, filename)``."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    fields: dict[str, Any] = {}
    for part in BytesParser(policy=HTTP).parsebytes(head + body).iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        if isinstance(name, str):
            filename = part.get_filename()
            fields[name] = (data, filename) if filename is not None else data.decode("utf-8")
    return fields


def _invalid(body: dict[str, Any], uploads: set[str]) -> str | None:
    """Why Meta would refuse this message, None when it would not."""
    kind = body.get("type")
    content = body.get(kind) if isinstance(kind, str) else None
    if not isinstance(content, dict):
        return f"the message has no {kind!r} object"
    if kind == "text":
        text = content.get("body")
        return None if isinstance(text, str) and 0 < len(text) <= 4096 else "text.body must be 1-4096 characters"
    if kind in ("image", "document"):
        if "id" in content and content["id"] not in uploads:
            return "unknown media id"
        if "id" not in content and "link" not in content:
            return "media needs an id or a link"
        return None if len(str(content.get("caption", ""))) <= 1024 else "caption over 1024 characters"
    if kind == "template":
        return None if isinstance(content.get("name"), str) else "template.name is required"
    if kind != "interactive":
        return f"unsupported type {kind}"
    return _invalid_interactive(content)


def _invalid_interactive(content: dict[str, Any]) -> str | None:
    kind = content.get("type")
    text = (content.get("body") or {}).get("text")
    if kind == "location_request_message":
        return None if isinstance(text, str) and 0 < len(text) <= 1024 else "body.text must be 1-1024 characters"
    if not isinstance(text, str) or not 0 < len(text) <= 1024:
        return "body.text is too long or empty"
    action = content.get("action") or {}
    if kind == "button":
        buttons = action.get("buttons") or []
        titles = [b["reply"]["title"] for b in buttons]
        if not 1 <= len(buttons) <= 3 or any(not 0 < len(t) <= 20 for t in titles) or len(set(titles)) != len(titles):
            return "1-3 buttons with distinct titles of 1-20 characters"
        return None if all(0 < len(b["reply"]["id"]) <= 256 for b in buttons) else "button ids of 1-256 characters"
    if kind == "list":
        rows = [row for section in action.get("sections") or [] for row in section.get("rows") or []]
        if not 0 < len(str(action.get("button", ""))) <= 20:
            return "the list's button text must be 1-20 characters"
        if not 1 <= len(rows) <= 10 or len({row["id"] for row in rows}) != len(rows):
            return "1-10 rows with distinct ids"
        if any(not 0 < len(row["title"]) <= 24 or len(row.get("description", "")) > 72 for row in rows):
            return "row titles of 1-24 characters, descriptions of at most 72"
        return None if all(0 < len(row["id"]) <= 200 for row in rows) else "row ids of 1-200 characters"
    return f"unsupported interactive type {kind}"


# ---- the webhook's side: what Meta posts ------------------------------------------------------------

_wamids = itertools.count(1)


def sign(body: bytes, secret: str = APP_SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def post(*messages: dict[str, Any], statuses: list[dict[str, Any]] | None = None,
         contacts: list[dict[str, Any]] | None = None, phone_number_id: str = PHONE_NUMBER_ID) -> dict[str, Any]:
    value: dict[str, Any] = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "551140000000", "phone_number_id": phone_number_id},
    }
    if messages:
        value["contacts"] = contacts or [
            {"profile": {"name": "Maria"}, "wa_id": m["from"]} for m in messages if "from" in m]
        value["messages"] = list(messages)
    if statuses:
        value["statuses"] = statuses
    return {"object": "whatsapp_business_account",
            "entry": [{"id": "102290129340398", "changes": [{"field": "messages", "value": value}]}]}


def message(wa_id: str | None, kind: str, content: dict[str, Any] | None = None, *, user_id: str | None = None,
            wamid: str | None = None, **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"id": wamid or f"wamid.IN{next(_wamids):08d}", "timestamp": str(int(time.time())),
                             "type": kind, **extra}
    if wa_id is not None:
        found["from"] = wa_id
    if user_id is not None:
        found["from_user_id"] = user_id
    if content is not None:
        found[kind] = content
    return found


def text(wa_id: str | None, body: str, **kwargs: Any) -> dict[str, Any]:
    return message(wa_id, "text", {"body": body}, **kwargs)


def button_reply(wa_id: str, option_id: str, title: str = "") -> dict[str, Any]:
    return message(wa_id, "interactive", {"type": "button_reply", "button_reply": {"id": option_id, "title": title}})


def list_reply(wa_id: str, option_id: str, title: str = "") -> dict[str, Any]:
    return message(wa_id, "interactive", {"type": "list_reply", "list_reply": {"id": option_id, "title": title}})


def location(wa_id: str, latitude: float, longitude: float) -> dict[str, Any]:
    return message(wa_id, "location", {"latitude": latitude, "longitude": longitude})


def image(wa_id: str, media_id: str, caption: str = "") -> dict[str, Any]:
    return message(wa_id, "image", {"id": media_id, "mime_type": "image/jpeg", "sha256": "x", "caption": caption})


def document(wa_id: str, media_id: str, filename: str = "comprovante.pdf") -> dict[str, Any]:
    return message(wa_id, "document", {"id": media_id, "mime_type": "application/pdf", "filename": filename})


def status(wamid: str, recipient: str, state: str, *, code: int | None = None, title: str = "") -> dict[str, Any]:
    found: dict[str, Any] = {"id": wamid, "status": state, "timestamp": str(int(time.time())),
                             "recipient_id": recipient}
    if code is not None:
        found["errors"] = [{"code": code, "title": title, "message": title,
                            "error_data": {"details": title}}]
    return found


def encoded(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode()
