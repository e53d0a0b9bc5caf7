"""Statement helpers that hide the few differences between SQLite and PostgreSQL."""

from __future__ import annotations

import functools
from typing import Any, TypeVar, cast

from sqlalchemy import ColumnElement, CursorResult, Executable, Insert, Table, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import Base

RowT = TypeVar("RowT", bound=Base)


def dialect_name(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


async def execute_rowcount(
    session: AsyncSession, statement: Executable, parameters: dict[str, Any] | None = None,
) -> int:
    """Run an INSERT/UPDATE/DELETE and return how many rows it touched."""
    result = await session.execute(statement, parameters, execution_options={"synchronize_session": False})
    return cast(CursorResult[Any], result).rowcount


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
