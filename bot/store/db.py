"""The database handle: one async engine and its session factory per process."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import StaticPool

from bot.jsontext import loads
from bot.store.inline_sqlite import inline_creator
from bot.store.types import storable_json
from bot.store.urls import DEFAULT_URL, async_url, is_memory_sqlite
from bot.store.write_gate import WriteGate

# Writers wait this long for SQLite's single write lock before "database is locked".
SQLITE_BUSY_TIMEOUT_MS = 10_000

# A turn holds its connection until it commits, ISP calls included, so a process needs one connection
# per chat in flight (ISPBOT_CONCURRENCY, 12 by default) plus a few for the intake, the claims, the
# sender's records and the mirror, and for a moment the second one a linking attempt takes to count
# itself before the ISP is asked (``LinkAttempts.reserve``: the turns never hold the whole pool, so it
# is always served). All of them stay open: with SQLAlchemy's default (5 kept open, 10 more while
# busy) connections were opened and closed all the time under load (connect, TLS, authentication,
# statements prepared again), a third of the throughput on PostgreSQL, and the 15 at most held chats
# back while the ISP was slow.
SPARE_CONNECTIONS = 4


def pool_size_for(chats_at_once: int) -> int:
    """Connections to keep open for a process that runs this many chats' turns at once."""
    return chats_at_once + SPARE_CONNECTIONS


DEFAULT_POOL_SIZE = pool_size_for(12)  # the processor's DEFAULT_CONCURRENCY (the store cannot import it)
# Above the pool, for a peak (a doctor run, an operator's tool in the same process): opened and closed.
POOL_OVERFLOW = 8

# A pooled PostgreSQL connection idle this long is pinged before use (see ``ping_after_idle``).
PING_AFTER_IDLE_S = 1.0


class Database:
    """``Database(url)``: SQLite by default, PostgreSQL with ``postgresql://…`` (asyncpg).

    ``connect_args`` go to the driver as is, e.g. ``{"server_settings": {"search_path": "x"}}``
    for asyncpg to work inside one PostgreSQL schema. Up to ``pool_size`` connections stay open (see
    ``DEFAULT_POOL_SIZE``); they are opened as needed, not at start.
    """

    def __init__(
        self, url: str | URL = DEFAULT_URL, *, connect_args: Mapping[str, Any] | None = None,
        echo: bool = False, pool_size: int = DEFAULT_POOL_SIZE,
    ) -> None:
        self.url = async_url(url)
        # Every JSON column's value is written by ``storable_json`` (NUL and lone surrogates replaced).
        options: dict[str, Any] = {
            "echo": echo, "connect_args": dict(connect_args or {}),
            "json_serializer": storable_json, "json_deserializer": loads,
        }
        if is_memory_sqlite(self.url):
            # Each connection to ":memory:" would be a new empty database: share a single one.
            options["poolclass"] = StaticPool
        else:
            options.update(pool_size=pool_size, max_overflow=POOL_OVERFLOW)
        if self.url.get_backend_name() == "sqlite":
            options["async_creator"] = inline_creator(self.url)
        self.engine: AsyncEngine = create_async_engine(self.url, **options)
        if self.dialect == "postgresql":
            ping_after_idle(self.engine, PING_AFTER_IDLE_S)
        if self.is_sqlite:
            event.listen(self.engine.sync_engine, "connect", _tune_sqlite)
            WriteGate(SQLITE_BUSY_TIMEOUT_MS / 1000).install(self.engine)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    @property
    def dialect(self) -> str:
        return self.url.get_backend_name()

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @property
    def single_connection(self) -> bool:
        """Every session shares one connection (an in-memory SQLite): no transaction runs beside another."""
        return is_memory_sqlite(self.url)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """A session whose transaction the caller commits (anything uncommitted is rolled back)."""
        async with self.sessions() as session:
            yield session

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session inside one transaction: committed on success, rolled back on an exception.

        Every transaction of a turn, a claim or a delivery goes through here, and each call into an
        ``AsyncSession`` is a greenlet of its own: the transaction begins with the session's first
        statement (SQLAlchemy's autobegin), not with ``session.begin()``, and a committed session is
        not closed, since its commit already gave its connection back to the pool."""
        session = self.sessions()
        try:
            yield session
            await session.commit()
        except BaseException:
            async with session:  # closing it rolls back and gives the connection back, even when cancelled
                raise

    async def dispose(self) -> None:
        await self.engine.dispose()

    def __repr__(self) -> str:
        return f"Database({self.url.render_as_string(hide_password=True)!r})"


def ping_after_idle(engine: AsyncEngine, idle_seconds: float) -> None:
    """Ping a pooled connection before use only when it has been idle ``idle_seconds`` or more.

    What dies while a connection waits in the pool (a server restart, an idle timeout, a firewall
    forgetting the flow) is found by the ping, and the pool replaces the connection (and every
    connection pooled before it) instead of failing a turn. SQLAlchemy's ``pool_pre_ping`` pings at
    every checkout: three round trips with asyncpg (BEGIN, the ping, ROLLBACK), as many as the rest
    of a turn's statements together. A connection checked in a moment ago is used as is: if the
    server went away in that moment, the first statement fails, SQLAlchemy invalidates the pool, and
    the failed work is retried (a turn goes back to the inbox) on a new connection.
    """
    dialect = engine.sync_engine.dialect

    @event.listens_for(engine.sync_engine, "checkin")
    def _idle_from(_dbapi_connection: Any, record: Any) -> None:
        if record is not None:
            record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.pop("idle_since", None)
        if idle_since is None or time.monotonic() - idle_since < idle_seconds:
            return  # just connected, or back from use a moment ago
        try:
            dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise exc.InvalidatePoolError(f"a pooled connection failed its ping: {type(error).__name__}") from error


def _tune_sqlite(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        # WAL lets readers proceed while one writer commits; foreign keys are off by default in SQLite.
        cursor.execute("PRAGMA journal_mode=WAL")
        # In WAL mode NORMAL syncs at checkpoints, not at every commit: a crashed process loses
        # nothing (the WAL is in the OS's hands), a power cut may lose the last commits. FULL's
        # fsync per commit caps the bot at the disk's syncs a second (bench/RESULTS.md); PostgreSQL
        # is the choice where a power cut must lose nothing.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        cursor.close()
