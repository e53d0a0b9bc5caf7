"""``ispbot intents``: what the menu would make of a text, to try a phrase before adding it.

    printf 'to devendo quanto?\\nvc é um robo?\\n' | ispbot intents --language pt_BR
    ispbot intents --language es < phrases.txt

Reads texts from standard input, one a line, and prints for each ``intent<TAB>text``: the flow the
menu would open (``bills``, ``connection``, ``human``...), the small talk it would answer
(``greeting``, ``thanks``, ``ok``) or ``-`` when it would say it did not understand. A need without a
flow of its own shows the flow that answers it (a change of address: ``human``). Nothing is sent and
nothing is kept; empty lines are skipped.

The words are those of ``ISPBOT_LOCALES_DIR``/intents/<language>.yaml when that folder is set (the
operator's own texts), else the ones shipped with ispbot; docs/intents.md says how a text is matched.
Exit codes: 0 done; 2 invalid arguments or configuration (naming the variable).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.commands.support import Refused, load, refused
from bot.languages import DEFAULT_LANGUAGE, LANGUAGES

PROG = "ispbot intents"
NOTHING = "-"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "intents", help="what the menu would make of texts read one a line: intent<TAB>text",
        description=__doc__,
    )
    parser.add_argument(
        "--language", choices=LANGUAGES, default=DEFAULT_LANGUAGE,
        help=f"the subscriber's language, tried first (default {DEFAULT_LANGUAGE})",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bot.settings import BotSettings

    try:
        settings = load(BotSettings)
    except Refused as exc:
        refused(PROG, exc)
        return exc.code
    from flows.intents import Intents, default_intents

    intents = Intents(settings.locales_dir / "intents") if settings.locales_dir else default_intents()
    for line in sys.stdin:
        text = line.rstrip("\r\n")
        if text.strip():
            print(f"{intents.match(args.language, text) or NOTHING}\t{text}")
    return 0
