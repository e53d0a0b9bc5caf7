"""The ASGI application: the two paths of the real service, faults, call counting, JSON in and out,
and the temporary PDFs the finance operations link to (``/temp/<token>.pdf``, 404 once expired).

No other route exists: a real server has none, and a client that learns to rely on one would break
against production. Operations that build a PDF or an image run in a worker thread, off the loop.
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from bot.sandbox.faults import LOGIN_PAGE, NOT_JSON, Fault, FaultKind, Faults
from bot.sandbox.registry import OPERATIONS
from bot.sandbox.service import Service, operation_name

V1_PATH = "/ws/server_json.php"
V2_PATH = "/ws_json/ws_json.php"
TEMP_PATH = "/temp/"
#: The name ``Sandbox.call_count`` counts temporary-file downloads under.
TEMPORARY_FILE = "temporary_file"


class DroppedConnection(ConnectionResetError):
    """Raised mid-response so the server aborts the connection (the client sees a broken answer)."""


class _Dropped(Response):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"4096")],
            }
        )
        await send({"type": "http.response.body", "body": b'{"status": 1, "result": [', "more_body": True})
        raise DroppedConnection("sandbox fault: connection dropped mid-response")


def _json(payload: Any) -> Response:
    return Response(json.dumps(payload, ensure_ascii=False), media_type="application/json; charset=utf-8")


async def _fault_response(fault: Fault) -> Response | None:
    """What a fault answers instead of the service; None when the call goes on (after a hang)."""
    if fault.kind is FaultKind.TIMEOUT:
        await asyncio.sleep(fault.seconds)
        return None
    if fault.kind is FaultKind.DISCONNECT:
        return _Dropped()
    if fault.kind is FaultKind.NOT_JSON:
        return PlainTextResponse(NOT_JSON, media_type="text/html; charset=utf-8")
    if fault.kind is FaultKind.HTML_LOGIN:
        return HTMLResponse(LOGIN_PAGE)
    text = "Service Unavailable" if fault.kind is FaultKind.DOWN else "Internal Server Error"
    return PlainTextResponse(text, status_code=fault.status)


class Served(Protocol):
    """What the application needs of the sandbox it serves (``bot.sandbox.sandbox.Sandbox``, which builds it)."""

    faults: Faults
    service: Service

    def count(self, operation: str | None, path: str = "") -> None: ...


def build_sandbox_app(sandbox: Served) -> Starlette:
    async def serve(request: Request) -> Response:
        raw = await request.body()
        try:
            body: Any = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            body = None
        name = operation_name(body)
        sandbox.count(name, request.url.path)
        delay = sandbox.faults.latency(name)
        if delay:
            await asyncio.sleep(delay)
        fault = sandbox.faults.take(name)
        if fault is not None:
            answer = await _fault_response(fault)
            if answer is not None:
                return answer
        if request.url.path == V1_PATH:
            return _json(sandbox.service.v1(body))
        call = functools.partial(
            sandbox.service.v2, request.headers.get("authentication_key"), body, str(request.base_url)
        )
        op = OPERATIONS.get(name or "")
        return _json(await run_in_threadpool(call) if op is not None and op.slow else call())

    async def temporary(request: Request) -> Response:
        sandbox.count(TEMPORARY_FILE, request.url.path)
        token = request.path_params["name"].removesuffix(".pdf")
        pdf = await run_in_threadpool(sandbox.service.temporary_file, token)
        if pdf is None:
            return PlainTextResponse("Arquivo não encontrado ou link expirado", status_code=404)
        return Response(pdf, media_type="application/pdf")

    return Starlette(
        routes=[
            Route(V1_PATH, serve, methods=["POST"]),
            Route(V2_PATH, serve, methods=["POST"]),
            Route(TEMP_PATH + "{name}", temporary, methods=["GET"]),
        ]
    )
