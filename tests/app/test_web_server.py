"""The bot's web server (``bot.web.serve``) behind a reverse proxy: the proxy keeps an idle connection
to the bot for a minute or two and sends the next webhook into it, so the bot must not close it first.
uvicorn's default closes it after 5 s idle: a webhook sent as it closed was a 502 for Telegram."""

from __future__ import annotations

import asyncio
import contextlib

from bot.web import serve
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

PAST_UVICORNS_DEFAULT = 6.0  # seconds idle


async def ok(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


async def answered(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: bot.test\r\n\r\n")
    await writer.drain()
    status = await reader.readline()
    while (await reader.readline()) not in (b"\r\n", b""):  # the headers
        pass
    await reader.readexactly(len(b"ok"))
    return b" 200 " in status


async def test_an_idle_connection_is_kept_open_longer_than_a_proxy_keeps_it(free_tcp_port: int) -> None:
    stop = asyncio.Event()
    server = asyncio.create_task(serve(Starlette(routes=[Route("/healthz", ok)]), "127.0.0.1", free_tcp_port, stop))
    try:
        for _ in range(500):  # until it listens
            with contextlib.suppress(OSError):
                reader, writer = await asyncio.open_connection("127.0.0.1", free_tcp_port)
                break
            await asyncio.sleep(0.01)
        assert await answered(reader, writer)
        await asyncio.sleep(PAST_UVICORNS_DEFAULT)
        assert not reader.at_eof()
        assert await answered(reader, writer)  # the same connection, reused
        writer.close()
    finally:
        stop.set()
        await asyncio.wait_for(server, 10)
