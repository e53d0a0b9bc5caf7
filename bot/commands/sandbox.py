"""``ispbot sandbox``: serve the stand-in ISP web service on this machine.

It prints the keys (with their environment and permitted operations) and the demo identities, then
serves both generations' paths until interrupted. ``--key KEY`` adds a production key permitted for
every operation; ``--data PATH`` serves an operator's own JSON/YAML fixture instead of the seed;
``--stock-file PATH`` writes its products and stock locations there for the bot's ``ISPBOT_STOCK_FILE``.
It reads no settings: point a bot at it with ``ISPBOT_ISP_BASE_URL=http://127.0.0.1:8077`` and one
of the printed keys. Exit codes: 0 stopped; 2 invalid arguments.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.sandbox.sandbox import Sandbox


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sandbox",
        help="serve the sandbox ISP web service (both generations) on this machine",
        description=__doc__,
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8077, help="port to listen on (default 8077)")
    parser.add_argument(
        "--data", default=None, metavar="PATH", help="JSON/YAML fixture to serve instead of the seed"
    )
    parser.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="KEY",
        help="add a production key permitted for every operation (repeatable)",
    )
    parser.add_argument(  # None: the sandbox's own DEFAULT_SEED, read when it runs
        "--seed", type=int, default=None, help="seed of the generated data set",
    )
    parser.add_argument(
        "--stock-file", default=None, metavar="PATH",
        help="write the sandbox's products and stock locations there, for the bot's ISPBOT_STOCK_FILE",
    )
    parser.add_argument(
        "--no-backslash-escapes",
        action="store_true",
        help="read every Filtro as a MySQL server in the NO_BACKSLASH_ESCAPES SQL mode would",
    )
    parser.set_defaults(func=run)


def describe(sandbox: Sandbox, host: str, port: int) -> list[str]:
    from bot.sandbox.app import V1_PATH, V2_PATH
    from bot.sandbox.keys import ALL
    from bot.sandbox.seed import DEMO_IDENTITIES

    base = f"http://{host}:{port}"
    lines = [
        f"sandbox ISP web service on {base}",
        f"  generation 1.0: POST {base}{V1_PATH}",
        f"  generation 2.0: POST {base}{V2_PATH}",
        "keys:",
    ]
    for key in sandbox.keys.all():
        scope = "every operation" if key.operations is ALL else ", ".join(sorted(key.operations))
        state = "" if key.active else " (INACTIVE)"
        lines.append(f"  {key.key}  {key.environment}{state}, user {key.default_user}: {scope}")
    if sandbox.store.find("customers", Codigo=DEMO_IDENTITIES.customer) is not None:
        lines.append("demo identities:")
        lines += [f"  {line}" for line in DEMO_IDENTITIES.lines()]
    return lines


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from bot.sandbox.sandbox import Sandbox
    from bot.sandbox.seed import DEFAULT_SEED

    seed = DEFAULT_SEED if args.seed is None else args.seed
    sandbox = Sandbox.from_file(args.data) if args.data else Sandbox.seeded(seed)
    for key in args.key:
        sandbox.add_production_key(key)
    if args.stock_file:
        sandbox.write_stock_file(args.stock_file)
    sandbox.settings.no_backslash_escapes = args.no_backslash_escapes
    print("\n".join(describe(sandbox, args.host, args.port)), flush=True)
    uvicorn.run(sandbox.app, host=args.host, port=args.port, log_level="info")
    return 0
