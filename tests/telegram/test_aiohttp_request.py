"""python-telegram-bot's Bot over ``AiohttpRequest``: answers, uploads and failures as Bot API users see them."""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
from collections.abc import AsyncIterator

import pytest
from bot.channels.telegram.aiohttp_request import AiohttpRequest
from telegram.error import BadRequest, InvalidToken, NetworkError, TimedOut

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from tests.telegram.fake_bot_api import FakeBotApi


def bot_at(base_url: str, token: str) -> Bot:
    return Bot(token, base_url=f"{base_url}/bot", request=AiohttpRequest(4))


async def test_messages_uploads_and_refusals_go_through_as_with_any_transport() -> None:
    async with FakeBotApi() as api:
        bot = bot_at(api.base_url, api.token)
        async with bot:
            text = "olá <b>mundo</b> & 1+1=2; 100% \"🙂\" \\"  # each a character an encoding must escape
            keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("2ª via", callback_data="bill:1")]])
            message = await bot.send_message(42, text, parse_mode="HTML", reply_markup=keyboard)
            assert message.text == text and message.chat.id == 42
            assert api.sent(42)[-1].params["reply_markup"] == {
                "inline_keyboard": [[{"text": "2ª via", "callback_data": "bill:1"}]],
            }
            document = await bot.send_document(42, io.BytesIO(b"%PDF-1.4 boleto"), filename="boleto.pdf")
            assert document.document is not None and document.document.file_size == len(b"%PDF-1.4 boleto")
            assert api.sent(42)[-1].params["_filename"] == "boleto.pdf"
            api.fail_next("sendMessage", 400, description="Bad Request: message text is empty")
            with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
                await bot.send_message(42, "x")
        with pytest.raises(InvalidToken):
            async with bot_at(api.base_url, "999:wrongwrongwrongwrongwrong"):
                pass


@contextlib.asynccontextmanager
async def silent_server() -> AsyncIterator[str]:
    """Accepts connections and never answers."""
    async def hold(reader: asyncio.StreamReader, _writer: asyncio.StreamWriter) -> None:
        await reader.read()

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()


async def test_an_answer_that_never_comes_is_a_timeout_and_a_closed_port_a_network_error() -> None:
    async with silent_server() as url:
        request = AiohttpRequest(1, read_timeout=0.2)
        await request.initialize()
        try:
            with pytest.raises(TimedOut):
                await request.post(f"{url}/bot123:abc/getMe")
        finally:
            await request.shutdown()
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    request = AiohttpRequest(1)
    await request.initialize()
    try:
        with pytest.raises(NetworkError) as refused:
            await request.post(f"http://127.0.0.1:{closed}/bot123:abc/getMe")
        assert not isinstance(refused.value, TimedOut)
    finally:
        await request.shutdown()
