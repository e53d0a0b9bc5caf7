"""Generation-1.0 ``Filtro``: a MySQL WHERE clause, evaluated for real over an in-memory SQLite view.

The clause is tokenised with MySQL's rules (backslash escapes in string literals, ``\\%``/``\\_``
kept for LIKE, ``''`` inside quotes, ``||``/``&&`` as logical operators) and parsed into a small
grammar. ``backslash_escapes=False`` reads it as a server in the ``NO_BACKSLASH_ESCAPES`` SQL mode
would: a backslash is an ordinary character in string literals, and a LIKE without ``ESCAPE`` has no
escape character at all. The SQL handed to SQLite is written by this module alone: names become our own quoted
columns, every literal becomes a bound parameter, and only whitelisted functions are called. Comments,
semicolons, subqueries, unknown names or functions and unbalanced quotes are refused with
``FilterRejected``. The connection is in-memory, ``query_only`` and behind an authorizer that allows
reading only, so nothing a filter says can change a record.

Comparisons follow MySQL's default collation: case- and accent-insensitive, trailing spaces ignored.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any


class FilterRejected(ValueError):
    pass


# ---- tokens ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Token:
    kind: str  # "str", "num", "name", "op", "end"
    text: str
    value: Any = None
    at: int = 0


_ESCAPES = {
    "0": "\0",
    "'": "'",
    '"': '"',
    "b": "\b",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "Z": "\x1a",
    "\\": "\\",
}
_NUMBER = re.compile(r"(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_OPERATORS = (
    "<=>",
    "<>",
    "!=",
    "<=",
    ">=",
    "&&",
    "||",
    "=",
    "<",
    ">",
    "(",
    ")",
    ",",
    "+",
    "-",
    "*",
    "/",
    "%",
    "!",
)


def _read_string(text: str, start: int, backslash_escapes: bool = True) -> tuple[str, int]:
    quote = text[start]
    out: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and backslash_escapes:
            if i + 1 >= len(text):
                break
            nxt = text[i + 1]
            # MySQL keeps the backslash of \% and \_ so that LIKE still sees them escaped.
            out.append("\\" + nxt if nxt in "%_" else _ESCAPES.get(nxt, nxt))
            i += 2
        elif ch == quote:
            if i + 1 < len(text) and text[i + 1] == quote:
                out.append(quote)
                i += 2
            else:
                return "".join(out), i + 1
        else:
            out.append(ch)
            i += 1
    raise FilterRejected(f"unterminated string starting at position {start}")


def _read_backquoted(text: str, start: int) -> tuple[str, int]:
    end = text.find("`", start + 1)
    if end < 0:
        raise FilterRejected(f"unterminated quoted name at position {start}")
    return text[start + 1 : end], end + 1


def tokenize(text: str, *, backslash_escapes: bool = True) -> list[Token]:  # noqa: PLR0912 - one branch per token kind / MySQL predicate form
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif (
            ch == "#"
            or text.startswith("/*", i)
            or (text.startswith("--", i) and (i + 2 == len(text) or text[i + 2].isspace()))
        ):
            raise FilterRejected(f"comments are not allowed (position {i})")
        elif ch == ";":
            raise FilterRejected("only one clause is allowed (';' found)")
        elif ch in "'\"":
            value, i2 = _read_string(text, i, backslash_escapes)
            tokens.append(Token("str", text[i:i2], value, i))
            i = i2
        elif ch == "`" or _NAME.match(text, i):
            i2 = i
            parts: list[str] = []
            while True:  # a name, possibly qualified: Atendimentos.Data_AB or `Atendimentos`.`Data_AB`
                if i2 < len(text) and text[i2] == "`":
                    part, i2 = _read_backquoted(text, i2)
                else:
                    match = _NAME.match(text, i2)
                    if match is None:
                        raise FilterRejected(f"name expected at position {i2}")
                    part, i2 = match.group(), match.end()
                parts.append(part)
                if (
                    i2 < len(text)
                    and text[i2] == "."
                    and i2 + 1 < len(text)
                    and (text[i2 + 1] == "`" or _NAME.match(text, i2 + 1))
                ):
                    i2 += 1
                    continue
                break
            tokens.append(Token("name", ".".join(parts), None, i))
            i = i2
        elif (match := _NUMBER.match(text, i)) is not None:
            raw = match.group()
            number: int | float = float(raw) if any(c in raw for c in ".eE") else int(raw)
            tokens.append(Token("num", raw, number, i))
            i = match.end()
        else:
            for op in _OPERATORS:
                if text.startswith(op, i):
                    tokens.append(Token("op", op, None, i))
                    i += len(op)
                    break
            else:
                raise FilterRejected(f"character {ch!r} is not allowed (position {i})")
    tokens.append(Token("end", "", None, len(text)))
    return tokens


# ---- functions ---------------------------------------------------------------------------------
def fold(value: str) -> str:
    """MySQL's general_ci comparison key: no case, no accents, no trailing spaces."""
    decomposed = unicodedata.normalize("NFKD", value)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold().rstrip(" ")


