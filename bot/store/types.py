"""Column types shared by the tables."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine


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
    """JSON everywhere, JSONB on PostgreSQL (smaller, and indexable if a later issue needs it).

    ``none_as_null``: Python ``None`` is stored as SQL NULL (testable with ``IS NULL``), not JSON null.
    """
    return JSON(none_as_null=none_as_null).with_variant(postgresql.JSONB(none_as_null=none_as_null), "postgresql")
