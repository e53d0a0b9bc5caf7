"""``ispbot demo``: the bot in this terminal, against a sandbox ISP inside the process
(``bot.runtime.demo`` runs it).

``DESCRIPTION`` is the command's ``--help``: what is read, what is kept, the exit codes.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.commands.support import Refused, load, refused
from bot.languages import DEFAULT_LANGUAGE, LANGUAGES

DESCRIPTION = """\
Try the bot in this terminal: you chat as a seeded subscriber (or technician) of a sandbox ISP that
runs inside the process. Type what a person would; /technician and /subscriber switch chats; an
empty line or Ctrl-D ends. Lines can be piped in: printf '/ajuda\\n' | ispbot demo. Each line
takes the bot's real path: stored in the inbox, processed, its answer sent (printed) before the
next prompt.

Nothing reaches Telegram or a real ISP and nothing is kept (a temporary SQLite database). Settings
read: the bot's policy (ISPBOT_LINK_*, ISPBOT_UNBLOCK_*, ISPBOT_HANDOFF_*) and ISPBOT_LOCALES_DIR;
the ISP, database and Telegram settings are ignored. Exit codes: 0 done; 1 the demo could not start;
2 invalid settings, one line per wrong variable.
"""


def register(subparsers: Any) -> None:
    demo = subparsers.add_parser(
        "demo", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
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
    demo.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from bot.runtime.demo import run_demo
    from bot.settings import BotSettings
    from bot.store.errors import DatabaseRevisionError

    try:
        load(BotSettings)  # the policy and ISPBOT_LOCALES_DIR, named when wrong before anything starts
        return run_demo(args.language, role=args.role)
    except Refused as exc:
        refused("ispbot demo", exc)
        return exc.code
    except (DatabaseRevisionError, ValidationError, FileNotFoundError) as exc:
        print(f"ispbot demo: {exc}", file=sys.stderr)
        return 1
