"""What the ``ispbot`` sub-commands share: one-line refusals with their exit codes, settings errors
that name the variable, the usage fallback of a command group, and a database that must be at
this code's migrations."""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar
from zoneinfo import ZoneInfo

from pydantic import ValidationError
from pydantic_settings import BaseSettings

from bot.isp import IspSettings
from bot.store import Database, DatabaseRevisionError
from bot.store.migrate import ensure_current

EXIT_OK, EXIT_REFUSED, EXIT_INVALID, EXIT_UNREACHABLE = 0, 1, 2, 3
S = TypeVar("S", bound=BaseSettings)


class Refused(Exception):
    """One line for stderr and the exit code it means."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(text)
        self.code = code


def settings_problem(exc: ValidationError, kind: type[BaseSettings]) -> str:
    """One line naming each wrong variable (``ISPBOT_...``) and why."""
    prefix = str(kind.model_config.get("env_prefix", ""))
    parts = []
    for error in exc.errors():
        name = prefix + "_".join(str(part) for part in error["loc"]).upper() if error["loc"] else "settings"
        parts.append(f"{name}: {error['msg'].removeprefix('Value error, ')}")
    return "; ".join(parts)


def load(kind: type[S]) -> S:
    """Settings from the environment, or ``Refused`` (invalid configuration) naming the variable."""
    try:
        return kind()
    except ValidationError as exc:
        raise Refused(EXIT_INVALID, f"configuration: {settings_problem(exc, kind)}") from None


def isp_zone() -> ZoneInfo:
    """The ISP's time zone for showing dates, without requiring the ISP's address and key."""
    try:
        return IspSettings(base_url="http://127.0.0.1", key="unused").zone  # only the time zone is read
    except ValidationError as exc:
        raise Refused(EXIT_INVALID, f"configuration: {settings_problem(exc, IspSettings)}") from None


@asynccontextmanager
async def migrated(database: Database) -> AsyncIterator[Database]:
    """``database``, refused if it is not at this code's migrations; disposed of afterwards."""
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


async def run_action(prog: str, args: argparse.Namespace) -> int:
    """Run the action ``args`` names (its ``handler``); its exit code, a refusal printed as one line."""
    handler: Callable[[argparse.Namespace], Awaitable[None]] = args.handler
    try:
        await handler(args)
    except Refused as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return exc.code
    return EXIT_OK
