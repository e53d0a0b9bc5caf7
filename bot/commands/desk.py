"""``ispbot desk``: the calls to the staff desk (Telegram topics or Chatwoot) seen and mended by the operator.

    ispbot desk status              # jobs by state, and the dead ones: id, chat, kind, tries, when, error
    ispbot desk retry [--chat N]    # dead jobs (all, or one chat's) back in line

A turn that hands a chat over, relays the person's words or answers a staff member leaves desk jobs
(open a conversation, post, close, a notice) that the running bot carries out after it, in order per
chat, trying a desk that cannot be reached again for as long as it takes. A job the desk refused for
good (a wrong token, a deleted inbox or topic: the error says which) is dead, and its chat goes on
without it. Fix the cause, then ``retry``: the running bot carries the jobs out on its next round.
``status`` never shows what a post says; chat ids are personal data (the operator's own console).

The database is ``ISPBOT_DATABASE_URL`` (at this version's migrations); times are shown in the ISP's
zone (``ISPBOT_ISP_TIMEZONE``). Exit codes: 0 done; 1 refused (a database behind its migrations);
2 invalid configuration. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
from typing import Any

from bot.commands.support import isp_zone, runs_actions, store, usage

PROG = "ispbot desk"


def register(subparsers: Any) -> None:
    desk = subparsers.add_parser(
        "desk", help="calls to the staff desk: status (jobs by state, dead ones) and retry of dead jobs",
        description=__doc__,
    )
    actions = desk.add_subparsers(dest="action", metavar="ACTION")
    status = actions.add_parser("status", help="jobs by state, and the dead ones with their chat, kind and error")
    status.set_defaults(func=run, handler=_status)
    retry = actions.add_parser("retry", help="put dead jobs (all, or one chat's) back in line")
    retry.add_argument("--chat", type=int, default=None, help="only this chat's dead jobs")
    retry.set_defaults(func=run, handler=_retry)
    desk.set_defaults(func=usage(desk))


run = runs_actions(PROG)


async def _status(_: argparse.Namespace) -> None:
    from bot.store import DeskJobs, DeskJobState

    zone = isp_zone()
    jobs = DeskJobs()
    async with store() as database, database.session() as session:
        counts = await jobs.counts(session)
        dead = await jobs.dead_jobs(session)
    print(f"Desk jobs: {counts[DeskJobState.PENDING]} pending, {counts[DeskJobState.DONE]} done, "
          f"{counts[DeskJobState.DEAD]} dead.")
    if not dead:
        return
    print(f"Dead jobs (`{PROG} retry [--chat N]` puts them back in line); times in {zone.key}:")
    print(f"{'id':>8}  {'chat':>20}  {'kind':<6}  {'tries':>5}  {'written':<16}  last error")
    for job in dead:
        error = (job.last_error or "").replace("\n", " ")
        written = f"{job.created_at.astimezone(zone):%Y-%m-%d %H:%M}"
        print(f"{job.id:>8}  {job.chat_id:>20}  {job.kind.value:<6}  {job.attempts:>5}  {written:<16}  {error}")


async def _retry(args: argparse.Namespace) -> None:
    from bot.store import DeskJobs

    chat: int | None = args.chat
    async with store() as database, database.transaction() as session:
        count = await DeskJobs().requeue(session, chat)
    scope = f" of chat {chat}" if chat is not None else ""
    if not count:
        print(f"No dead job{scope}: nothing to retry.")
        return
    print(f"{count} dead job{'s' if count != 1 else ''}{scope} back in line: the running bot carries "
          f"{'them' if count != 1 else 'it'} out on its next round.")
