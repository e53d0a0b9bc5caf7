"""``ispbot locks``: see and clear the locks that too many failed link attempts put on linking.

``DESCRIPTION`` is the command's ``--help``: what locks, what the list shows, what ``clear`` needs.
"""

from __future__ import annotations

import argparse
from typing import Any

from bot.commands.support import EXIT_INVALID, EXIT_REFUSED, Refused, isp_zone, load, runs_actions, store

DESCRIPTION = """\
``ispbot locks``: see and clear the locks that too many failed link attempts put on linking.

    ispbot locks
    ispbot locks clear --chat CHAT_ID
    ispbot locks clear --tax-id CPF_OR_CNPJ
    ispbot locks clear --login PPPOE_LOGIN
    ispbot locks clear --all

Linking locks for a chat after ``ISPBOT_LINK_MAX_FAILURES`` failed proofs within
``ISPBOT_LINK_WINDOW_MINUTES``, and for a person (a tax id or a PPPoE login, whatever chats tried it)
after ``ISPBOT_LINK_TARGET_MAX_FAILURES``. The list shows locked chats by their Telegram chat id
(personal data: this is the operator's own console) and locked people by kind and a short hash: the
database keeps no tax id or login, so a person's lock is found, and cleared, by giving the tax id or
login they told the staff. ``clear`` forgets the failures, so linking is open again at once.

The hashes are keyed by ``ISPBOT_ISP_KEY``: ``--tax-id`` and ``--login`` need the same key as the
bot. Exit codes: 0 done; 1 nothing to clear, or a database behind its migrations; 2 invalid
arguments or configuration (naming the variable).
"""

PROG = "ispbot locks"


def register(subparsers: Any) -> None:
    locks = subparsers.add_parser(
        "locks", help="list the chats and people whose linking is locked after failed attempts, or clear a lock",
        description=DESCRIPTION,
    )
    locks.set_defaults(func=run, handler=_list)
    actions = locks.add_subparsers(dest="action", metavar="ACTION")
    clear = actions.add_parser("clear", help="forget the failed attempts of a chat or a person: linking is open again")
    which = clear.add_mutually_exclusive_group(required=True)
    which.add_argument("--chat", type=int, metavar="CHAT_ID", help="a chat, by its Telegram chat id")
    which.add_argument("--tax-id", metavar="CPF_OR_CNPJ", help="a person, by the tax id that was tried")
    which.add_argument("--login", metavar="PPPOE_LOGIN", help="a person, by the PPPoE login that was tried")
    which.add_argument("--all", action="store_true", help="every lock and failed attempt")
    clear.set_defaults(func=run, handler=_clear)


run = runs_actions(PROG)


async def _list(_: argparse.Namespace) -> None:
    from bot.settings import BotSettings
    from bot.store import LinkAttempts, utcnow

    settings = load(BotSettings)
    policy = settings.policy()
    zone = isp_zone()
    async with store() as database, database.transaction() as session:
        locks = await LinkAttempts().locks(
            session, utcnow() - policy.link_window,
            chat_limit=policy.link_max_failures, target_limit=policy.link_target_max_failures,
        )
    if not locks:
        print("No chat and no person is locked out of linking now.")
        return
    print(f"{'locked':<28}  {'failures':>8}  open again by")
    for lock in locks:
        who = f"chat {lock.chat_id}" if lock.chat_id is not None else _person(lock.target or "")
        free = (lock.last_failure + policy.link_window).astimezone(zone)
        print(f"{who:<28}  {lock.failures:>8}  {free:%Y-%m-%d %H:%M} ({zone.key})")


def _person(target: str) -> str:
    kind, _, digest = target.partition(":")
    return f"{'tax id' if kind == 'tax_id' else kind} {digest[:12]}"


async def _clear(args: argparse.Namespace) -> None:
    from flows.identity import normalise_tax_id, target_ref

    from bot.store import LinkAttempts

    target: str | None = None
    if args.tax_id is not None:
        tax_id = normalise_tax_id(args.tax_id)
        if tax_id is None:
            raise Refused(EXIT_INVALID, f"--tax-id: {args.tax_id!r} is not a valid CPF or CNPJ (check digits)")
        target = target_ref(_key(), "tax_id", tax_id)
    elif args.login is not None:
        if not args.login.strip():
            raise Refused(EXIT_INVALID, "--login: empty")
        target = target_ref(_key(), "login", args.login)
    async with store() as database, database.transaction() as session:
        forgotten = await LinkAttempts().clear(session, chat_id=args.chat, target=target)
    if not forgotten:
        raise Refused(EXIT_REFUSED, "no failed link attempt to forget there (see `ispbot locks`)")
    print(f"Forgot {forgotten} failed link attempt(s): linking is open again.")


def _key() -> bytes:
    from flows.identity import target_key

    from bot.isp import IspSettings

    return target_key(load(IspSettings).key.get_secret_value())
