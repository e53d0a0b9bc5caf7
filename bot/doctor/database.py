"""The database side of ``ispbot doctor``: reachable and at this code's migrations; and the tickets
the bot recorded, the evidence ``bot.doctor.isp`` reads the key's environment from.

The URL is never printed (it may hold a password): the dialect, and for SQLite the file, are.
A SQLite file that does not exist is reported rather than opened, which would create it empty.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from bot.doctor.report import Finding, fail, ok
from bot.store import Database
from bot.store.errors import DatabaseRevisionError, DatabaseUnreachableError
from bot.store.migrate import ensure_current, head_revision
from bot.store.models import ChatRow, HandoffRow
from bot.store.urls import is_memory_sqlite

FIX = "check ISPBOT_DATABASE_URL and that the database server is up"
EVIDENCE = 5  # tickets looked up in the ISP system for the key's environment


def missing_file(database: Database) -> Path | None:
    """The SQLite file the URL names, when it does not exist."""
    url = database.url
    if not database.is_sqlite or is_memory_sqlite(url) or url.database is None:
        return None
    path = Path(url.database)
    return None if path.exists() else path


async def check(database: Database) -> list[Finding]:
    dialect = database.dialect
    absent = missing_file(database)
    if absent is not None:
        where = "" if absent.is_absolute() else f" (in the working directory {Path.cwd()})"
        return [fail("database", f"sqlite: no file {absent}{where}: check ISPBOT_DATABASE_URL, or create it "
                                 "with `ispbot migrate`")]
    try:
        await ensure_current(database)
    except DatabaseUnreachableError as exc:  # the driver's text may carry the URL: only its kind here
        return [fail("database", f"{dialect}: cannot connect ({exc.kind}): {FIX}")]
    except DatabaseRevisionError as exc:
        return [fail("database", f"{dialect}: {exc}")]
    except Exception as exc:  # the driver's own errors: their text may carry the URL, so only the type
        return [fail("database", f"{dialect}: cannot connect ({type(exc).__name__}): {FIX}")]
    return [ok("database", f"{dialect}, migrated to {head_revision()}")]


async def recent_tickets(database: Database) -> list[int]:
    """Up to ``EVIDENCE`` distinct tickets the bot's conversations recorded, newest first."""
    async with database.session() as session:
        handoffs = await session.execute(
            select(HandoffRow.ticket_id).order_by(HandoffRow.id.desc()).limit(EVIDENCE),
        )
        chats = await session.execute(
            select(ChatRow.current_ticket).where(ChatRow.current_ticket.is_not(None))
            .order_by(ChatRow.updated_at.desc()).limit(EVIDENCE),
        )
        tickets = [*handoffs.scalars(), *chats.scalars()]
    return list(dict.fromkeys(t for t in tickets if t is not None))[:EVIDENCE]
