"""Statement helpers that hide the few differences between SQLite and PostgreSQL."""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, CursorResult, Executable, Insert, Table, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from bot.store.models import Base

RowT = TypeVar("RowT", bound=Base)


def dialect_name(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


_CORE = "core connection"  # session.info key: (the transaction, its connection)


async def core_connection(session: AsyncSession) -> AsyncConnection:
    """The connection of the session's transaction, for statements that need nothing of the ORM (no
    objects loaded, none kept in sync): run on it, a statement skips the session's plumbing, a good
    part of what each statement of a turn costs. What the session holds unflushed is flushed first,
    as the session would before a statement of its own."""
    sync = session.sync_session
    if sync._new or sync._deleted or sync.identity_map._modified:
        await session.flush()
    transaction = sync.get_transaction()
    cached = session.info.get(_CORE)
    if cached is not None and transaction is not None and cached[0] is transaction:
        connection: AsyncConnection = cached[1]
        return connection
    connection = await session.connection()
    session.info[_CORE] = (sync.get_transaction(), connection)
    return connection


async def core_execute(
    session: AsyncSession, statement: Executable, parameters: dict[str, Any] | None = None,
) -> CursorResult[Any]:
    """``session.execute`` for a Core statement (on a table, or columns), in the session's transaction."""
    return await (await core_connection(session)).execute(statement, parameters)


async def execute_rowcount(
    session: AsyncSession, statement: Executable, parameters: dict[str, Any] | None = None,
) -> int:
    """Run an INSERT/UPDATE/DELETE and return how many rows it touched (the session's objects are
    not updated: the statements of the repositories never change what a session holds)."""
    return (await core_execute(session, statement, parameters)).rowcount


async def insert_ignore(session: AsyncSession, model: type[Base], values: dict[str, Any]) -> bool:
    """INSERT … ON CONFLICT DO NOTHING; True when the row was inserted.

    Race-safe on both dialects: a concurrent insert of the same key waits for the other transaction
    (PostgreSQL) or for the write lock (SQLite) and then does nothing, instead of failing and, on
    PostgreSQL, poisoning the caller's transaction.
    """
    table = model.metadata.tables[model.__tablename__]
    return await execute_rowcount(session, _insert_ignore(dialect_name(session), table), values) == 1


@functools.cache
def _insert_ignore(dialect: str, table: Table) -> Insert:
    # Built once per table, on the table rather than the mapped class, and given its values as
    # parameters: a new chat's first save no longer goes through the ORM's bulk-insert path or
    # builds and hashes a fresh statement.
    if dialect == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return sqlite.insert(table).on_conflict_do_nothing()


async def fetch_one(session: AsyncSession, model: type[RowT], *criteria: ColumnElement[bool]) -> RowT | None:
    """The row matching ``criteria``, read afresh even if the session holds an older copy of it
    (the bulk UPDATEs of the repositories do not refresh objects in the session)."""
    statement = select(model).where(*criteria).execution_options(populate_existing=True)
    return (await session.execute(statement)).scalar_one_or_none()
