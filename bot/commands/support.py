"""What the ``ispbot`` commands share: one-line refusals with their exit codes, settings errors that
name the variable, the usage fallback of a command group, and the one database seam (``open_database``,
``store``: a database that must be at this code's migrations).

Every command reads its settings the same way: the process environment over ``.env`` in the working
folder, through the settings classes (``BotSettings``, ``IspSettings``, ``TelegramSettings``); every
missing or wrong variable of every class it needs is reported at once, one line each. Importing this
module loads nothing heavy (``ispbot --help`` must stay quick): pydantic, the store and the client
load inside the functions that need them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, TypeVar, overload

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from pydantic import ValidationError
    from pydantic_settings import BaseSettings

    from bot.store import Database

EXIT_OK, EXIT_REFUSED, EXIT_INVALID, EXIT_UNREACHABLE = 0, 1, 2, 3
S = TypeVar("S", bound="BaseSettings")
T = TypeVar("T", bound="BaseSettings")
U = TypeVar("U", bound="BaseSettings")


class Refused(Exception):
    """One line for stderr and the exit code it means."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(text)
        self.code = code


def settings_problems(exc: ValidationError, kind: type[BaseSettings]) -> list[str]:
    """One line per wrong or missing variable: its name (``ISPBOT_...``) and why."""
    prefix = str(kind.model_config.get("env_prefix", ""))
    lines = []
    for error in exc.errors():
        if not error["loc"]:  # a check across fields: its message names the variables
            lines.append(error["msg"].removeprefix("Value error, "))
            continue
        field = str(error["loc"][0])
        name = prefix + "_".join(str(part) for part in error["loc"]).upper()
        if error["type"] == "missing":
            lines.append(f"{name}: not set ({kind.model_fields[field].description})")
        else:
            lines.append(f"{name}: {error['msg'].removeprefix('Value error, ')}")
    return lines


def settings_problem(exc: ValidationError, kind: type[BaseSettings]) -> str:
    """The same on one line."""
    return "; ".join(settings_problems(exc, kind))


def configuration_refused(exc: ValidationError, kind: type[BaseSettings]) -> Refused:
    """The refusal of an invalid configuration: a line per wrong variable."""
    return Refused(EXIT_INVALID, "\n".join(f"configuration: {line}" for line in settings_problems(exc, kind)))


@overload
def load_all(first: type[S], /) -> tuple[S]: ...
@overload
def load_all(first: type[S], second: type[T], /) -> tuple[S, T]: ...
@overload
def load_all(first: type[S], second: type[T], third: type[U], /) -> tuple[S, T, U]: ...
def load_all(*kinds: type[BaseSettings]) -> tuple[BaseSettings, ...]:
    """Each class's settings, or ``Refused`` (invalid configuration) with a line per wrong variable of any."""
    from pydantic import ValidationError

    loaded, problems = [], []
    for kind in kinds:
        try:
            loaded.append(kind())
        except ValidationError as exc:
            problems.append(str(configuration_refused(exc, kind)))
    if problems:
        raise Refused(EXIT_INVALID, "\n".join(problems))
    return tuple(loaded)


def load(kind: type[S]) -> S:
    """One class's settings, or ``Refused`` naming each wrong variable."""
    return load_all(kind)[0]


def isp_zone() -> ZoneInfo:
    """The ISP's time zone for showing dates, without requiring the ISP's address and key."""
    from pydantic import ValidationError

    from bot.isp import IspSettings

    try:
        return IspSettings(base_url="http://127.0.0.1", key="unused").zone  # only the time zone is read
    except ValidationError as exc:
        raise configuration_refused(exc, IspSettings) from None


def open_database(url: str) -> Database:
    """A handle on the database at ``url``: every command opens its database here, and tests swap this
    to reach a scratch schema on PostgreSQL."""
    from bot.store import Database

    return Database(url)


def store(url: str | None = None) -> AbstractAsyncContextManager[Database]:
    """The database at ``url`` (default ``ISPBOT_DATABASE_URL``'s), refused unless at this code's
    migrations; disposed of afterwards."""
    if url is None:
        from bot.settings import BotSettings

        url = load(BotSettings).database_url
    return migrated(open_database(url))


@asynccontextmanager
async def migrated(database: Database) -> AsyncIterator[Database]:
    """``database``, refused if it is not at this code's migrations; disposed of afterwards."""
    from bot.store import DatabaseRevisionError
    from bot.store.migrate import ensure_current

    try:
        await ensure_current(database)
    except DatabaseRevisionError as exc:
        await database.dispose()
        raise Refused(EXIT_REFUSED, str(exc)) from None
    try:
        yield database
    finally:
        await database.dispose()


def usage(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    """A command group given no action: its help, and the exit code of invalid arguments."""

    def show(_: argparse.Namespace) -> int:
        parser.print_help()
        return EXIT_INVALID

    return show


def runs_actions(prog: str) -> Callable[[argparse.Namespace], int]:
    """The ``func`` of a command group's actions: runs the one ``args`` names (``run_action``)."""

    def run(args: argparse.Namespace) -> int:
        import asyncio

        return asyncio.run(run_action(prog, args))

    return run


async def run_action(prog: str, args: argparse.Namespace) -> int:
    """Run the action ``args`` names (its ``handler``); its exit code, a refusal printed as one line."""
    handler: Callable[[argparse.Namespace], Awaitable[None]] = args.handler
    try:
        await handler(args)
    except Refused as exc:
        refused(prog, exc)
        return exc.code
    return EXIT_OK


def refused(prog: str, exc: Refused) -> None:
    """Each line of a refusal on stderr, after the command's name."""
    for line in str(exc).splitlines():
        print(f"{prog}: {line}", file=sys.stderr)
