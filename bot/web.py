"""The bot's HTTP side (ASGI, Starlette): the webhooks (WhatsApp's: ``_whatsapp_webhook``), health, ``/metrics``.

- ``POST /telegram/<hash of the secret>``: refuses (403) a request without the right
  ``X-Telegram-Bot-Api-Secret-Token``; stores the update (the channel's intake) and only then answers 200,
  so a crash after the answer loses nothing. If the database cannot take it, 503: Telegram keeps
  the update and posts it again later. A desk's ``Hook`` (Chatwoot's) alike, after its own check (401).
- ``GET /livez``: 200 while the process and its event loop answer; it looks at nothing else, so a
  container health check or an orchestrator's liveness probe never restarts the bot because the
  ISP, Telegram or the database is down (restarting would not bring them back).
- ``GET /readyz``: 200 when the database answers and is at this version's migrations, else 503;
  whether this process can take traffic (the webhook's updates are stored there first).
- ``GET /healthz``: each part's state, the ISP's included (the coordinator's cached outage list), as
  JSON; its status code is ``/readyz``'s, so an ISP outage shows in the body without taking the bot
  out of service (it still answers subscribers, who need the outage notice most then).
- ``GET /metrics``: Prometheus text format (``bot.metrics``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import uvicorn
from flows.coordinator import IspCoordinator
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot import metrics
from bot.store import Database
from bot.store.migrate import head_revision, revision_of

log = logging.getLogger(__name__)

# Keeps one posted update durably (the channel's intake); raises when it could not.
StoreUpdate = Callable[[dict[str, Any]], Awaitable[object]]

CHECK_TIMEOUT = 5.0  # seconds each part of /healthz may take
MAX_UPDATE_BYTES = 1 << 20  # an update is a few kilobytes; anything near this is not Telegram
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105 - a header name
SIGNATURE_HEADER = "X-Hub-Signature-256"
WHATSAPP_PATH = "/whatsapp/webhook"


class _Streak:
    """Posts a webhook could not store, said once: an ERROR line at the first, one INFO line when one
    is stored again (with how many failed meanwhile), DEBUG between. A database outage fails every
    post the other side retries meanwhile; a line each buried the log (180 for 20 s)."""

    def __init__(self, name: str, again: str) -> None:
        self.name, self.again = name, again  # "whatsapp webhook", "Meta will send it again"
        self.since: float | None = None
        self.failed_posts = 0

    def failed(self, exc: Exception) -> None:
        self.failed_posts += 1
        if self.since is None:
            self.since = time.monotonic()
            log.error("%s: could not store a post (%s); %s (one line until one is stored again)", self.name,
                      type(exc).__name__, self.again)
        else:
            log.debug("%s: could not store a post (%s)", self.name, type(exc).__name__)

    def stored(self) -> None:
        if self.since is not None:
            log.info("%s: storing again, after %d posts refused in %.0f s", self.name, self.failed_posts,
                     time.monotonic() - self.since)
            self.since, self.failed_posts = None, 0


@dataclass(frozen=True)
class WhatsAppHook:
    """What the WhatsApp webhook needs: where posts are kept, the app secret, the verify token."""

    store: StoreUpdate
    app_secret: str
    verify_token: str


@dataclass(frozen=True, slots=True)
class Hook:
    """A webhook a desk signs: ``refusal(headers, body)`` is None for a genuine post, else why it is
    refused (logged, never stored); ``store(payload, headers)`` keeps it durably or raises."""

    path: str
    refusal: Callable[[Mapping[str, str], bytes], str | None]
    store: Callable[[dict[str, Any], Mapping[str, str]], Awaitable[object]]
    name: str  # for the log: "chatwoot"


class Health:
    """Each part answers within ``CHECK_TIMEOUT`` or counts as unreachable: a probe never hangs."""

    def __init__(self, database: Database, coordinator: IspCoordinator) -> None:
        self.database = database
        self.coordinator = coordinator
        self.head = head_revision()  # read from the scripts once, not at every probe

    async def database_state(self) -> str:
        """"ok" when the database answers and is at this code's migrations, else what is wrong."""
        try:
            async with asyncio.timeout(CHECK_TIMEOUT), self.database.session() as session:
                current = await session.run_sync(lambda sync: revision_of(sync.connection()))
        except Exception as exc:
            return f"unreachable ({type(exc).__name__})"  # never the address
        if current != self.head:
            return f"schema at revision {current or 'none'} but this ispbot needs {self.head}"
        return "ok"

    async def isp_state(self) -> str:
        try:
            async with asyncio.timeout(CHECK_TIMEOUT):
                await self.coordinator.open_outages()
        except Exception as exc:
            return f"unreachable ({type(exc).__name__})"
        return "ok"

    async def check(self) -> dict[str, str]:
        database, isp = await asyncio.gather(self.database_state(), self.isp_state())
        return {"database": database, "isp": isp}