def _collate(a: str, b: str) -> int:
    fa, fb = fold(a), fold(b)
    return (fa > fb) - (fa < fb)


def _as_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def like(subject: Any, pattern: Any, escape: Any = "\\") -> int | None:
    if subject is None or pattern is None:
        return None
    esc = str(escape) if escape else ""
    regex: list[str] = []
    chars = fold(_as_text(pattern)) if not esc else _as_text(pattern)
    i = 0
    while i < len(chars):
        ch = chars[i]
        if esc and ch == esc and i + 1 < len(chars):
            regex.append(re.escape(fold(chars[i + 1]) or chars[i + 1]))
            i += 2
            continue
        regex.append(".*" if ch == "%" else "." if ch == "_" else re.escape(fold(ch) or ch))
        i += 1
    return int(re.fullmatch("".join(regex), fold(_as_text(subject)), re.DOTALL) is not None)


def _null_safe(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        return None if any(a is None for a in args) else fn(*args)

    return call


def _part(index: int) -> Callable[[Any], Any]:
    def get(value: Any) -> Any:
        try:
            return int(str(value)[:10].split("-")[index])
        except (ValueError, IndexError):
            return None

    return get


def _datediff(a: Any, b: Any) -> int | None:
    try:
        return (date.fromisoformat(str(a)[:10]) - date.fromisoformat(str(b)[:10])).days
    except ValueError:
        return None


#: MySQL name -> (SQL name registered or built into SQLite, accepted argument counts).
FUNCTIONS: dict[str, tuple[str, tuple[int, ...]]] = {
    "LOWER": ("sb_lower", (1,)),
    "LCASE": ("sb_lower", (1,)),
    "UPPER": ("sb_upper", (1,)),
    "UCASE": ("sb_upper", (1,)),
    "TRIM": ("trim", (1,)),
    "LTRIM": ("ltrim", (1,)),
    "RTRIM": ("rtrim", (1,)),
    "LENGTH": ("length", (1,)),
    "CHAR_LENGTH": ("length", (1,)),
    "CONCAT": ("sb_concat", tuple(range(1, 9))),
    "COALESCE": ("coalesce", tuple(range(2, 9))),
    "IFNULL": ("ifnull", (2,)),
    "SUBSTRING": ("substr", (2, 3)),
    "SUBSTR": ("substr", (2, 3)),
    "LEFT": ("sb_left", (2,)),
    "RIGHT": ("sb_right", (2,)),
    "DATE": ("sb_date", (1,)),
    "YEAR": ("sb_year", (1,)),
    "MONTH": ("sb_month", (1,)),
    "DAY": ("sb_day", (1,)),
    "DATEDIFF": ("sb_datediff", (2,)),
    "CURDATE": ("sb_curdate", (0,)),
    "CURRENT_DATE": ("sb_curdate", (0,)),
    "NOW": ("sb_now", (0,)),
    "CURRENT_TIMESTAMP": ("sb_now", (0,)),
    "ABS": ("abs", (1,)),
    "ROUND": ("round", (1, 2)),
}

_KEYWORDS = {
    "AND",
    "OR",
    "NOT",
    "IN",
    "BETWEEN",
    "LIKE",
    "ESCAPE",
    "IS",
    "NULL",
    "TRUE",
    "FALSE",
    "DIV",
    "MOD",
}
_COMPARE = {"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "<=>": "IS"}


# ---- parser ------------------------------------------------------------------------------------
class _Parser:
    """Recursive descent over MySQL's expression grammar; writes SQLite SQL and its parameters."""

    def __init__(self, tokens: list[Token], columns: dict[str, str], like_escape: str) -> None:
        self.tokens = tokens
        self.like_escape = like_escape
        self.pos = 0
        self.columns = columns
        self.params: list[Any] = []

    # token helpers
    def peek(self) -> Token:
        return self.tokens[self.pos]

    def keyword(self, *words: str) -> bool:
        tok = self.peek()
        return tok.kind == "name" and tok.text.upper() in words

    def op(self, *ops: str) -> bool:
        tok = self.peek()
        return tok.kind == "op" and tok.text in ops

    def take(self) -> Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect_op(self, op: str) -> None:
        if not self.op(op):
            raise self.error(f"'{op}' expected")
        self.take()

    def expect_keyword(self, word: str) -> None:
        if not self.keyword(word):
            raise self.error(f"{word} expected")
        self.take()

    def error(self, message: str) -> FilterRejected:
        tok = self.peek()
        found = tok.text or "end of clause"
        return FilterRejected(f"{message} at position {tok.at} (found {found!r})")

    def bind(self, value: Any) -> str:
        self.params.append(value)
        return "?"

    # grammar
    def parse(self) -> str:
        sql = self.disjunction()
        if self.peek().kind != "end":
            raise self.error("unexpected text")
        return sql

    def disjunction(self) -> str:
        sql = self.conjunction()
        while self.keyword("OR") or self.op("||"):
            self.take()
            sql = f"({sql} OR {self.conjunction()})"
        return sql

    def conjunction(self) -> str:
        sql = self.negation()
        while self.keyword("AND") or self.op("&&"):
            self.take()
            sql = f"({sql} AND {self.negation()})"
        return sql

    def negation(self) -> str:
        if self.keyword("NOT") or self.op("!"):
            self.take()
            return f"(NOT {self.negation()})"
        return self.predicate()

    def predicate(self) -> str:  # noqa: PLR0912, PLR0915 - one branch per MySQL predicate form
        left = self.arithmetic()
        while True:
            if self.op(*_COMPARE):
                operator = _COMPARE[self.take().text]
                left = f"({left} {operator} {self.arithmetic()})"
                continue
            if self.keyword("IS"):
                self.take()
                negated = self.keyword("NOT") and bool(self.take())
                if self.keyword("NULL"):
                    self.take()
                    left = f"({left} IS {'NOT ' if negated else ''}NULL)"
                elif self.keyword("TRUE", "FALSE"):
                    truth = self.take().text.upper() == "TRUE"
                    test = f"(coalesce({left}, 0) <> 0)" if truth else f"(coalesce({left}, 1) = 0)"
                    left = f"(NOT {test})" if negated else test
                else:
                    raise self.error("NULL, TRUE or FALSE expected after IS")
                continue
            negated = False
            if (
                self.keyword("NOT")
                and self.tokens[self.pos + 1].kind == "name"
                and self.tokens[self.pos + 1].text.upper() in ("IN", "BETWEEN", "LIKE")
            ):
                self.take()
                negated = True
            if self.keyword("IN"):
                self.take()
                self.expect_op("(")
                items = [self.arithmetic()]
                while self.op(","):
                    self.take()
                    items.append(self.arithmetic())
                self.expect_op(")")
                left = f"({left} {'NOT ' if negated else ''}IN ({', '.join(items)}))"
            elif self.keyword("BETWEEN"):
                self.take()
                low = self.arithmetic()
                self.expect_keyword("AND")
                high = self.arithmetic()
                left = f"({left} {'NOT ' if negated else ''}BETWEEN {low} AND {high})"
            elif self.keyword("LIKE"):
                self.take()
                pattern = self.arithmetic()
                escape = self.bind(self.like_escape)
                if self.keyword("ESCAPE"):
                    self.take()
                    tok = self.take()
                    if tok.kind != "str" or len(tok.value) > 1:
                        raise self.error("ESCAPE takes a one-character string")
                    self.params[-1] = tok.value
                test = f"sb_like({left}, {pattern}, {escape})"
                left = f"(NOT {test})" if negated else f"({test})"
            elif negated:
                raise self.error("IN, BETWEEN or LIKE expected after NOT")
            else:
                return left

    def arithmetic(self) -> str:
        sql = self.term()
        while self.op("+", "-"):
            operator = self.take().text
            sql = f"({sql} {operator} {self.term()})"
        return sql

    def term(self) -> str:
        sql = self.unary()
        while self.op("*", "/", "%") or self.keyword("DIV", "MOD"):
            word = self.take().text.upper()
            right = self.unary()
            if word == "/":
                sql = f"({sql} * 1.0 / {right})"
            elif word == "DIV":
                sql = f"CAST({sql} / {right} AS INTEGER)"
            else:
                sql = f"({sql} {'%' if word in ('%', 'MOD') else '*'} {right})"
        return sql

    def unary(self) -> str:
        if self.op("-", "+"):
            sign = self.take().text
            return f"({sign}{self.unary()})"
        return self.primary()

    def primary(self) -> str:
        tok = self.peek()
        if tok.kind in ("str", "num"):
            self.take()
            return self.bind(tok.value)
        if self.op("("):
            self.take()
            if self.keyword("SELECT"):
                raise self.error("subqueries are not allowed")
            inner = self.disjunction()
            self.expect_op(")")
            return f"({inner})"
        if tok.kind == "name":
            upper = tok.text.upper()
            if upper == "NULL":
                self.take()
                return "NULL"
            if upper in ("TRUE", "FALSE"):
                self.take()
                return "1" if upper == "TRUE" else "0"
            if self.tokens[self.pos + 1].kind == "op" and self.tokens[self.pos + 1].text == "(":
                return self.function()
            if upper in _KEYWORDS:
                raise self.error("a value was expected")
            column = self.columns.get(tok.text) or self.columns.get(tok.text.casefold())
            if column is None:
                raise FilterRejected(f"unknown name {tok.text!r} for this query")
            self.take()
            return column
        raise self.error("a value was expected")

    def function(self) -> str:
        name = self.take().text.upper()
        if name not in FUNCTIONS:
            raise FilterRejected(f"function {name} is not allowed")
        sql_name, arities = FUNCTIONS[name]
        self.expect_op("(")
        args: list[str] = []
        if not self.op(")"):
            args.append(self.disjunction())
            while self.op(","):
                self.take()
                args.append(self.disjunction())
        self.expect_op(")")
        if len(args) not in arities:
            raise FilterRejected(f"function {name} takes {'/'.join(map(str, arities))} argument(s)")
        return f"{sql_name}({', '.join(args)})"


@dataclass(frozen=True)
class Compiled:
    sql: str
    params: tuple[Any, ...]


def compile_filter(clause: str, names: Iterable[str], *, backslash_escapes: bool = True) -> Compiled:
    """The SQLite WHERE for ``clause``; ``names`` are the names the query accepts, in column order.
    ``backslash_escapes=False``: MySQL's ``NO_BACKSLASH_ESCAPES`` SQL mode."""
    ordered = list(names)
    columns: dict[str, str] = {}
    for index, name in enumerate(ordered):
        columns.setdefault(name, f'"c{index}"')
        columns.setdefault(name.casefold(), f'"c{index}"')  # MySQL column names are case-insensitive
    tokens = tokenize(clause, backslash_escapes=backslash_escapes)
    parser = _Parser(tokens, columns, "\\" if backslash_escapes else "")
    return Compiled(parser.parse(), tuple(parser.params))


# ---- evaluation --------------------------------------------------------------------------------
_READ_ONLY_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION}


def _authorize(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_OK if action in _READ_ONLY_ACTIONS else sqlite3.SQLITE_DENY


def _cell(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return value


def affinity(values: Iterable[Any]) -> str:
    """A column's type in the table a clause is evaluated on, from all its values: numeric only where
    every value is a number."""
    present = [v for v in values if v is not None]
    numeric = bool(present) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present)
    return "NUMERIC" if numeric else "TEXT COLLATE MYSQL_CI"


def select(
    rows: Sequence[dict[str, Any]], names: Sequence[str], clause: str, now: datetime, *,
    backslash_escapes: bool = True, affinities: Mapping[str, str] | None = None,
) -> list[int]:
    """Indexes of the rows the clause keeps. Raises FilterRejected for a clause the sandbox refuses.
    ``affinities``: a column's, where ``rows`` are part of a table (``Narrowing``) whose values decide it."""
    compiled = compile_filter(clause, names, backslash_escapes=backslash_escapes)
    affinities = affinities or {}
    narrow = Narrowing.of(clause, names, backslash_escapes=backslash_escapes)
    if narrow is None:
        return _evaluated(rows, names, affinities, compiled, now)
    indexes = [i for i, row in enumerate(rows) if narrow.may_match(row)]
    # The columns the clause names keep the affinity all the rows give them: its comparisons are the whole table's.
    whole = {column: affinities.get(column) or affinity(r.get(column) for r in rows) for column in narrow.named}
    kept = _evaluated([rows[i] for i in indexes], names, {**affinities, **whole}, compiled, now)
    return [indexes[i] for i in kept]


# Words and operators that may turn a comparison's truth around or group it otherwise: a clause with
# any of them is not narrowed (``Narrowing``), whatever its shape.
_UNNARROWED = frozenset({"OR", "XOR", "NOT", "BETWEEN", "CASE", "IS", "||", "!"})


def _joins(token: Token) -> bool:
    return token.text.upper() in ("AND", "&&")


def _groups(tokens: Sequence[Token]) -> dict[int, int]:
    """Each opening parenthesis's index, with its closing one's."""
    opened: list[int] = []
    pairs: dict[int, int] = {}
    for index, token in enumerate(tokens):
        if token.kind == "op" and token.text == "(":
            opened.append(index)
        elif token.kind == "op" and token.text == ")" and opened:
            pairs[opened.pop()] = index
    return pairs


@dataclass(frozen=True)
class Condition:
    """A column equal to one of some literals: the literals as numbers and as folded text."""

    column: str
    numbers: frozenset[float]
    texts: frozenset[str]

    def may_match(self, row: Mapping[str, Any]) -> bool:
        """False only where the row's value surely equals none of the literals (a NULL equals nothing)."""
        value = row.get(self.column)
        if value is None:
            return False
        if isinstance(value, int | float):  # booleans too: stored as 0 and 1
            return float(value) in self.numbers or bool(self.texts)
        if isinstance(value, str):
            if fold(value) in self.texts:
                return True
            try:
                return float(value) in self.numbers
            except ValueError:
                return False
        return True  # a list or an object, compared as its JSON: left to the clause


@dataclass(frozen=True)
class Narrowing:
    """The conditions a clause that is a conjunction sets on columns (``Codigo = 12``, ``Cliente IN
    (1, 2) AND Tipo = 'C'``: how the bot asks for one customer or a page of them), and a check of a row
    that never leaves out one the clause keeps. A server answers those from an index: without it a
    query for one customer among 10,000 would cost the sandbox its whole table; the clause is still
    evaluated on what is left."""

    conditions: tuple[Condition, ...]
    named: frozenset[str]  # every column the clause names: evaluated on part of a table, they keep its affinity

    @classmethod
    def of(cls, clause: str, names: Sequence[str], *, backslash_escapes: bool = True) -> Narrowing | None:
        tokens = tokenize(clause, backslash_escapes=backslash_escapes)
        if any(t.text.upper() in _UNNARROWED for t in tokens if t.kind in ("name", "op")):
            return None
        columns: dict[str, str] = {}
        for name in names:  # resolved as ``compile_filter`` resolves it
            columns.setdefault(name, name)
            columns.setdefault(name.casefold(), name)
        groups = _groups(tokens)
        conditions = []
        for start in range(len(tokens)):
            found = _comparison(tokens, start)
            if found is None or not _in_conjunction(tokens, groups, start, found[0]):
                continue
            values = found[1]
            column = columns.get(tokens[start].text) or columns.get(tokens[start].text.casefold())
            if column is None:
                continue
            texts = {fold(t.value) for t in values if t.kind == "str"}
            numbers = {float(t.value) for t in values if t.kind == "num"}
            for text in texts:  # a numeric column compares '12' as 12
                with contextlib.suppress(ValueError):
                    numbers.add(float(text))
            conditions.append(Condition(column, frozenset(numbers), frozenset(texts)))
        named = {columns.get(t.text) or columns.get(t.text.casefold()) for t in tokens if t.kind == "name"}
        return cls(tuple(conditions), frozenset(n for n in named if n is not None)) if conditions else None

    def only(self, columns: Collection[str]) -> Narrowing | None:
        """The conditions on these columns alone (a view's own fields), if any."""
        kept = tuple(c for c in self.conditions if c.column in columns)
        return Narrowing(kept, self.named) if kept else None

    def may_match(self, row: Mapping[str, Any]) -> bool:
        return all(condition.may_match(row) for condition in self.conditions)


def _comparison(tokens: Sequence[Token], start: int) -> tuple[int, list[Token]] | None:
    """``name = literal`` or ``name IN (literal, ...)`` from ``start``: where it ends, and its literals."""
    head = tokens[start:start + 3]
    if len(head) < 3 or head[0].kind != "name":
        return None
    if head[1].kind == "op" and head[1].text == "=" and head[2].kind in ("num", "str"):
        return start + 3, [head[2]]
    if head[1].kind != "name" or head[1].text.upper() != "IN" or head[2].text != "(":
        return None
    values: list[Token] = []
    index = start + 3
    while index + 1 < len(tokens) and tokens[index].kind in ("num", "str"):
        values.append(tokens[index])
        if tokens[index + 1].text == ")":
            return index + 2, values
        if tokens[index + 1].text != ",":
            return None
        index += 2
    return None


def _in_conjunction(tokens: Sequence[Token], groups: dict[int, int], start: int, end: int) -> bool:
    """Whether tokens ``start:end`` are a term of the clause's conjunction: joined by AND to the rest
    of every parenthesised group holding them, each group a term of the one around it, up to the
    whole clause (no function's argument, no operand of a comparison)."""
    while True:
        before, after = tokens[start - 1] if start else None, tokens[end]
        opens = before is None or _joins(before) or before.text == "("
        closes = after.kind == "end" or _joins(after) or after.text == ")"
        if not (opens and closes):
            return False
        if before is None and after.kind == "end":
            return True
        enclosing = [(o, c) for o, c in groups.items() if o < start and c >= end]
        if not enclosing:
            return before is None or _joins(before)
        opening, closing = max(enclosing)  # the innermost
        if start != opening + 1 and not _joins(tokens[start - 1]):
            return False
        if opening and tokens[opening - 1].kind == "name" and not _joins(tokens[opening - 1]):
            return False  # a function's parentheses (or IN's list)
        start, end = opening, closing + 1


def _evaluated(
    rows: Sequence[dict[str, Any]], names: Sequence[str], affinities: Mapping[str, str], compiled: Compiled,
    now: datetime,
) -> list[int]:
    conn = sqlite3.connect(":memory:")
    try:
        conn.create_collation("MYSQL_CI", _collate)
        for sql_name, arity, fn in (
            ("sb_like", 3, like),
            ("sb_lower", 1, _null_safe(lambda s: _as_text(s).lower())),
            ("sb_upper", 1, _null_safe(lambda s: _as_text(s).upper())),
            ("sb_left", 2, _null_safe(lambda s, n: _as_text(s)[: max(int(n), 0)])),
            ("sb_right", 2, _null_safe(lambda s, n: _as_text(s)[-int(n) :] if int(n) > 0 else "")),
            ("sb_date", 1, _null_safe(lambda s: _as_text(s)[:10])),
            ("sb_year", 1, _null_safe(_part(0))),
            ("sb_month", 1, _null_safe(_part(1))),
            ("sb_day", 1, _null_safe(_part(2))),
            ("sb_datediff", 2, _null_safe(_datediff)),
            ("sb_curdate", 0, lambda: now.date().isoformat()),
            ("sb_now", 0, lambda: now.strftime("%Y-%m-%d %H:%M:%S")),
        ):
            conn.create_function(sql_name, arity, fn, deterministic=True)
        conn.create_function("sb_concat", -1, _null_safe(lambda *a: "".join(_as_text(x) for x in a)))
        definition = ", ".join(
            f'"c{i}" {affinities.get(n) or affinity(r.get(n) for r in rows)}' for i, n in enumerate(names)
        )
        conn.execute(f"CREATE TABLE v ({definition})")
        marks = ", ".join("?" for _ in names)
        conn.executemany(
            f"INSERT INTO v VALUES ({marks})",  # noqa: S608
            ([_cell(r.get(n)) for n in names] for r in rows),
        )
        conn.execute("PRAGMA query_only = ON")
        conn.set_authorizer(_authorize)
        try:
            found = conn.execute(
                f"SELECT rowid FROM v WHERE {compiled.sql}",  # noqa: S608 - built above
                compiled.params,
            ).fetchall()
        except sqlite3.Error as exc:
            raise FilterRejected(f"the clause cannot be evaluated: {exc}") from None
        return sorted(int(r[0]) - 1 for r in found)
    finally:
        conn.close()
