"""The statements every turn runs, on the driver itself, inside the session's transaction.

SQLAlchemy's execution path (cache lookup, execution context, parameters, result objects) costs far
more than these statements do: a read of one row by key, or an update of one. A ``Direct`` statement
is compiled by SQLAlchemy once per dialect and set of parameters, and its values go in and come out
through SQLAlchemy's own conversions of each column type, so it stores and reads exactly what the
same statement would through SQLAlchemy; only the plumbing between is skipped (``bench/RESULTS.md``).

The transaction stays the session's. SQLite: the write gate (``bot.store.write_gate``) is taken before
the first write, as for any write, and pysqlite begins the transaction there. asyncpg: the transaction
SQLAlchemy begins at its first statement is begun here if it was not yet, except for a statement made
with ``alone=True``, which runs on its own when no transaction is open (a round trip less for BEGIN and
one for COMMIT; see ``ChatStates.load_for_turn``). Errors are the driver's, translated as SQLAlchemy's
adapter translates them.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine.interfaces import Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql import ClauseElement

from bot.store.inline_sqlite import InlineConnection
from bot.store.sql import core_connection
from bot.store.write_gate import WriteGate


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # the parameters, in the order the driver takes them
    carried: dict[str, Any]  # values the statement holds itself (a literal state, say)
    bind: tuple[Any, ...]  # SQLAlchemy's conversion of each parameter on the way in (or None)
    row: Any  # a named tuple of the result's columns, or None
    result: tuple[Any, ...]  # SQLAlchemy's conversion of each result column on the way out (or None)
    writes: bool


class Direct:
    """``Direct(statement)``: a Core statement without expanding (``IN``) or literal-execute parameters.
    ``alone``: on PostgreSQL, outside a transaction when none is open yet (one statement is atomic)."""

    def __init__(self, statement: ClauseElement, *, alone: bool = False) -> None:
        self.statement = statement
        self.alone = alone
        self._compiled: dict[tuple[str, frozenset[str]], _Compiled] = {}

    async def rows(self, session: AsyncSession, parameters: dict[str, Any]) -> list[Any]:
        """The rows, as named tuples (``row.column``)."""
        return (await self._run(session, parameters, want_rows=True))[0]

    async def rowcount(self, session: AsyncSession, parameters: dict[str, Any]) -> int:
        """How many rows an INSERT, UPDATE or DELETE touched."""
        return (await self._run(session, parameters, want_rows=False))[1]

    async def _run(
        self, session: AsyncSession, parameters: dict[str, Any], *, want_rows: bool,
    ) -> tuple[list[Any], int]:
        raw = await _raw_connection(session)
        bind = session.get_bind()
        dialect = bind.dialect
        key = (dialect.name, frozenset(parameters))
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = self._compile(dialect, parameters)
        values = []
        for name, convert in zip(compiled.names, compiled.bind, strict=True):
            value = parameters[name] if name in parameters else compiled.carried[name]
            values.append(value if convert is None else convert(value))
        if dialect.name == "sqlite":
            records, count = await _sqlite(bind, raw, compiled, values)
        else:
            records, count = await _asyncpg(raw, compiled, values, want_rows, begin=not self.alone)
        if not want_rows or compiled.row is None:
            return [], count
        return [
            compiled.row._make(
                value if convert is None or value is None else convert(value)
                for value, convert in zip(record, compiled.result, strict=True)
            )
            for record in records
        ], count

    def _compile(self, dialect: Dialect, parameters: dict[str, Any]) -> _Compiled:
        compiled: Any = self.statement.compile(dialect=dialect, column_keys=sorted(parameters))
        if compiled.positiontup is None:
            raise ValueError(f"{dialect.name}: a positional parameter style was expected")
        binds = {name: bind for bind, name in compiled.bind_names.items()}
        if any(bind.expanding or bind.literal_execute for bind in binds.values()):
            raise ValueError("expanding and literal-execute parameters are not supported")
        if getattr(compiled, "insert_prefetch", None) or getattr(compiled, "update_prefetch", None):
            raise ValueError("column defaults computed at execution are not supported: pass every value")
        names = tuple(compiled.positiontup)
        if unused := set(parameters) - set(names):
            # A value the statement has no place for would be dropped without a word (a column added
            # to what a turn saves but not to the statement's SET, say).
            raise ValueError(f"parameters the statement does not take: {sorted(unused)}")
        processors = compiled._bind_processors
        columns = compiled._result_columns or []
        return _Compiled(
            sql=compiled.string, names=names,
            carried={name: binds[name].effective_value for name in names if name not in parameters},
            bind=tuple(processors.get(name) for name in names),
            row=namedtuple("Row", [column.keyname for column in columns]) if columns else None,
            result=tuple(column.type._cached_result_processor(dialect, None) for column in columns),
            writes=bool(compiled.isinsert or compiled.isupdate or compiled.isdelete),
        )


async def begun(session: AsyncSession) -> bool:
    """Whether the session's transaction has begun on the server: always on SQLite, where it is the
    driver's; on asyncpg once a statement other than an ``alone`` one ran."""
    if session.get_bind().dialect.name != "postgresql":
        return True
    return bool((await _raw_connection(session)).dbapi_connection._transaction is not None)


async def _raw_connection(session: AsyncSession) -> Any:
    """The pooled DBAPI connection (SQLAlchemy's adapter over the driver) of the session's transaction."""
    sync_connection = (await core_connection(session)).sync_connection
    assert sync_connection is not None  # noqa: S101 - the connection of a begun transaction is started
    return sync_connection.connection


async def _sqlite(bind: Any, raw: Any, compiled: _Compiled, values: list[Any]) -> tuple[list[Any], int]:
    if compiled.writes:
        gate = WriteGate.of(bind)
        if gate is not None:
            await gate.hold(raw.info)
    # The inline connection (``bot.store.inline_sqlite``) runs sqlite3 in this thread: call it as is.
    connection = raw.driver_connection
    if not isinstance(connection, InlineConnection):  # aiosqlite's own would be used from its thread
        raise TypeError("SQLite on the driver needs the inline connection of bot.store.inline_sqlite")
    cursor = connection._conn.execute(compiled.sql, values)
    try:
        return (cursor.fetchall() if cursor.description else []), cursor.rowcount
    finally:
        cursor.close()


async def _asyncpg(
    raw: Any, compiled: _Compiled, values: list[Any], want_rows: bool, *, begin: bool,
) -> tuple[list[Any], int]:
    adapted = raw.dbapi_connection
    async with adapted._execute_mutex:
        if adapted._transaction is None and begin:
            await adapted._start_transaction()
        try:
            if want_rows and compiled.row is not None:
                records = await adapted._connection.fetch(compiled.sql, *values)
                return records, len(records)
            status = await adapted._connection.execute(compiled.sql, *values)
        except Exception as error:
            adapted._handle_exception(error)
            raise
    count = status.rsplit(" ", 1)[-1]
    return [], int(count) if count.isdecimal() else -1