def create_web_app(health: Health, *, store_update: StoreUpdate | None = None, webhook_path: str | None = None,
                   webhook_secret: str | None = None, hooks: Sequence[Hook] = (),
                   whatsapp: WhatsAppHook | None = None, states: Mapping[str, Callable[[], str]] | None = None,
                   ) -> Starlette:
    """The ASGI app; Telegram's webhook route exists only when ``store_update``, path and secret are
    given, WhatsApp's with ``whatsapp``, a desk's with its ``hooks``. ``states``: what else the
    reports show (a channel's API: "ok" or what fails), never taking the process out of service: its
    webhook keeps what comes meanwhile and the answers wait."""

    def shown() -> dict[str, str]:
        return {name: state() for name, state in (states or {}).items()}

    async def livez(_: Request) -> Response:
        return PlainTextResponse("ok")

    async def readyz(_: Request) -> Response:
        report = {"database": await health.database_state()}
        return JSONResponse({**report, **shown()}, status_code=_status(report))

    async def healthz(_: Request) -> Response:
        report = await health.check()
        return JSONResponse({**report, **shown()}, status_code=_status(report))

    async def metrics_endpoint(_: Request) -> Response:
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)

    routes = [
        Route("/livez", livez), Route("/readyz", readyz), Route("/healthz", healthz),
        Route("/metrics", metrics_endpoint),
    ]
    if store_update is not None and webhook_path and webhook_secret:
        routes.append(Route(webhook_path, _webhook(store_update, webhook_secret), methods=["POST"]))
    if whatsapp is not None:
        routes.append(Route(WHATSAPP_PATH, _whatsapp_webhook(whatsapp), methods=["GET", "POST"]))
    routes += [Route(hook.path, _hook(hook), methods=["POST"]) for hook in hooks]
    return Starlette(routes=routes)


def _status(report: dict[str, str]) -> int:
    """Ready (200) when the database is; the ISP's state is reported, never decisive."""
    return 200 if report["database"] == "ok" else 503


def _webhook(store_update: StoreUpdate, secret: str) -> Any:
    expected = secret.encode()
    streak = _Streak("webhook", "Telegram will send it again")

    async def receive(request: Request) -> Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, expected):
            return PlainTextResponse("forbidden", status_code=403)
        body = await _body(request)
        if isinstance(body, Response):
            return body
        update = _json_object(body)
        if update is None:
            log.warning("webhook: a body that is not a JSON object was refused")
            return PlainTextResponse("not a JSON object", status_code=400)
        try:
            await store_update(update)
        except Exception as exc:
            streak.failed(exc)
            return PlainTextResponse("try again", status_code=503)
        streak.stored()
        return PlainTextResponse("ok")

    return receive


