"""``ispbot demo``: the bot in this terminal, against a sandbox ISP inside the process
(``bot.runtime.demo`` runs it).

``DESCRIPTION`` is the command's ``--help``: what is read, what is kept, the exit codes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bot.commands.support import Refused, load, refused
from bot.languages import DEFAULT_LANGUAGE, LANGUAGES

DATABASE = "ispbot-demo.sqlite3"  # bot.runtime.demo.DATABASE, named here without importing the runtime

DESCRIPTION = """\
Try the bot in this terminal: you chat as a seeded subscriber (or technician) of a sandbox ISP that
runs inside the process. Type what a person would; /technician and /subscriber switch chats; /sair
(/quit) or Ctrl-D ends, an empty line is ignored. Lines can be piped in:
printf '/ajuda\\n' | ispbot demo. Each line takes the bot's real path: stored in the inbox,
processed, its answer sent (printed) before the next prompt; what the bot says on its own (a
restarted connection is back, an outage ended) is printed as it comes, while the prompt waits.

Nothing reaches Telegram, WhatsApp or a real ISP. What is kept: the bot's SQLite database in the
file --database names (ispbot-demo.sqlite3 in this folder) and the sandbox's records beside it
(ispbot-demo.sandbox.json), so running the demo again goes on where it stopped; --fresh starts over.
Exit codes: 0 done; 1 the demo could not start; 2 invalid settings, one line per wrong variable.
"""
# What the demo sets itself whatever the environment says (the sandbox's ids, its database, no desk).
FIXED = ("database_url", "ticket_mode", "stock_file", "company", "cancel_reversal_reason", "cancel_fine_account",
         "cancel_fine_history", "staff_desk", "isp_user")


def settings_read() -> str:
    """The ``--help`` lines naming every setting the demo reads, with the example the demo uses
    where the environment sets none."""
    from bot.runtime.demo import DEMO_CONTACTS, DEMO_PHONES
    from bot.settings import BotSettings

    examples = {**DEMO_PHONES, **DEMO_CONTACTS["pt_BR"]}
    lines = ["settings read (environment over .env; the demo's example where unset):"]
    for name, field in BotSettings.model_fields.items():
        if name in FIXED:
            continue
        example = f" [demo: {examples[name]}]" if name in examples else ""
        lines.append(f"  ISPBOT_{name.upper():<30} {field.description or ''}{example}")
    fixed = ", ".join(f"ISPBOT_{name.upper()}" for name in FIXED)
    lines += ["", f"set by the demo itself (the sandbox's): {fixed}.",
              "ignored: the ISP's (ISPBOT_ISP_*), Telegram's, WhatsApp's and Chatwoot's settings."]
    return "\n".join(lines)


class _Help(argparse.Action):
    """``--help`` with the settings read, looked up only when asked for (they import the runtime)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        parser.epilog = settings_read()
        parser.print_help()
        parser.exit()


def register(subparsers: Any) -> None:
    demo = subparsers.add_parser(
        "demo", description=DESCRIPTION, add_help=False,
        help="try the bot in this terminal, as a seeded subscriber or technician of the in-process sandbox ISP",
    )
    demo.add_argument("-h", "--help", action=_Help, nargs=0, help="show this help message and exit")
    demo.add_argument(
        "--language", choices=LANGUAGES, default=DEFAULT_LANGUAGE,
        help=f"language your (pretend) Telegram client reports (default {DEFAULT_LANGUAGE})",
    )
    demo.add_argument(
        "--as", dest="role", choices=("subscriber", "technician"), default="subscriber",
        help="whose chat you start in (default subscriber; /technician and /subscriber switch during the demo)",
    )
    demo.add_argument(
        "--database", type=Path, default=Path(DATABASE), metavar="FILE",
        help=f"the SQLite file that keeps the demo's state between runs (default {DATABASE} in this folder)",
    )
    demo.add_argument("--fresh", action="store_true", help="start over: forget what earlier runs kept")
    demo.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from bot.runtime.demo import run_demo
    from bot.settings import BotSettings
    from bot.store.errors import DatabaseRevisionError

    try:
        load(BotSettings)  # the policy and ISPBOT_LOCALES_DIR, named when wrong before anything starts
        return run_demo(args.language, role=args.role, database=args.database, fresh=args.fresh)
    except Refused as exc:
        refused("ispbot demo", exc)
        return exc.code
    except (DatabaseRevisionError, ValidationError, FileNotFoundError) as exc:
        print(f"ispbot demo: {exc}", file=sys.stderr)
        return 1
