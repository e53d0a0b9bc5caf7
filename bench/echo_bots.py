"""Bare echo bots, the yardstick of the overhead benchmark: each polls the Bot API and answers every
text with the same text, nothing else.

    python -m bench.echo_bots ptb|ptb-concurrent|aiogram --api http://127.0.0.1:PORT --token T

``ptb`` is python-telegram-bot's ``Application`` as its echo example writes it (updates one after
another); ``ptb-concurrent`` the same with ``concurrent_updates(32)``; ``aiogram`` is aiogram 3's
dispatcher, which handles each update in a task of its own. Runs until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any


def run_ptb(api: str, token: str, concurrent: bool) -> None:
    from telegram.ext import ApplicationBuilder, MessageHandler, filters  # noqa: PLC0415

    from telegram import Update  # noqa: PLC0415 - each contender loads only its own library

    async def echo(update: Update, _: Any) -> None:
        if update.message is not None and update.message.text is not None:
            await update.message.reply_text(update.message.text)

    builder = ApplicationBuilder().token(token).base_url(f"{api}/bot").connection_pool_size(32)
    application = builder.concurrent_updates(32 if concurrent else False).build()
    application.add_handler(MessageHandler(filters.TEXT, echo))
    application.run_polling(poll_interval=0.0, timeout=1, stop_signals=None)


async def run_aiogram(api: str, token: str) -> None:
    from aiogram import Bot, Dispatcher  # noqa: PLC0415
    from aiogram.client.session.aiohttp import AiohttpSession  # noqa: PLC0415
    from aiogram.client.telegram import TelegramAPIServer  # noqa: PLC0415
    from aiogram.types import Message  # noqa: PLC0415

    dispatcher = Dispatcher()

    @dispatcher.message()
    async def echo(message: Message) -> None:
        if message.text is not None:
            await message.answer(message.text)

    bot = Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(api)))
    await dispatcher.start_polling(bot, polling_timeout=1, handle_signals=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("ptb", "ptb-concurrent", "aiogram"))
    parser.add_argument("--api", required=True)
    parser.add_argument("--token", required=True)
    args = parser.parse_args()
    if args.kind == "aiogram":
        asyncio.run(run_aiogram(args.api, args.token))
    else:
        run_ptb(args.api, args.token, concurrent=args.kind == "ptb-concurrent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