def _hook(hook: Hook) -> Any:
    streak = _Streak(f"{hook.name} webhook", "it will be posted again")

    async def receive(request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, Response):
            return body
        refused = hook.refusal(request.headers, body)
        if refused is not None:
            log.warning("%s webhook: refused, %s", hook.name, refused)
            return PlainTextResponse("forbidden", status_code=401)
        payload = _json_object(body)
        if payload is None:
            log.warning("%s webhook: a body that is not a JSON object was refused", hook.name)
            return PlainTextResponse("not a JSON object", status_code=400)
        try:
            await hook.store(payload, request.headers)
        except Exception as exc:
            streak.failed(exc)
            return PlainTextResponse("try again", status_code=503)
        streak.stored()
        return PlainTextResponse("ok")

    return receive


def _whatsapp_webhook(hook: WhatsAppHook) -> Any:
    """``GET /whatsapp/webhook``: Meta's verification, ``hub.challenge`` back when ``hub.mode`` is
    subscribe and ``hub.verify_token`` the configured one, else 403. ``POST``: refused (403, nothing
    stored) unless ``X-Hub-Signature-256`` is the app secret's HMAC-SHA256 of the raw body; stored
    (the WhatsApp channel's ``store_posted``) before the 200, 503 when it could not be."""
    secret, verify = hook.app_secret.encode(), hook.verify_token.encode()
    streak = _Streak("whatsapp webhook", "Meta will send it again")

    async def receive(request: Request) -> Response:
        if request.method == "GET":  # Meta checks the address when the webhook is registered
            params = request.query_params
            given = params.get("hub.verify_token", "").encode()
            if params.get("hub.mode") == "subscribe" and hmac.compare_digest(given, verify):
                return PlainTextResponse(params.get("hub.challenge", ""))
            log.warning("whatsapp webhook: a verification with a wrong verify token was refused")
            return PlainTextResponse("forbidden", status_code=403)
        body = await _body(request)
        if isinstance(body, Response):
            return body
        signature = request.headers.get(SIGNATURE_HEADER, "")
        expected = "sha256=" + hmac.new(secret, body, "sha256").hexdigest()
        if not hmac.compare_digest(signature.encode(), expected.encode()):
            if signature:  # signed, but not with this secret (or not this body): say which to check
                log.warning("whatsapp webhook: a post whose X-Hub-Signature-256 does not match "
                            "ISPBOT_WHATSAPP_APP_SECRET was refused (check the app secret, App settings > Basic)")
            else:
                log.warning("whatsapp webhook: a post with no X-Hub-Signature-256 was refused (not from Meta, or "
                            "a proxy dropped the header)")
            return PlainTextResponse("forbidden", status_code=403)
        posted = _json_object(body)
        if posted is None:
            return PlainTextResponse("not a JSON object", status_code=400)
        try:
            await hook.store(posted)
        except Exception as exc:
            streak.failed(exc)
            return PlainTextResponse("try again", status_code=503)
        streak.stored()
        return PlainTextResponse("ok")

    return receive


async def _body(request: Request) -> bytes | Response:
    """The request's body, or the 413 refusing one too large to be an update."""
    declared = request.headers.get("content-length", "")
    if declared.isdecimal() and int(declared) > MAX_UPDATE_BYTES:
        return PlainTextResponse("too large", status_code=413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_UPDATE_BYTES:
            return PlainTextResponse("too large", status_code=413)
    return body


def _json_object(body: bytes) -> dict[str, Any] | None:
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested deeper than the parser goes
        return None
    return parsed if isinstance(parsed, dict) else None


# Seconds an idle connection is kept open. Longer than a reverse proxy keeps an idle connection to
# the bot for reuse (Caddy 2 min, nginx and cloud load balancers 60 s): a server that closed first
# (uvicorn's default, 5 s) could close one just as the proxy sent a webhook into it, a 502 for it.
KEEP_ALIVE = 150


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # the runner owns SIGTERM/SIGINT and stops every part of the bot in order


async def serve(app: Starlette, host: str, port: int, stop: asyncio.Event) -> None:
    """Serve ``app`` until ``stop`` is set."""
    server = _Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off",
                                    timeout_keep_alive=KEEP_ALIVE))
    task = asyncio.create_task(server.serve())
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    server.should_exit = True
    stopping.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
