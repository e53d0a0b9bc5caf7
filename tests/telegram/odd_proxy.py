"""A proxy in front of a fake server (the fake Bot API, or the sandbox ISP served over HTTP) that,
while told to, answers chosen calls as broken infrastructure does, at the socket where it matters.

    async with OddProxy(api.base_url) as proxy:       # point the client at proxy.base_url
        async with proxy.answering(ODD["html 200"], paths=("/sendMessage",)):
            ...                                          # those calls get a portal's page meanwhile

``Odd.refused`` closes the port and every open connection; ``Odd.reset`` reads the request and
resets the connection; ``Odd.timeout`` reads it and never answers; the others answer with a status
and a body. Everything else is forwarded unchanged. Only 127.0.0.1; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from types import TracebackType

import httpx


@dataclass(frozen=True)
class Odd:
    """One way of answering badly: a special behaviour, or a status with a body."""

    name: str
    status: int = 0
    body: bytes = b""
    content_type: str = "application/json"

    refused = "refused"
    reset = "reset"
    timeout = "timeout"


_FORWARDED_HEADERS = ("content-type", "x-telegram-bot-api-secret-token", "authentication_key")
_NGINX = b"<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n" \
         b"<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"


def _page(status: int) -> bytes:
    phrase = HTTPStatus(status).phrase.encode()
    return _NGINX % (status, phrase, status, phrase)


def _refusal(status: int, description: str, parameters: str = "") -> Odd:
    extra = f',"parameters":{parameters}' if parameters else ""
    body = f'{{"ok":false,"error_code":{status},"description":"{description}"{extra}}}'.encode()
    return Odd(description, status, body)


# The Bot API's (and what stands in front of it) odd answers, by name.
ODD: dict[str, Odd] = {
    "refused": Odd(Odd.refused),
    "reset": Odd(Odd.reset),
    "timeout": Odd(Odd.timeout),
    "429 retry_after": _refusal(429, "Too Many Requests: retry after 1", '{"retry_after":1}'),
    "500 page": Odd("500 page", 500, _page(500), "text/html"),
    "502 page": Odd("502 page", 502, _page(502), "text/html"),
    "503 page": Odd("503 page", 503, _page(503), "text/html"),
    "404": _refusal(404, "Not Found"),
    "html 200": Odd("html 200", 200, b"<!DOCTYPE html><html><body><h1>Wi-Fi login</h1></body></html>", "text/html"),
    "truncated json 200": Odd("truncated json 200", 200, b'{"ok":true,"result":{"message_id":7,"from":{"id":1'),
    "ok without a result": Odd("ok without a result", 200, b'{"ok":true}'),
    "chat not found": _refusal(400, "Bad Request: chat not found"),
    "bot blocked": _refusal(403, "Forbidden: bot was blocked by the user"),
    "message too long": _refusal(400, "Bad Request: message is too long"),
}


class OddProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.odd: Odd | None = None
        self.paths: tuple[str, ...] = ()
        self.answered_oddly: Counter[str] = Counter()  # by path, while odd
        self._http = httpx.AsyncClient(timeout=10.0)
        self._server: asyncio.Server | None = None
        self._port = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._busy: set[asyncio.StreamWriter] = set()  # with a call in flight
        self._calm = asyncio.Event()
        self._calm.set()
        self._answered = asyncio.Event()  # an odd answer was given

    async def until_answered_oddly(self, method: str, times: int, within: float) -> None:
        """Wait (bounded) until calls of ``method`` met the odd answer ``times`` times in all."""
        async with asyncio.timeout(within):
            while self.answered_oddly[method] < times:
                self._answered.clear()
                await self._answered.wait()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    async def __aenter__(self) -> OddProxy:
        await self._listen()
        return self

    async def __aexit__(self, *exc: object | TracebackType) -> None:
        self._calm.set()
        await self._close()
        await self._http.aclose()

    @contextlib.asynccontextmanager
    async def answering(self, odd: Odd, paths: Iterable[str] = ()) -> AsyncIterator[None]:
        """Answer the calls whose path ends with one of ``paths`` (all, when none) as ``odd`` says."""
        self.odd, self.paths = odd, tuple(paths)
        self._calm.clear()
        if odd.name == Odd.refused:
            await self._close()  # idle connections now; those with a call in flight once it is answered
        try:
            yield
        finally:
            self.odd = None
            self._calm.set()
            if odd.name == Odd.refused:
                await self._listen()

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._port)
        self._port = self._server.sockets[0].getsockname()[1]

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
            idle = list(self._writers - self._busy)
            for writer in idle:
                writer.close()
            for writer in idle:
                with contextlib.suppress(ConnectionError):
                    await writer.wait_closed()
            await asyncio.sleep(0.1)  # the clients see their pooled connections end before the next call
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), 5)
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while (request := await _read_request(reader)) is not None:
                if self._server is None:  # refusing: a call sent on a connection still open meets a closed one
                    return
                self._busy.add(writer)
                method, path, headers, body = request
                odd = self.odd
                if odd is not None and (not self.paths or path.endswith(self.paths)):
                    self.answered_oddly[path.rsplit("/", 1)[-1]] += 1
                    self._answered.set()
                    if not await self._answer_oddly(odd, writer):
                        return
                    continue
                kept = {key: value for key, value in headers.items() if key in _FORWARDED_HEADERS}
                response = await self._http.request(method, self.upstream + path, content=body, headers=kept)
                await _write(writer, response.status_code, response.content, response.headers.get("content-type", ""))
                self._busy.discard(writer)
                if self._server is None:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._busy.discard(writer)
            self._writers.discard(writer)
            writer.close()

    async def _answer_oddly(self, odd: Odd, writer: asyncio.StreamWriter) -> bool:
        """Whether the connection goes on."""
        if odd.name == Odd.reset:
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST
            writer.transport.abort()
            return False
        if odd.name == Odd.timeout:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._calm.wait(), 60)
            return False  # never answered
        await _write(writer, odd.status, odd.body, odd.content_type)
        return True


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str], bytes] | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while size := int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16):
            body += await reader.readexactly(size)
            await reader.readexactly(2)
        await reader.readuntil(b"\r\n")
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return method, path, headers, body


async def _write(writer: asyncio.StreamWriter, status: int, body: bytes, content_type: str) -> None:
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Unknown"
    head = f"HTTP/1.1 {status} {phrase}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    writer.write(head.encode("latin-1") + body)
    await writer.drain()
