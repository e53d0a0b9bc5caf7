"""``ispbot mirror``: the ``chat_messages`` outbox seen and mended by the operator.

    ispbot mirror status              # entries by state, how long the oldest has waited, dead entries
    ispbot mirror retry [--ticket N]  # dead entries (all, or one ticket's) back in line

``status`` never shows what was said (it is personal data): dead entries are listed by id, ticket,
origin (C subscriber, S bot, A staff), tries, when they were written and the ISP's last error. Dead
entries are those the ISP refused for good, typically error 16 (the ticket does not exist in the
ISP system); fix the cause first, then ``retry``: the running bot delivers them on its next round.
Requeued entries reach the ISP after the ticket's later ones that were already delivered; each
keeps the time it was said (``record``).

The database is ``ISPBOT_DATABASE_URL`` (at this version's migrations, ``ispbot migrate``); times
are shown in the ISP's zone (``ISPBOT_ISP_TIMEZONE``). Exit codes: 0 done; 1 refused (a database
behind its migrations); 2 invalid configuration. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.commands.support import isp_zone, runs_actions, store, usage

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

PROG = "ispbot mirror"


def register(subparsers: Any) -> None:
    mirror = subparsers.add_parser(
        "mirror", help="the chat_messages outbox: status (depth, lag, dead entries) and retry of dead entries",
        description=__doc__,
    )
    actions = mirror.add_subparsers(dest="action", metavar="ACTION")
    status = actions.add_parser(
        "status", help="entries by state, the oldest pending entry's wait, dead entries with ticket and error",
    )
    status.set_defaults(func=run, handler=_status)
    retry = actions.add_parser("retry", help="put dead entries (all, or one ticket's) back in line for delivery")
    retry.add_argument("--ticket", type=int, default=None, help="only this ticket's dead entries")
    retry.set_defaults(func=run, handler=_retry)
    mirror.set_defaults(func=usage(mirror))


run = runs_actions(PROG)


def _shown(moment: datetime, zone: ZoneInfo) -> str:
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M}"


def _duration(age: timedelta) -> str:
    seconds = max(0, int(age.total_seconds()))
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {seconds} s"
    return f"{seconds} s"


# ---- status / retry ------------------------------------------------------------------------------
async def _status(_: argparse.Namespace) -> None:
    from bot.mirror.report import dead_entries
    from bot.store import Outbox, OutboxState

    zone = isp_zone()
    async with store() as database, database.transaction() as session:
        stats = await Outbox().stats(session)
        dead = await dead_entries(session)
    depth = stats.depth
    waiting = (
        f" (the oldest waiting for {_duration(stats.oldest_pending_age)})"
        if stats.oldest_pending_age is not None else ""
    )
    print(
        f"Outbox: {depth[OutboxState.PENDING]} pending{waiting}, {depth[OutboxState.SENT]} sent, "
        f"{depth[OutboxState.DEAD]} dead."
    )
    if not dead:
        return
    print(f"Dead entries (`{PROG} retry [--ticket N]` puts them back in line); times in {zone.key}:")
    print(f"{'id':>8}  {'ticket':>8}  origin  {'tries':>5}  {'written':<16}  last error")
    for entry in dead:
        error = (entry.last_error or "").replace("\n", " ")
        print(
            f"{entry.id:>8}  {entry.ticket_id:>8}  {entry.origin.value:<6}  {entry.attempts:>5}  "
            f"{_shown(entry.created_at, zone):<16}  {error}"
        )


async def _retry(args: argparse.Namespace) -> None:
    from bot.mirror.report import requeue

    ticket: int | None = args.ticket
    async with store() as database, database.transaction() as session:
        count = await requeue(session, ticket)
    scope = f" of ticket {ticket}" if ticket is not None else ""
    if not count:
        print(f"No dead entry{scope}: nothing to retry.")
        return
    plural = "y" if count == 1 else "ies"
    print(f"{count} dead entr{plural}{scope} back in line: the running bot delivers them on its next round.")
