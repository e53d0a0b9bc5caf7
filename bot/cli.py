"""The ``ispbot`` command. Each sub-command lives beside the code it drives and registers itself;
its help is its module's docstring, shown as plain text."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version

from pydantic import ValidationError

from bot import contacts_cli, intents_cli, invites_cli, locks_cli, logs, undelivered_cli
from bot.cli_support import Refused, load, refused
from bot.doctor import cli as doctor_cli
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES
from bot.isp import cli as isp_cli
from bot.mirror import cli as mirror_cli
from bot.sandbox import cli as sandbox_cli
from bot.settings import BotSettings
from bot.store import cli as store_cli
from bot.store.errors import DatabaseRevisionError

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

RUN = """\
Run the bot on Telegram until SIGTERM or Ctrl-C.

Modes (ISPBOT_MODE): polling, the default, needs no public address (the bot asks Telegram for
updates); webhook has Telegram post updates to ISPBOT_WEBHOOK_URL (public https, forwarded to this
process) with ISPBOT_WEBHOOK_SECRET.

Settings: ISPBOT_TELEGRAM_TOKEN, ISPBOT_ISP_BASE_URL and ISPBOT_ISP_KEY are required, the others
have defaults. The database (ISPBOT_DATABASE_URL, default ispbot.sqlite3 here) must be at this
version's migrations: run `ispbot migrate` first.

HTTP on ISPBOT_LISTEN_HOST:ISPBOT_LISTEN_PORT (default 127.0.0.1:8080): /livez (the process
answers; for liveness and container health checks), /readyz (the database answers at this
version's migrations; whether to send traffic), /healthz (each part's state, the ISP's included,
with /readyz's status code), /metrics (Prometheus) and, in webhook mode, the webhook.

Exit codes: 0 stopped by a signal; 1 could not start (database not at this version's migrations,
token refused, Bot API unreachable); 2 invalid configuration, one line per wrong variable.
"""

DEMO = """\
Try the bot in this terminal: you chat as a seeded subscriber (or technician) of a sandbox ISP that
runs inside the process. Type what a person would; /technician and /subscriber switch chats; an
empty line or Ctrl-D ends. Lines can be piped in: printf '/ajuda\\n' | ispbot demo.

Nothing reaches Telegram or a real ISP and nothing is kept (a temporary SQLite database). Settings
read: the bot's policy (ISPBOT_LINK_*, ISPBOT_UNBLOCK_*, ISPBOT_HANDOFF_*) and ISPBOT_LOCALES_DIR;
the ISP, database and Telegram settings are ignored. Exit codes: 0 done; 1 the demo could not start;
2 invalid settings, one line per wrong variable.
"""


class _PlainHelp(argparse.RawDescriptionHelpFormatter):
    """Descriptions keep their lines and lose reST's double backticks (they are module docstrings)."""

    def format_help(self) -> str:
        return super().format_help().replace("``", "")


def _demo(args: argparse.Namespace) -> int:
    # Imported here: the other sub-commands need not load the engine and every flow.
    from bot.runtime.demo import run_demo  # noqa: PLC0415

    try:
        load(BotSettings)  # the policy and ISPBOT_LOCALES_DIR, named when wrong before anything starts
        return run_demo(args.language, role=args.role)
    except Refused as exc:
        refused("ispbot demo", exc)
        return exc.code
    except (DatabaseRevisionError, ValidationError, FileNotFoundError) as exc:
        print(f"ispbot demo: {exc}", file=sys.stderr)
        return 1


def _run(_: argparse.Namespace) -> int:
    from bot.runtime.run import main as run_main  # noqa: PLC0415 - only `run` loads Telegram

    return run_main()


def _version() -> str:
    try:
        return version("ispbot")
    except PackageNotFoundError:  # pragma: no cover - imported from a checkout that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ispbot", description="The front desk of an ISP on Telegram. COMMAND --help says more.", epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"ispbot {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = subparsers.add_parser("run", help="run the bot on Telegram (polling or webhook)", description=RUN)
    run.set_defaults(func=_run)
    isp_cli.register(subparsers)
    sandbox_cli.register(subparsers)
    store_cli.register(subparsers)
    invites_cli.register(subparsers)
    locks_cli.register(subparsers)
    contacts_cli.register(subparsers)
    mirror_cli.register(subparsers)
    undelivered_cli.register(subparsers)
    doctor_cli.register(subparsers)
    intents_cli.register(subparsers)
    demo = subparsers.add_parser(
        "demo", description=DEMO,
        help="try the bot in this terminal, as a seeded subscriber or technician of the in-process sandbox ISP",
    )
    demo.add_argument(
        "--language", choices=LANGUAGES, default=DEFAULT_LANGUAGE,
        help=f"language your (pretend) Telegram client reports (default {DEFAULT_LANGUAGE})",
    )
    demo.add_argument(
        "--as", dest="role", choices=("subscriber", "technician"), default="subscriber",
        help="whose chat you start in (default subscriber; /technician and /subscriber switch during the demo)",
    )
    demo.set_defaults(func=_demo)
    for each in _every_parser(parser):
        each.formatter_class = _PlainHelp
    return parser


def _every_parser(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _every_parser(sub)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        logs.configure_fallback()
        parser = build_parser()
        args = parser.parse_args(argv)
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
