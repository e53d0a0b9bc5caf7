"""Throw-away databases for tests: a SQLite file, or a private schema in the PostgreSQL named by
``ISPBOT_TEST_DATABASE_URL`` that is dropped afterwards, so the shared database is left clean."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterable
from typing import Any

from bot.store import Database
from bot.store.db import DEFAULT_POOL_SIZE
from bot.store.migrate import upgrade
from bot.store.urls import async_url
from sqlalchemy import text
from sqlalchemy.engine import make_url

ENV_URL = "ISPBOT_TEST_DATABASE_URL"


def postgresql_url() -> str | None:
    return os.environ.get(ENV_URL) or None


class ScratchDatabase(Database):
    """A Database that knows how to open itself again (a restart) and how to vanish."""

    def __init__(self, url: str, schema: str | None = None, *, pool_size: int = DEFAULT_POOL_SIZE) -> None:
        self.schema = schema
        self.pool_size = pool_size
        self.connect_args: dict[str, Any] = (
            {} if schema is None else {"server_settings": {"search_path": schema}}
        )
        super().__init__(url, connect_args=self.connect_args, pool_size=pool_size)

    def reopen(self) -> Database:
        """A second handle on the same data, as a restarted process would have."""
        return Database(self.url, connect_args=self.connect_args, pool_size=self.pool_size)

    async def terminate_server_processes(self, pids: Iterable[int]) -> None:
        """PostgreSQL ends these connections' server processes, as a restart or a failover would."""
        admin = self.reopen()
        try:
            async with admin.engine.begin() as connection:
                for pid in pids:
                    await connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        finally:
            await admin.dispose()

    async def destroy(self) -> None:
        await self.dispose()
        if self.schema is not None:
            url = self.url.render_as_string(hide_password=False)
            await _admin(url, f'DROP SCHEMA "{self.schema}" CASCADE')


async def _admin(url: str, statement: str) -> None:
    admin = Database(url)
    try:
        async with admin.engine.begin() as connection:
            await connection.execute(text(statement))
    finally:
        await admin.dispose()


async def make_database(url: str, *, migrated: bool = True, pool_size: int = DEFAULT_POOL_SIZE) -> ScratchDatabase:
    """A fresh database at ``url`` (in a new schema on PostgreSQL), migrated to head unless told not to;
    ``pool_size`` as ``ispbot run`` would size it (``pool_size_for``) when the bot runs other than 12 chats at once.

    Call ``destroy()`` when done.
    """
    schema = None
    if async_url(url).get_backend_name() == "postgresql":
        schema = f"ispbot_test_{uuid.uuid4().hex[:12]}"
        await _admin(url, f'CREATE SCHEMA "{schema}"')
    database = ScratchDatabase(url, schema, pool_size=pool_size)
    if migrated:
        try:
            await upgrade(database)
        except BaseException:
            await database.destroy()
            raise
    return database


@contextlib.asynccontextmanager
async def separate_database(url: str) -> AsyncIterator[str]:
    """A new, empty database on the PostgreSQL server of ``url``, for other processes (whose URL cannot
    name a schema); its URL. Dropped afterwards, whoever is still connected."""
    name = f"ispbot_test_{uuid.uuid4().hex[:12]}"
    admin = Database(url)
    autocommit = admin.engine.execution_options(isolation_level="AUTOCOMMIT")
    try:
        async with autocommit.connect() as connection:
            await connection.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield make_url(url).set(database=name).render_as_string(hide_password=False)
        finally:
            async with autocommit.connect() as connection:
                await connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()
