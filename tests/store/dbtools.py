"""Throw-away databases for tests: a SQLite file, or a private schema in the PostgreSQL named by
``ISPBOT_TEST_DATABASE_URL`` that is dropped afterwards, so the shared database is left clean.

Migrating took a fifth of a second of CPU per test on SQLite and more on PostgreSQL (a thousand tests
each): the first scratch database of a process is migrated, and the next ones are made from it, a
copy of its file on SQLite and, on PostgreSQL, the statements the migrations sent replayed in the new
schema. The tests of the migrations themselves start from a blank database (``migrated=False``).

On PostgreSQL a schema's making and dropping cost the server half a second a test on a busy machine
(a thousand tests): while ``spares()`` is open (the whole test session), a migrated schema a test is
done with is emptied (its rows deleted, its sequences restarted) and handed to the next test instead,
unless the test changed its tables; whatever is spare at the end is dropped.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Any

from bot.store import Database
from bot.store.db import DEFAULT_POOL_SIZE
from bot.store.migrate import head_revision, upgrade
from bot.store.models import Base
from bot.store.urls import async_url
from sqlalchemy import event, text
from sqlalchemy.engine import make_url

ENV_URL = "ISPBOT_TEST_DATABASE_URL"


def postgresql_url() -> str | None:
    return os.environ.get(ENV_URL) or None


class ScratchDatabase(Database):
    """A Database that knows how to open itself again (a restart) and how to vanish."""

    def __init__(
        self, url: str, schema: str | None = None, *, pool_size: int = DEFAULT_POOL_SIZE, migrated: bool = False,
    ) -> None:
        self.schema = schema
        self.migrated = migrated  # at head when made: a spare schema may take its place
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
        spare = self.schema is not None and self.migrated and await _emptied(self)
        await self.dispose()
        if self.schema is not None and not spare:
            await _admin(self.url.render_as_string(hide_password=False), f'DROP SCHEMA "{self.schema}" CASCADE')


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
        if migrated and _spare is not None and _spare.get(url):
            return ScratchDatabase(url, _spare[url].pop(), pool_size=pool_size, migrated=True)
        schema = f"ispbot_test_{uuid.uuid4().hex[:12]}"
        await _admin(url, f'CREATE SCHEMA "{schema}"')
    elif migrated and (file := _new_sqlite_file(url)) is not None:
        shutil.copyfile(await _sqlite_template(), file)
        return ScratchDatabase(url, pool_size=pool_size)
    database = ScratchDatabase(url, schema, pool_size=pool_size, migrated=migrated)
    if migrated:
        try:
            await (_migrate_postgresql(database) if schema is not None else upgrade(database))
        except BaseException:
            await database.destroy()
            raise
    return database


# ---- made from the first: what migrating sent, done again -------------------------------------------
_made: dict[str, Any] = {}  # "sqlite": the migrated file; "postgresql": the statements migrating sent


def _new_sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL when there is none yet (not in memory, not one a test made before)."""
    parsed = async_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    file = Path(parsed.database)
    return None if file.exists() else file


async def _sqlite_template() -> Path:
    """A SQLite file migrated to head (once a process), closed, so that a copy of it is one."""
    if "sqlite" not in _made:
        folder = Path(tempfile.mkdtemp(prefix="ispbot-tests-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = Database(f"sqlite+aiosqlite:///{folder / 'migrated.sqlite3'}")
        try:
            await upgrade(template)
        finally:
            await template.dispose()  # the last connection closed: the WAL is in the file, and gone
        assert not (folder / "migrated.sqlite3-wal").exists()
        _made["sqlite"] = folder / "migrated.sqlite3"
    path: Path = _made["sqlite"]
    return path


async def _migrate_postgresql(database: ScratchDatabase) -> None:
    """Migrate the first schema of a process with Alembic, noting each statement sent; the later ones get
    the same statements, in one transaction, in their own schema (``search_path``)."""
    sent = _made.get("postgresql")
    if sent is None:
        noted: list[tuple[str, Any]] = []

        def note(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
            noted.append((statement, parameters))

        event.listen(database.engine.sync_engine, "before_cursor_execute", note)
        try:
            await upgrade(database)
        finally:
            event.remove(database.engine.sync_engine, "before_cursor_execute", note)
        # Only what holds in any schema: nothing naming this one (else the next schemas migrate too).
        if not any(str(database.schema) in f"{statement}{parameters}" for statement, parameters in noted):
            _made["postgresql"] = noted
        return
    async with database.engine.begin() as connection:
        driver = (await connection.get_raw_connection()).driver_connection
        script: list[str] = []
        for statement, parameters in [*sent, ("", ())]:
            if statement and not parameters:  # gathered, to go in one round trip
                script.append(statement)
                continue
            if script:
                await driver.execute(";\n".join(script))  # asyncpg: several statements, no parameters
                script.clear()
            if statement:
                await connection.exec_driver_sql(statement, parameters)


# ---- spare schemas (PostgreSQL) ---------------------------------------------------------------------
_spare: dict[str, list[str]] | None = None  # URL → emptied migrated schemas, while ``spares()`` is open


@contextlib.contextmanager
def spares() -> Iterator[None]:
    """Keep the migrated schemas tests are done with, emptied, for the next tests; drop them at the end."""
    global _spare  # noqa: PLW0603 - one pool for the process, as the template and the statements are
    _spare = {}
    try:
        yield
    finally:
        kept, _spare = _spare, None
        for url, schemas in kept.items():
            if schemas:
                asyncio.run(_admin(url, ";".join(f'DROP SCHEMA "{schema}" CASCADE' for schema in schemas)))


async def _emptied(database: ScratchDatabase) -> bool:
    """Empty a migrated schema a test is done with, on the test's own connections, and keep it spare;
    False (nothing kept) when no pool is open, the test changed its tables or its revision, or its
    connections fail (a test that ended the server's processes, say)."""
    schema, url = database.schema, database.url.render_as_string(hide_password=False)
    if _spare is None or schema is None:
        return False
    tables = [table.name for table in reversed(Base.metadata.sorted_tables)]  # children before parents
    try:
        async with database.engine.begin() as connection:
            found = dict((await connection.execute(text(
                "SELECT relname, relkind::text FROM pg_class JOIN pg_namespace ON pg_namespace.oid = relnamespace "
                "WHERE nspname = :schema AND relkind IN ('r', 'S')"), {"schema": schema})).all())
            if {name for name, kind in found.items() if kind == "r"} != {*tables, "alembic_version"}:
                return False
            revision = await connection.execute(text("SELECT version_num FROM alembic_version"))  # its search_path
            if [row[0] for row in revision] != [head_revision()]:
                return False
            driver = (await connection.get_raw_connection()).driver_connection
            await driver.execute(";\n".join([  # asyncpg: several statements, no parameters, one round trip
                *(f'DELETE FROM "{schema}"."{table}"' for table in tables),  # noqa: S608 - the models' names
                *(f'ALTER SEQUENCE "{schema}"."{name}" RESTART' for name, kind in found.items() if kind == "S"),
            ]))
    except Exception:  # whatever went wrong, the schema is dropped instead
        return False
    _spare.setdefault(url, []).append(schema)
    return True


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
