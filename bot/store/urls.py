"""Database URLs: the async driver is added when the operator gives a plain one."""

from __future__ import annotations

from sqlalchemy.engine import URL, make_url

DEFAULT_URL = "sqlite+aiosqlite:///ispbot.sqlite3"

_ASYNC_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    # Heroku-style and libpq-style spellings that operators paste from their providers.
    "postgres": "postgresql+asyncpg",
    "postgresql+psycopg2": "postgresql+asyncpg",
}


def async_url(url: str | URL) -> URL:
    """``sqlite:///x`` → ``sqlite+aiosqlite:///x``, ``postgresql://…`` → ``postgresql+asyncpg://…``."""
    parsed = make_url(url)
    driver = _ASYNC_DRIVERS.get(parsed.drivername)
    if driver is not None:
        parsed = parsed.set(drivername=driver)
    if parsed.drivername not in ("sqlite+aiosqlite", "postgresql+asyncpg"):
        raise ValueError(
            f"unsupported database URL scheme {parsed.drivername!r}: use sqlite:///FILE or postgresql://…"
        )
    return parsed


def is_memory_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")
