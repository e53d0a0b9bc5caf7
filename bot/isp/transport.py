"""The HTTP layer under the typed client: one POST per operation, both generations.

It knows where the key goes (generation 1.0: in the body, ``Autenticacao.ChaveIntegracao``;
generation 2.0: the ``authentication_key`` header), bounds concurrent calls, retries queries (never
writes) on transient failures with exponential backoff and jitter, fails fast through the circuit
breaker, and turns every way HTTP can fail into an ``IspTransportError``. It never logs a body, and
no message it builds contains the key.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from bot.isp.errors import (
    Generation,
    IspBadResponse,
    IspHttpError,
    IspTimeout,
    IspTransportError,
    IspUnreachable,
    NotTheWebServiceError,
)
from bot.isp.resilience import CircuitBreaker, Clock
from bot.isp.settings import IspSettings

log = logging.getLogger("bot.isp")

Sleep = Callable[[float], Awaitable[None]]


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, IspHttpError):
        return exc.status_code >= 500
    return isinstance(exc, IspTimeout | IspUnreachable)


def _without_trailing_commas(text: str) -> str:
    """Drops commas that stand right before ``}`` or ``]`` outside strings: a published example
    of the web service answers so, and the rest of such a body is sound."""
    out: list[str] = []
    in_string = escaped = False
    pending_comma = ""
    for ch in text:
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == ",":
            out.append(pending_comma)
            pending_comma = ","
            continue
        if ch in "}]":
            pending_comma = ""
        elif not ch.isspace() and pending_comma:
            out.append(pending_comma)
            pending_comma = ""
        if ch == '"':
            in_string = True
        out.append(ch)
    out.append(pending_comma)
    return "".join(out)


# Seconds an idle connection to the ISP is kept for reuse: under the 5 s after which Apache (its
# default), uvicorn and Node close one. At httpx's default, also 5 s, a call could go into a
# connection the server was closing: a query tried again, a write's outcome unknown and read back.
KEEP_IDLE = 4.0


class Transport:
    def __init__(
        self,
        settings: IspSettings,
        *,
        http_transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.settings = settings
        limits = httpx.Limits(
            max_connections=settings.max_concurrency, max_keepalive_connections=settings.max_concurrency,
            keepalive_expiry=KEEP_IDLE,
        )
        self._http = httpx.AsyncClient(transport=http_transport, timeout=settings.timeout, limits=limits)
        self._gate = asyncio.Semaphore(settings.max_concurrency)
        self.breaker = CircuitBreaker(
            threshold=settings.breaker_threshold, reset_after=settings.breaker_reset, clock=clock
        )
        self._clock = clock
        self._sleep = sleep
        self.calls = 0  # HTTP requests actually sent, for benchmarks and tests

    async def aclose(self) -> None:
        await self._http.aclose()

    async def send(self, generation: Generation, operation: str, payload: Any, *, idempotent: bool) -> Any:
        """POSTs one operation and returns the decoded JSON body (envelope not yet unwrapped)."""
        key = self.settings.key.get_secret_value()
        if generation is Generation.V1:
            url = self.settings.v1_url
            params = payload if isinstance(payload, dict) else {}
            body: dict[str, Any] = {operation: {"Autenticacao": {"ChaveIntegracao": key}, **params}}
            headers: dict[str, str] = {}
        else:
            url = self.settings.v2_url
            body = {operation: payload}
            headers = {"authentication_key": key}
        retrying = AsyncRetrying(
            stop=stop_after_attempt(1 + (self.settings.retries if idempotent else 0)),
            wait=wait_exponential_jitter(multiplier=0.2, max=5.0),
            retry=retry_if_exception(_transient),
            sleep=self._sleep,
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                return await self._attempt(url, body, headers, operation, generation, idempotent=idempotent)
        raise AssertionError("unreachable: tenacity re-raises the last failure")  # pragma: no cover

    async def _attempt(self, url: str, body: dict[str, Any], headers: dict[str, str], operation: str,
                       generation: Generation, *, idempotent: bool) -> Any:
        self.breaker.before_call()
        started = self._clock()
        try:
            async with self._gate:
                self.calls += 1
                response = await self._http.post(url, json=body, headers=headers)
            decoded = self._decode(response, url)
        except IspTransportError as exc:
            exc.operation, exc.generation = operation, generation
            exc.outcome_unknown = not idempotent and isinstance(exc, IspTimeout)
            self.breaker.record_failure()
            log.warning("isp %s gen %s failed: %s", operation, generation, exc)
            raise
        except httpx.TimeoutException as exc:
            self.breaker.record_failure()
            log.warning("isp %s gen %s timed out", operation, generation)
            err = IspTimeout(f"{operation}: no answer from the ISP web service within "
                             f"{self.settings.timeout:g} s", operation=operation, generation=generation)
            err.outcome_unknown = not idempotent and not isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout)
            raise err from None
        except httpx.HTTPError as exc:
            self.breaker.record_failure()
            log.warning("isp %s gen %s unreachable: %s", operation, generation, type(exc).__name__)
            lost = IspUnreachable(f"{operation}: cannot reach the ISP web service at "
                                  f"{httpx.URL(url).host} ({type(exc).__name__})",
                                  operation=operation, generation=generation)
            # A connection lost once the request went (reset, closed before the answer) may have
            # carried the write out, as a timeout may; only one never made was surely not sent.
            lost.outcome_unknown = not idempotent and not isinstance(exc, httpx.ConnectError)
            raise lost from None
        self.breaker.record_success()
        log.debug("isp %s gen %s answered in %.1f ms", operation, generation,
                  (self._clock() - started) * 1000)
        return decoded

    def _decode(self, response: httpx.Response, url: str) -> Any:
        where = httpx.URL(url).copy_with(query=None)
        if response.status_code >= 400:
            hint = " (check ISPBOT_ISP_BASE_URL and the path settings)" if response.status_code == 404 else ""
            raise IspHttpError(f"the ISP web service at {where} answered HTTP {response.status_code}{hint}",
                               status_code=response.status_code)
        text = response.text
        content_type = response.headers.get("content-type", "")
        if "html" in content_type or text.lstrip()[:1] == "<":
            raise NotTheWebServiceError(
                f"{where} answered an HTML page, not the JSON web service: check ISPBOT_ISP_BASE_URL "
                "and ISPBOT_ISP_V1_PATH / ISPBOT_ISP_V2_PATH"
            )
        try:
            return json.loads(text)
        except ValueError:
            pass
        try:
            decoded = json.loads(_without_trailing_commas(text))
        except ValueError:
            raise IspBadResponse(f"the ISP web service at {where} answered a body that is not JSON") from None
        log.info("isp answer from %s had trailing commas; read anyway", where.path)
        return decoded
