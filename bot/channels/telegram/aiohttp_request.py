"""python-telegram-bot's transport over aiohttp instead of httpx.

python-telegram-bot keeps the Bot API's semantics (parameters, error mapping, flood control) in
``Bot`` and ``BaseRequest``; only the HTTP round trip is delegated to a ``BaseRequest`` subclass, and
this is one. Measured here (bench/, 32 calls in flight against a local Bot API): ~0.6 ms of CPU per
call with aiohttp against ~4.6 ms with the default ``HTTPXRequest``, whose connection pool is
scanned, connection by connection, on every request. The bot makes one call or more per update, so
this was the largest single cost of an update.

Timeouts as python-telegram-bot's: ``connect`` (the TCP connection), ``read`` (each read of the
answer), ``pool`` (waiting for a free connection, added to ``connect`` since aiohttp counts the
wait there). aiohttp has no write timeout; a stalled upload is caught by the read timeout.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

JSON = "application/json"


class AiohttpRequest(BaseRequest):
    def __init__(
        self, connection_pool_size: int = 1, *, read_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0, pool_timeout: float | None = 1.0,
    ) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._pool_size)
            self._session = aiohttp.ClientSession(connector=connector, headers={"User-Agent": self.USER_AGENT})

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def do_request(  # noqa: PLR0917 - python-telegram-bot's signature
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        read = self._read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = self._connect_timeout if isinstance(connect_timeout, DefaultValue) else connect_timeout
        pool = self._pool_timeout if isinstance(pool_timeout, DefaultValue) else pool_timeout
        timeout = aiohttp.ClientTimeout(
            total=None, connect=None if connect is None else connect + (pool or 0.0),
            sock_connect=connect, sock_read=read,
        )
        try:
            async with self._session.request(
                method, url, data=_body(request_data), timeout=timeout,
            ) as response:
                return response.status, await response.read()
        except TimeoutError as exc:  # asyncio's and aiohttp's (ServerTimeoutError is one too)
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{type(exc).__name__}: {exc}") from exc


def _body(request_data: RequestData | None) -> Any:
    """A JSON object, which the Bot API takes for every call but uploads; files as multipart."""
    if request_data is None:
        return None
    if not request_data.multipart_data:
        # Not python-telegram-bot's form fields: percent-encoding every character of a message in
        # Python (``urlencode``) cost more than the rest of building the request, and aiohttp's
        # FormData builds a multipart writer, boundary and all, for each call. ``parameters`` are
        # already JSON values (a keyboard as an object, not a string of JSON). ASCII with escapes:
        # a little larger, faster to make, and a lone surrogate cannot fail the encoding.
        body = json.dumps(request_data.parameters, separators=(",", ":"))
        return aiohttp.payload.BytesPayload(body.encode("ascii"), content_type=JSON)
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mime) in request_data.multipart_data.items():
        form.add_field(name, content, filename=filename, content_type=mime)
    return form

