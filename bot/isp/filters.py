r"""A small builder for the ``Filtro`` of generation-1.0 queries: a MySQL WHERE clause.

No value ever becomes SQL syntax, whatever the server's SQL mode: we cannot know whether the ISP's
server runs MySQL's default mode (a backslash escapes the next character) or ``NO_BACKSLASH_ESCAPES``
(a backslash is an ordinary character), so strings are written to read the same under both
(``_quoted`` says how), and so are LIKE patterns (``_like_literal``). Numbers and dates are checked
before they are written. Field names come from code, are checked against a plain-identifier shape
here, and against the query's own filter names by the catalog before a request leaves.

    where = (F("Designacao_Usuario") == user) & F("Situacao_OS").in_(["F", "A", "E"])
    tickets = await client.ConsultaAtendimentos(where)

``unsafe_raw_filter`` is the only way to send a hand-written clause; it is named so on purpose and
must never see a person's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from bot.isp.errors import FilterError

Value = str | int | Decimal | date | datetime

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?")
#: Characters no quoting can write the same way under both SQL modes (see ``_quoted``).
_UNQUOTABLE = {"\\": "a backslash", "\0": "a NUL character"}
_LIKE_ESCAPE = "!"
_LIKE_SPECIAL = re.compile("[!%_]")


def quotable(text: str) -> bool:
    """Whether ``text`` can be a filter value; a person's text that cannot matches nothing anyway."""
    return not any(ch in text for ch in _UNQUOTABLE)


def _quoted(text: str) -> str:
    r"""The inside of a string literal that MySQL reads the same under both SQL modes.

    - a quote is doubled (``''``), which both modes read as one quote;
    - a backslash is refused (``FilterError``): no spelling of it means the same in both modes. Left
      alone, a value ending in a backslash, or holding ``\'``, lets the literal run on past its end under
      the default mode (the backslash eats a quote meant to close or double); doubled (``\\``), it
      stays inside the literal in both modes but means two backslashes under ``NO_BACKSLASH_ESCAPES``,
      so ``a\b`` would match the login ``a\\b``: another person. NUL is refused for the same reason
      (``\0`` is NUL in one mode, two characters in the other; a raw NUL may cut the request short);
    - every other character, newlines and ``"`` included, is written as it is: neither mode gives it
      a meaning inside single quotes.
    """
    for ch, what in _UNQUOTABLE.items():
        if ch in text:
            raise FilterError(f"a filter value cannot contain {what}: MySQL reads it differently by SQL mode")
    return text.replace("'", "''")


def quote(value: Value) -> str:
    """The MySQL literal for ``value``."""
    if isinstance(value, bool):
        raise FilterError("a filter value cannot be a boolean; use the spec's code (S/N, A/I)")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise FilterError("a filter value must be a finite number")
        return format(value, "f")
    if isinstance(value, datetime):
        return "'" + value.strftime("%Y-%m-%d %H:%M:%S") + "'"
    if isinstance(value, date):
        return "'" + value.isoformat() + "'"
    if isinstance(value, str):
        return "'" + _quoted(value) + "'"
    raise FilterError(f"a filter value cannot be a {type(value).__name__}")


def _like_literal(prefix: str, text: str, suffix: str) -> str:
    r"""``contains``, ``startswith`` and ``endswith`` escape ``%`` and ``_`` with ``!`` and say so with
    ``ESCAPE '!'``: without that clause LIKE's escape character is a backslash under the default mode
    and none at all under ``NO_BACKSLASH_ESCAPES``, where ``\%`` would be a wildcard again."""
    if not isinstance(text, str):
        raise FilterError("a LIKE pattern must be text")
    pattern = _LIKE_SPECIAL.sub(lambda m: _LIKE_ESCAPE + m.group(), text)
    return f"'{prefix}{_quoted(pattern)}{suffix}' ESCAPE '{_LIKE_ESCAPE}'"


