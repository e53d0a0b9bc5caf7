"""The typed async client of the ISP web service.

    async with IspClient(IspSettings()) as client:
        topics = await client.ConsultaTopicos(F("Central") == "S")
        await client.ticket_update(TicketUpdate(ticket_id=42, status="on_hold"))

Every operation of both generations has a method named exactly as the spec names it (see
``methods_v1.py`` and ``methods_v2.py``); all of them go through ``call``, which encodes and
validates the request, sends it (identical queries in flight at once are sent once), unwraps the
envelope and parses the typed result.

``observer``, when set, hears of every operation that ended: its name, ``"ok"`` or the error's class
name, and its seconds (None when the open circuit refused it before any request): the bot counts
calls with it (``bot.metrics``) and this package imports nothing of the bot. ``before_call``, when
set, is awaited before each operation is sent (the engine holds the chat there).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Hashable
from types import TracebackType
from typing import Any, TypeVar

import httpx

from bot.isp.catalog.base import EncodeContext, Kind, Operation
from bot.isp.envelope import unwrap
from bot.isp.errors import CircuitOpenError
from bot.isp.methods_finance import FinanceMethods
from bot.isp.methods_v1 import V1Methods
from bot.isp.methods_v2 import V2Methods
from bot.isp.resilience import Clock, SingleFlight, TtlCache
from bot.isp.settings import IspSettings
from bot.isp.transport import Sleep, Transport

Req = TypeVar("Req")
Res = TypeVar("Res")
Observer = Callable[[str, str, float | None], None]


class IspClient(V1Methods, V2Methods, FinanceMethods):
    def __init__(
        self,
        settings: IspSettings,
        *,
        http_transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.settings = settings
        self.transport = Transport(settings, http_transport=http_transport, clock=clock, sleep=sleep)
        self._encode_context = EncodeContext({"tz": settings.zone})
        self._flight = SingleFlight()
        self._clock = clock
        self.observer: Observer | None = None
        self.before_call: Callable[[], Awaitable[None]] | None = None

    async def __aenter__(self) -> IspClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def call(self, op: Operation[Req, Res], request: Req) -> Res:
        payload = op.encode(request, self._encode_context)
        if self.before_call is not None:
            await self.before_call()
        if op.kind is Kind.QUERY:
            key: Hashable = (op.name, json.dumps(payload, sort_keys=True, default=str))
            return await self._flight.run(key, lambda: self._send(op, payload))
        return await self._send(op, payload)

    async def _send(self, op: Operation[Any, Res], payload: Any) -> Res:
        started = self._clock()
        try:
            body = await self.transport.send(op.generation, op.name, payload, idempotent=op.kind is Kind.QUERY)
            result = op.parse(unwrap(op, body))
        except Exception as exc:
            if self.observer is not None:
                sent = not isinstance(exc, CircuitOpenError)
                self.observer(op.name, type(exc).__name__, self._clock() - started if sent else None)
            raise
        if self.observer is not None:
            self.observer(op.name, "ok", self._clock() - started)
        return result

    def ttl_cache(self, ttl: float, *, maxsize: int = 512) -> TtlCache[Any]:
        """A TTL cache on this client's clock, for reference lists the bot reads often."""
        return TtlCache(ttl, maxsize=maxsize, clock=self._clock)
