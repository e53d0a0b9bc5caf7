"""SQLite in the event loop's own thread: aiosqlite's connection without its worker thread.

aiosqlite runs every call in a thread of its own and wakes the event loop with each result; SQLAlchemy
makes four such calls per statement (cursor, execute, fetch, close). Measured with the whole bot, those
hand-offs between threads cost more CPU than SQLite's own work: the statements of a turn read and
write a row or a few by index in a local file, in microseconds. So the calls run here, at once, in
the loop's thread, and the loop is blocked only for as long as SQLite works.

What could block it longer: another *process* holding the file's write lock (SQLite then waits up to
its busy timeout). One bot process per SQLite file is the deployment this serves (the write gate,
``bot.store.write_gate``, queues this process's own writers before they reach SQLite); several
processes belong on PostgreSQL (docs/operator-guide.md, "Several processes on one PostgreSQL").
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Generator
from functools import partial
from typing import Any

import aiosqlite
from sqlalchemy.engine import URL


class _RunAtOnce:
    """Stands in for the queue to aiosqlite's worker thread: what is put on it runs now."""

    def put_nowait(self, item: tuple[asyncio.Future[Any] | None, Callable[[], Any]]) -> None:
        future, function = item
        try:
            result = function()
        except BaseException as exc:  # handed to the awaiting caller, as the worker thread would
            if future is not None and not future.done():
                future.set_exception(exc)
            return
        if future is not None and not future.done():
            future.set_result(result)


class InlineConnection(aiosqlite.Connection):
    def __init__(self, connector: Callable[[], sqlite3.Connection], iter_chunk_size: int = 64) -> None:
        super().__init__(connector, iter_chunk_size)
        self._tx = _RunAtOnce()  # type: ignore[assignment]

    def __await__(self) -> Generator[Any, None, aiosqlite.Connection]:
        return self._connect().__await__()  # no worker thread to start


def inline_creator(url: URL) -> Callable[[], InlineConnection]:
    """``create_async_engine(async_creator=…)`` for the SQLite database at ``url``, with the
    connection arguments SQLAlchemy's own aiosqlite dialect would use for it."""
    dialect = url.get_dialect()()
    arguments, options = dialect.create_connect_args(url)
    return partial(InlineConnection, partial(sqlite3.connect, *arguments, **options))
