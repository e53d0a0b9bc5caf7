"""A scripted stand-in for the ISP web service, mounted under the client with httpx.MockTransport.

Each answer is queued per operation (or for all); every request is recorded so tests can check
where the key went and what was sent.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from bot.isp import IspClient, IspSettings

KEY = "sandbox-key-7f3a9c"
BASE = "http://127.0.0.1:8077"

Answer = Callable[[httpx.Request], httpx.Response]


def v1_ok(result: Any) -> dict[str, Any]:
    return {"status": 1, "erro_code": "", "erro_inf": "", "erro_desc": "", "erro_detail": "", "result": result}


def v1_fail(code: int, desc: str = "", detail: str = "", inf: str = "") -> dict[str, Any]:
    return {"status": 0, "erro_code": code, "erro_inf": inf, "erro_desc": desc, "erro_detail": detail,
            "result": ""}


def v2_ok(result: Any, status: Any = 1, error_code: Any = "") -> dict[str, Any]:
    return {"status": status, "error_code": error_code, "error_description": "", "result": result}


def v2_fail(code: Any, desc: str = "", result: Any = "") -> dict[str, Any]:
    return {"status": 0, "error_code": code, "error_description": desc, "result": result}


@dataclass
class Seen:
    path: str
    operation: str
    body: Any
    headers: httpx.Headers


@dataclass
class StandIn:
    answers: dict[str, deque[Answer]] = field(default_factory=lambda: defaultdict(deque))
    seen: list[Seen] = field(default_factory=list)
    delay: float = 0.0
    in_flight: int = 0
    max_in_flight: int = 0

    def answer(self, operation: str, body: Any = None, *, status: int = 200, raw: str | None = None,
               content_type: str = "application/json", times: int = 1) -> None:
        def respond(_: httpx.Request) -> httpx.Response:
            text = raw if raw is not None else json.dumps(body)
            return httpx.Response(status, text=text, headers={"content-type": content_type})

        for _ in range(times):
            self.answers[operation].append(respond)

    def fail_with(self, operation: str, exc: Exception, times: int = 1) -> None:
        def respond(request: httpx.Request) -> httpx.Response:
            raise exc

        for _ in range(times):
            self.answers[operation].append(respond)

    def calls(self, operation: str) -> int:
        return sum(1 for s in self.seen if s.operation == operation)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        (operation,) = body.keys()
        self.seen.append(Seen(request.url.path, operation, body, request.headers))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            queue = self.answers.get(operation) or self.answers.get("*")
            if not queue:
                return httpx.Response(500, text="no scripted answer for " + operation)
            respond = queue.popleft() if len(queue) > 1 else queue[0]
            return respond(request)
        finally:
            self.in_flight -= 1

    def client(self, **settings: Any) -> IspClient:
        values: dict[str, Any] = {"base_url": BASE, "key": KEY, "retries": 2, **settings}
        return IspClient(IspSettings(**values), http_transport=httpx.MockTransport(self.handle),
                         sleep=_no_sleep)


async def _no_sleep(_: float) -> None:
    """Backoff waits are skipped in tests; their policy is tenacity's."""
