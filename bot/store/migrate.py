"""Programmatic Alembic: upgrade a database to the schema this code needs, or refuse to start on one
that is behind. Works from any working directory on the async URL the bot itself uses."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import sqlalchemy.exc
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import URL, Connection, make_url

from bot.store.db import Database
from bot.store.errors import DatabaseAheadError, DatabaseBehindError, DatabaseUnreachableError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
FIX = "run `ispbot migrate`"
MIGRATION_LOCK = 0x15B07_0001  # PostgreSQL advisory lock held while migrating (any number, ispbot's own)


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships its initial revision
        raise RuntimeError(f"no migrations found in {MIGRATIONS}")
    return head


@asynccontextmanager
async def _opened(target: str | URL | Database) -> AsyncIterator[Database]:
    """Use the caller's Database as is (its connect_args, e.g. a schema), or open one for this call."""
    if isinstance(target, Database):
        yield target
        return
    database = Database(target)
    try:
        yield database
    finally:
        await database.dispose()


async def upgrade(target: str | URL | Database, revision: str = "head") -> None:
    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, revision)

    async with _opened(target) as database, database.engine.begin() as connection:
        if database.dialect == "postgresql":
            # Processes started together (a scaled deployment, each migrating as it starts) take
            # turns: the later ones then find the schema current instead of creating it again.
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        await connection.run_sync(run)


def revision_of(connection: Connection) -> str | None:
    """The Alembic revision on this connection's database, None when it was never migrated."""
    return MigrationContext.configure(connection).get_current_revision()


async def current_revision(target: str | URL | Database) -> str | None:
    """The database's Alembic revision, None when it was never migrated."""
    async with _opened(target) as database, database.engine.connect() as connection:
        return await connection.run_sync(revision_of)


async def ensure_current(target: str | URL | Database) -> None:
    """Refuse to run on a database whose schema is not exactly this code's head revision, or that
    cannot be reached (``DatabaseUnreachableError``, in one line naming the setting)."""
    try:
        current = await current_revision(target)
    except (OSError, TimeoutError, sqlalchemy.exc.DBAPIError, sqlalchemy.exc.InterfaceError) as exc:
        cause = getattr(exc, "orig", None) or exc
        raise DatabaseUnreachableError(unreachable(target, exc), type(cause).__name__) from None
    head = head_revision()
    if current == head:
        return
    if current is None:
        raise DatabaseBehindError(f"the database has no ispbot schema yet (needs revision {head}): {FIX}")
    known = {script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
    if current not in known:
        raise DatabaseAheadError(
            f"the database is at revision {current}, unknown to this ispbot (head {head}): "
            "it was migrated by a newer version; run that version or restore a matching backup"
        )
    raise DatabaseBehindError(f"the database is at revision {current} but this ispbot needs {head}: {FIX}")


def unreachable(target: str | URL | Database, exc: BaseException) -> str:
    """One line on a database that cannot be reached: where the setting points (no password), and why."""
    url = target.engine.url if isinstance(target, Database) else make_url(target) if isinstance(target, str) else target
    where = url.render_as_string(hide_password=True)
    cause = getattr(exc, "orig", None) or exc
    words = str(cause).strip().splitlines()[0][:200] if str(cause).strip() else ""
    if url.password:
        words = words.replace(str(url.password), "***")
    reason = f"{type(cause).__name__}: {words}" if words else type(cause).__name__
    return (f"cannot reach the database of ISPBOT_DATABASE_URL ({where}): {reason}; check the URL, that the "
            "server runs and that it takes this user")
