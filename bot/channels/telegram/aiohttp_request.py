"""python-telegram-bot's transport over aiohttp instead of httpx, which costs a fraction of the CPU
(its pool is scanned on every request; bench/RESULTS.md); python-telegram-bot keeps the Bot API's
semantics (parameters, error mapping, flood control) in ``Bot`` and ``BaseRequest``.

What is not the Bot API's answer is told as such, never as a refusal: a failure page or a truncated
body behind an error status keeps that status's meaning with a short description (no page in the
message); a 2xx whose body is not the Bot API's JSON with ``ok: true`` and a ``result`` is
``UnreadableAnswer``, a ``NetworkError``: transient. python-telegram-bot would log a traceback
with the page for each of them; nothing here logs: the caller says what happened, in one line.

Timeouts as python-telegram-bot's: ``connect`` (the TCP connection), ``read`` (each read of the
answer), ``pool`` (waiting for a free connection, added to ``connect`` since aiohttp counts the
wait there). aiohttp has no write timeout; a stalled upload is caught by the read timeout.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import JSONDict, ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from bot.jsontext import loads, utf8

JSON = "application/json"
_ANSWER = b'{"ok":true,'  # how the Bot API begins every answer
NOT_THE_BOT_API = "an answer that is not the Bot API's JSON (a page or a truncated body)"


class UnreadableAnswer(NetworkError):
    """A 2xx answer that is not the Bot API's JSON: a proxy's or portal's page, a truncated body."""


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
                status, payload = response.status, await response.read()
        except TimeoutError as exc:  # asyncio's and aiohttp's (ServerTimeoutError is one too)
            raise TimedOut("timed out") from exc
        except aiohttp.ClientConnectorError as exc:
            refused = isinstance(exc.os_error, ConnectionRefusedError)
            what = "connection refused" if refused else f"cannot connect ({type(exc.os_error).__name__})"
            raise NetworkError(what) from exc
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError, aiohttp.ClientPayloadError) as exc:
            raise NetworkError(f"connection lost ({type(exc).__name__})") from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{type(exc).__name__}") from exc
        if status < 300:
            # A call's answer (POST; a GET is a file's download): the check costs nothing when it is one.
            if method == "POST" and not payload.startswith(_ANSWER) and not _is_answer(payload):
                raise UnreadableAnswer(NOT_THE_BOT_API)
        elif _json_object(payload) is None:
            payload = _error_body(status)  # python-telegram-bot maps it by status, with no page in its message
        return status, payload

    @staticmethod
    def parse_json_payload(payload: bytes) -> JSONDict:
        """The body as a JSON object, or ``UnreadableAnswer`` (python-telegram-bot's own logs a traceback)."""
        try:
            answer = loads(payload)
        except ValueError:  # UnicodeDecodeError included
            raise UnreadableAnswer(NOT_THE_BOT_API) from None
        if not isinstance(answer, dict) or (answer.get("ok") is True and "result" not in answer):
            raise UnreadableAnswer(NOT_THE_BOT_API)
        return answer


def _json_object(payload: bytes) -> dict[str, Any] | None:
    try:
        decoded = loads(payload)
    except ValueError:
        return None
    return decoded if isinstance(decoded, dict) else None


def _is_answer(payload: bytes) -> bool:
    """Whether a 2xx body is the Bot API's answer: ``ok: true`` with a ``result``."""
    answer = _json_object(payload)
    return answer is not None and answer.get("ok") is True and "result" in answer


def _error_body(status: int) -> bytes:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "HTTP error"
    description = f"{phrase} ({status}), not from the Bot API's JSON"
    return json.dumps({"ok": False, "error_code": status, "description": description}).encode()


def _body(request_data: RequestData | None) -> Any:
    """A JSON object, which the Bot API takes for every call but uploads; files as multipart."""
    if request_data is None:
        return None
    if not request_data.multipart_data:
        # Not python-telegram-bot's form fields: percent-encoding every character of a message in
        # Python (``urlencode``) cost more than the rest of building the request, and aiohttp's
        # FormData builds a multipart writer, boundary and all, for each call. ``parameters`` are
        # already JSON values (a keyboard as an object, not a string of JSON). A lone surrogate is
        # written escaped (``bot.jsontext.utf8``), so it cannot fail the encoding.
        return aiohttp.payload.BytesPayload(utf8(request_data.parameters), content_type=JSON)
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mime) in request_data.multipart_data.items():
        form.add_field(name, content, filename=filename, content_type=mime)
    return form