class Filter:
    """A boolean expression; combine with ``&``, ``|`` and ``~``."""

    @property
    def unsafe(self) -> bool:
        """True when a raw clause is inside: its names cannot be checked."""
        return False

    def render(self) -> str:
        raise NotImplementedError  # pragma: no cover - every subclass renders

    def fields(self) -> frozenset[str]:
        raise NotImplementedError  # pragma: no cover

    def __and__(self, other: Filter) -> Filter:
        return _Join("AND", self, other)

    def __or__(self, other: Filter) -> Filter:
        return _Join("OR", self, other)

    def __invert__(self) -> Filter:
        return _Not(self)

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True, eq=False)
class _Clause(Filter):
    field: str
    sql: str  # already quoted: built only by ``Field``

    def render(self) -> str:
        return f"{self.field} {self.sql}"

    def fields(self) -> frozenset[str]:
        return frozenset({self.field})


@dataclass(frozen=True, eq=False)
class _Join(Filter):
    op: str
    left: Filter
    right: Filter

    def render(self) -> str:
        return f"({self.left.render()} {self.op} {self.right.render()})"

    def fields(self) -> frozenset[str]:
        return self.left.fields() | self.right.fields()

    @property
    def unsafe(self) -> bool:
        return self.left.unsafe or self.right.unsafe


@dataclass(frozen=True, eq=False)
class _Not(Filter):
    inner: Filter

    def render(self) -> str:
        return f"(NOT {self.inner.render()})"

    def fields(self) -> frozenset[str]:
        return self.inner.fields()

    @property
    def unsafe(self) -> bool:
        return self.inner.unsafe


@dataclass(frozen=True, eq=False)
class _Raw(Filter):
    clause: str

    @property
    def unsafe(self) -> bool:
        return True

    def render(self) -> str:
        return f"({self.clause})"

    def fields(self) -> frozenset[str]:
        return frozenset()


class Field:
    """A filter name of a query; its comparison operators build clauses."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        if not _IDENT.fullmatch(name):
            raise FilterError(f"{name!r} is not a filter name", field=name)
        self.name = name

    def _cmp(self, op: str, value: Value) -> Filter:
        return _Clause(self.name, f"{op} {quote(value)}")

    def __eq__(self, value: Value) -> Filter:  # type: ignore[override]
        return self._cmp("=", value)

    def __ne__(self, value: Value) -> Filter:  # type: ignore[override]
        return self._cmp("<>", value)

    def __lt__(self, value: Value) -> Filter:
        return self._cmp("<", value)

    def __le__(self, value: Value) -> Filter:
        return self._cmp("<=", value)

    def __gt__(self, value: Value) -> Filter:
        return self._cmp(">", value)

    def __ge__(self, value: Value) -> Filter:
        return self._cmp(">=", value)

    __hash__ = None  # type: ignore[assignment]

    def in_(self, values: Iterable[Value]) -> Filter:
        items = list(values)
        if not items:
            raise FilterError(f"IN on {self.name} needs at least one value", field=self.name)
        return _Clause(self.name, "IN (" + ", ".join(quote(v) for v in items) + ")")

    def between(self, low: Value, high: Value) -> Filter:
        return _Clause(self.name, f"BETWEEN {quote(low)} AND {quote(high)}")

    def is_null(self) -> Filter:
        return _Clause(self.name, "IS NULL")

    def is_not_null(self) -> Filter:
        return _Clause(self.name, "IS NOT NULL")

    def contains(self, text: str) -> Filter:
        return _Clause(self.name, "LIKE " + _like_literal("%", text, "%"))

    def startswith(self, text: str) -> Filter:
        return _Clause(self.name, "LIKE " + _like_literal("", text, "%"))

    def endswith(self, text: str) -> Filter:
        return _Clause(self.name, "LIKE " + _like_literal("%", text, ""))

    def like(self, pattern: str) -> Filter:
        """A LIKE whose ``%`` and ``_`` are wildcards: for patterns written in code, never a
        person's text (use ``contains``/``startswith`` for that)."""
        return _Clause(self.name, "LIKE " + quote(pattern))


def F(name: str) -> Field:  # noqa: N802 - reads like SQL: F("Nome") == "x"
    return Field(name)


def unsafe_raw_filter(clause: str) -> Filter:
    """A hand-written WHERE clause sent as is. UNSAFE: never put a person's text in it."""
    return _Raw(clause)
