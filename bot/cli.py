"""The ``ispbot`` command. Each sub-command lives beside the code it drives and registers itself."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from bot import invites_cli, logs, undelivered_cli
from bot.doctor import cli as doctor_cli
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES
from bot.isp import cli as isp_cli
from bot.mirror import cli as mirror_cli
from bot.sandbox import cli as sandbox_cli
from bot.store import cli as store_cli
from bot.store.errors import DatabaseRevisionError


def _demo(args: argparse.Namespace) -> int:
    # Imported here: the other sub-commands need not load the engine and every flow.
    from bot.channels.console import run_demo  # noqa: PLC0415

    try:
        return run_demo(args.language, role=args.role)
    except (DatabaseRevisionError, ValidationError) as exc:
        print(f"ispbot demo: {exc}", file=sys.stderr)
        return 1


def _run(_: argparse.Namespace) -> int:
    from bot.channels.telegram.run import main as run_main  # noqa: PLC0415 - only `run` loads Telegram

    return run_main()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ispbot", description="The front desk of an ISP on Telegram.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = subparsers.add_parser(
        "run", help="run the bot on Telegram (settings from ISPBOT_* variables or .env; see the README)",
    )
    run.set_defaults(func=_run)
    isp_cli.register(subparsers)
    sandbox_cli.register(subparsers)
    store_cli.register(subparsers)
    invites_cli.register(subparsers)
    mirror_cli.register(subparsers)
    undelivered_cli.register(subparsers)
    doctor_cli.register(subparsers)
    demo = subparsers.add_parser(
        "demo", help="try the bot in this terminal, as a seeded subscriber or technician of the in-process sandbox ISP",
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logs.configure_fallback()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    code: int = args.func(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
