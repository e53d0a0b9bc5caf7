"""A typical stateful aiogram bot, the fairer peer of the overhead benchmark: what an ISP bot written
the usual way does per update, without any of ispbot's guarantees.

    python -m bench.stateful_bots redis|redis-postgresql --api http://127.0.0.1:PORT --token T [--database URL]

``redis``: aiogram 3's dispatcher with its FSM kept in Redis (``RedisStorage`` over a blocking pool of
64 connections: redis-py's default pool raises under a burst and loses the update), each text read
and written back to the chat's FSM data and answered with a Jinja2 template. ``redis-postgresql``:
the same plus one PostgreSQL insert per update (asyncpg, a pool of 16), the log a real bot keeps.
Nothing is processed exactly once or in order per chat, and nothing survives a crash between the
state and the answer: this is the cost floor, not a design. Runs until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import uuid
from typing import Any

REDIS_URL = "redis://127.0.0.1:6379/15"  # a database of its own; its keys carry this run's prefix
POOL = 64
REPLY = "{{ greeting }}, {{ name }}! Você escreveu: <i>{{ text | e }}</i> ({{ turns }}ª mensagem)."


async def run(api: str, token: str, database: str | None) -> None:
    import jinja2  # noqa: PLC0415 - only the contender's process loads its libraries
    from aiogram import Bot, Dispatcher  # noqa: PLC0415
    from aiogram.client.session.aiohttp import AiohttpSession  # noqa: PLC0415
    from aiogram.client.telegram import TelegramAPIServer  # noqa: PLC0415
    from aiogram.fsm.context import FSMContext  # noqa: PLC0415
    from aiogram.fsm.storage.base import DefaultKeyBuilder  # noqa: PLC0415
    from aiogram.fsm.storage.redis import RedisStorage  # noqa: PLC0415
    from aiogram.types import Message  # noqa: PLC0415
    from redis.asyncio import BlockingConnectionPool, Redis  # noqa: PLC0415

    redis = Redis(connection_pool=BlockingConnectionPool.from_url(REDIS_URL, max_connections=POOL, timeout=30))
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    storage = RedisStorage(redis, key_builder=DefaultKeyBuilder(prefix=prefix), state_ttl=600, data_ttl=600)
    template = jinja2.Environment(autoescape=False).from_string(REPLY)  # noqa: S701 - the value is escaped by |e
    table = f"aiogram_updates_{uuid.uuid4().hex[:8]}"
    pool = await _postgresql(database, table) if database else None
    dispatcher = Dispatcher(storage=storage)

    @dispatcher.message()
    async def answer(message: Message, state: FSMContext) -> None:
        if message.text is None:
            return
        data: dict[str, Any] = await state.get_data()
        turns = int(data.get("turns", 0)) + 1
        await state.update_data(turns=turns, last=message.text)
        if pool is not None:
            await pool.execute(f"INSERT INTO {table} (chat_id, message_id, text) VALUES ($1, $2, $3)",  # noqa: S608
                               message.chat.id, message.message_id, message.text)
        await message.answer(template.render(greeting="Olá", name=message.chat.first_name or "cliente",
                                             text=message.text, turns=turns), parse_mode="HTML")

    bot = Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(api)))
    stopping = asyncio.get_running_loop()
    stopping.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(dispatcher.stop_polling()))
    try:
        await dispatcher.start_polling(bot, polling_timeout=1, handle_signals=False)
    finally:  # SIGTERM from the benchmark: the FSM keys expire by themselves (state_ttl), the table goes
        if pool is not None:
            await pool.execute(f"DROP TABLE IF EXISTS {table}")
            await pool.close()


async def _postgresql(url: str, table: str) -> Any:
    """A pool and a table of this run's own for the one INSERT per update."""
    import asyncpg  # noqa: PLC0415

    pool = await asyncpg.create_pool(url.replace("postgresql+asyncpg://", "postgresql://"), min_size=4, max_size=16)
    await pool.execute(f"CREATE TABLE {table} (chat_id bigint, message_id bigint, text text, "
                       "at timestamptz DEFAULT now())")
    return pool


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("redis", "redis-postgresql"))
    parser.add_argument("--api", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--database", default=None, help="PostgreSQL URL (redis-postgresql)")
    args = parser.parse_args()
    if args.kind == "redis-postgresql" and not args.database:
        parser.error("redis-postgresql needs --database")
    asyncio.run(run(args.api, args.token, args.database if args.kind == "redis-postgresql" else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
