"""Column types shared by the tables."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

from bot.jsontext import dumps


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in and out, on every dialect.

    SQLite has no time-zone type: values are stored as naive UTC text, so that text comparisons
    (``next_attempt_at <= :now``) stay chronological, and get their UTC zone back when read.
    Naive datetimes are refused on the way in because their zone would be a guess.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is not UTC:  # most values are made in UTC already (``utcnow``)
            if value.tzinfo is None or value.utcoffset() is None:
                raise ValueError(f"naive datetime {value!r}: pass a timezone-aware datetime")
            value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def json_type(*, none_as_null: bool = False) -> TypeEngine[Any]:
    """JSON everywhere, JSONB on PostgreSQL (smaller, and indexable if a later issue needs it), written
    by the engine's serializer, ``storable_json`` (``bot.store.db``).

    ``none_as_null``: Python ``None`` is stored as SQL NULL (testable with ``IS NULL``), not JSON null.
    """
    return StorableJson(none_as_null=none_as_null)


_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
# In JSON written without ASCII escapes, a NUL is the escape ``\u0000`` and a lone surrogate is itself.
_NUL_IN_JSON = "\\u0000"


def storable_json(value: Any) -> str:
    """``value`` as JSON text, each NUL character and lone surrogate in its strings (keys too) replaced
    by U+FFFD.

    PostgreSQL's JSONB refuses both, and a person's text may hold them (a client's odd bytes, a
    terminal decoding with surrogateescape): one such message must not make a turn or an update
    fail again and again. SQLite would take them; they are replaced there too, so both behave alike.
    The text is written once and checked once (a lone surrogate is what UTF-8 cannot encode: the
    encoder finds it far sooner than a search would); the value is walked only when one is there.
    """
    text = dumps(value)
    if _NUL_IN_JSON not in text and _encodable(text):
        return text
    return dumps(_walk(value))


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        return _UNSTORABLE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_walk(key): _walk(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(item) for item in value]
    return value


class StorableJson(TypeDecorator[Any]):
    impl = JSON
    cache_ok = True

    def __init__(self, *, none_as_null: bool = False) -> None:
        super().__init__(none_as_null=none_as_null)
        self.none_as_null = none_as_null

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(postgresql.JSONB(none_as_null=self.none_as_null))
        return dialect.type_descriptor(JSON(none_as_null=self.none_as_null))
