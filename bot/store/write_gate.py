"""One writer at a time per SQLite file in this process, queued in asyncio instead of in SQLite.

SQLite lets one transaction write at a time. A second writer meets the lock inside ``sqlite3_step``
and SQLite's busy handler puts its thread to sleep in growing steps (1, 2, 5 … 100 ms) before
trying again; with a few dozen chats side by side most of a turn was spent asleep there, although
the lock had long been free. Here a transaction's first write waits on an
``asyncio.Lock`` instead, which hands over, in FIFO order, as soon as the holder's connection goes
back to the pool after its COMMIT or ROLLBACK. SQLite's own busy timeout still covers other processes on the same file.

Transactions that only read never take the gate: the pysqlite driver begins a transaction only at
its first INSERT/UPDATE/DELETE, and that is where the gate is taken too (from inside SQLAlchemy's
greenlet, with ``await_only``). A writer that waits longer than ``timeout`` gets the same
"database is locked" error SQLite would have raised.
"""

from __future__ import annotations

import asyncio
import sqlite3
import weakref
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import await_only

_HOLDS = "ispbot_holds_write_gate"
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")
_INSTALLED: weakref.WeakKeyDictionary[Any, WriteGate] = weakref.WeakKeyDictionary()  # sync engine: its gate


class WriteGate:
    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._lock = asyncio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    @staticmethod
    def of(engine: Any) -> WriteGate | None:
        """The gate installed on ``engine`` (async or sync), if any."""
        return _INSTALLED.get(getattr(engine, "sync_engine", engine))

    def install(self, engine: AsyncEngine) -> None:
        sync_engine = engine.sync_engine
        _INSTALLED[sync_engine] = self
        event.listen(sync_engine, "before_cursor_execute", self._before_execute)
        # Opened when the connection goes back to the pool, after its COMMIT or ROLLBACK ran (the
        # engine's own commit/rollback events come before, while SQLite still holds the lock), or
        # when it is closed or invalidated mid-transaction.
        event.listen(sync_engine.pool, "reset", self._on_reset)
        event.listen(sync_engine.pool, "close", self._on_close)
        event.listen(sync_engine.pool, "invalidate", self._on_invalidate)

    # ---- events ----------------------------------------------------------------------------------
    def _before_execute(
        self, connection: Connection, _cursor: Any, statement: str, *_args: Any,
    ) -> None:
        info = connection.connection.info
        if info.get(_HOLDS) or not statement.lstrip()[:7].upper().startswith(_WRITES):
            return
        await_only(self.hold(info))

    async def hold(self, info: dict[Any, Any]) -> None:
        """Take the gate for the pooled connection whose ``info`` this is, unless it holds it already
        (a statement run on the driver itself, ``bot.store.driver``, takes it here)."""
        if info.get(_HOLDS):
            return
        await self._acquire()
        info[_HOLDS] = True

    async def _acquire(self) -> None:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # an asyncio.Lock serves one loop; a new loop (tests) gets its own
            self._loop, self._lock = loop, asyncio.Lock()
        try:
            async with asyncio.timeout(self.timeout):
                await self._lock.acquire()
        except TimeoutError:
            raise sqlite3.OperationalError("database is locked") from None

    def _on_reset(self, _dbapi_connection: Any, record: Any, _state: Any) -> None:
        self._free(record.info)

    def _on_close(self, _dbapi_connection: Any, record: Any) -> None:
        self._free(record.info)

    def _on_invalidate(self, _dbapi_connection: Any, record: Any, _exception: Any) -> None:
        self._free(record.info)

    def _free(self, info: dict[Any, Any]) -> None:
        if info.pop(_HOLDS, False):
            self._lock.release()
