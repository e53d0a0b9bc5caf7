"""The ``ispbot`` command. Each sub-command is a module of ``bot.commands`` that registers itself;
its help is its module's docstring (or its ``DESCRIPTION``), shown as plain text."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from bot.commands import (
    call,
    contacts,
    demo,
    desk,
    doctor,
    intents,
    invites,
    locks,
    migrate,
    mirror,
    notices,
    run,
    sandbox,
    undelivered,
)

# Every command, in the order the help lists them: each registers its parser, which needs only light
# modules; what running it needs is imported when it runs.
COMMANDS = (
    run, notices, call, sandbox, migrate, invites, locks, contacts, mirror, desk, undelivered, doctor, intents, demo,
)

EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports it
EXIT_OUTPUT_CLOSED = 141  # the reader of the output went away (SIGPIPE), as a shell reports it

EPILOG = """\
Settings are ISPBOT_* variables, from the process environment or else from .env in the working
folder; every command reads them the same way. `python -m bot.env_example > .env` writes a .env
listing them all, with their meaning and defaults (the repository's .env.example).

Exit codes: 0 done; 1 refused or failed (the ISP said no, a doctor check failed, the database is
not at this version's migrations, Telegram refused the token); 2 invalid arguments or configuration
(each wrong or missing variable is named on its own line); 3 the ISP web service or Telegram could
not be reached (call, invite); 130 interrupted; 141 the output was closed (ispbot call --list | head).
"""


class _PlainHelp(argparse.RawDescriptionHelpFormatter):
    """Descriptions keep their lines and lose reST's double backticks (they are module docstrings)."""

    def format_help(self) -> str:
        return super().format_help().replace("``", "")


class _Parser(argparse.ArgumentParser):
    """Every parser of ``ispbot``, its sub-commands' too (``add_subparsers`` makes them of this class):
    help as plain text unless a command asks for another formatter."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _PlainHelp)
        super().__init__(*args, **kwargs)


class _Version(argparse.Action):
    """``--version``: the installed release, read from the package's metadata only when asked."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            release = version("ispbot")
        except PackageNotFoundError:  # pragma: no cover - imported from a checkout that was never installed
            release = "unknown (not installed)"
        print(f"ispbot {release}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ispbot", description="The front desk of an ISP on Telegram. COMMAND --help says more.", epilog=EPILOG,
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        from bot import logs  # not for --help: it answers before anything could log

        logs.configure_fallback()
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        code: int = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's own flush at exit
    except BrokenPipeError:
        # Whoever read the output has what they wanted (`| head`): no traceback, and nothing more
        # written to the closed pipe when Python flushes stdout on its way out.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OUTPUT_CLOSED
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
