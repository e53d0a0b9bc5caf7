"""``ispbot notices``: the notices the bot writes first (a bill's reminder, the overdue notice, a
payment received, an outage started), one round by hand, and what the last rounds did.

    ispbot notices run --once [--now ISO-8601] [--dry-run]
    ispbot notices status

``run --once`` runs one round as of now, or as of ``--now`` (2026-12-01T10:00, in the ISP's time zone
unless it names its own), and sends what is due through the configured channels, waiting until
they took it (``ispbot run`` runs a round every ISPBOT_NOTICE_EVERY minutes by itself). Each notice
goes once, whatever the rounds. ``--dry-run`` reads the ISP and prints who would get what (chat,
kind, bill or outage), sending and claiming nothing, with no channel's settings. ``status`` shows
the last rounds: sent, held (quiet hours), refused (opted out), ISP calls. Chat ids are personal
data: this is the operator's own console. Settings: ISPBOT_ISP_*, ISPBOT_DATABASE_URL (migrated),
ISPBOT_NOTICE_*, and a channel's to send (as ``ispbot run``). Exit codes: 0 done; 1 refused (database
behind its migrations); 2 invalid arguments or configuration. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.commands.support import EXIT_INVALID, Refused, isp_zone, load_all, runs_actions, store, usage

if TYPE_CHECKING:
    from flows.notices import RoundReport

    from bot.runtime.app import App

PROG = "ispbot notices"
SHOWN_ROUNDS = 10


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "notices", help="the notices the bot writes first: run a round, see the last ones",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    running = actions.add_parser("run", help="run one round of notices now (--once), or see it (--dry-run)")
    running.add_argument("--once", action="store_true", help="one round, then exit (required: `ispbot run` repeats)")
    running.add_argument("--now", default=None, metavar="ISO-8601", help="the round as of this moment (the ISP's zone)")
    running.add_argument("--dry-run", action="store_true", help="print who would get what; send nothing")
    running.set_defaults(func=run, handler=_run)
    status = actions.add_parser("status", help="the last rounds: sent, held, refused, ISP calls")
    status.set_defaults(func=run, handler=_status)
    parser.set_defaults(func=usage(parser))


run = runs_actions(PROG)


def _moment(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise Refused(EXIT_INVALID, f"--now {text!r} is no ISO-8601 moment (like 2026-12-01T10:00)") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=isp_zone())


async def _run(args: argparse.Namespace) -> None:
    if not args.once:
        raise Refused(EXIT_INVALID, "say --once: `ispbot run` runs a round every ISPBOT_NOTICE_EVERY minutes")
    now = _moment(args.now)
    from bot.runtime.app import Settings, build_app

    if args.dry_run:
        from bot.isp import IspSettings
        from bot.settings import BotSettings

        isp, bot = load_all(IspSettings, BotSettings)
        app = await _built(build_app(Settings(isp, bot)))
        try:
            assert app.notices is not None  # noqa: S101 - build_core always makes it
            report = await app.notices.run(now=now, dry_run=True)
        finally:
            await app.aclose()
        _print(report)
        return
    from bot.commands.run import load_settings

    app = await _built(build_app(load_settings().app_settings()))
    runtime = app.runtime
    try:
        assert runtime is not None and app.notices is not None  # noqa: S101 - channels are configured
        await runtime.start()
        report = await app.notices.run(now=now, send=runtime.processor.send_round,
                                       channels=runtime.processor.serves)
        await runtime.stop()  # what was handed to the channels is sent before the process ends
    finally:
        await app.aclose()
    _print(report)


async def _built(building: Any) -> App:
    from bot.commands.support import EXIT_REFUSED
    from bot.store import DatabaseRevisionError

    try:
        app: App = await building
    except DatabaseRevisionError as exc:
        raise Refused(EXIT_REFUSED, str(exc)) from None
    return app


def _print(report: RoundReport) -> None:
    zone = isp_zone()
    at = f"{report.as_of.astimezone(zone):%Y-%m-%d %H:%M} ({zone.key})"
    if report.quiet and not report.dry_run:
        print(f"{at} is in the quiet hours (ISPBOT_NOTICE_QUIET): nothing read or sent; "
              "the first round after them sends what is due.")
        return
    for planned in report.planned:
        print(f"{planned.chat_id:>14}  {planned.kind:<17}  {planned.subject}")
    verb = "would be sent" if report.dry_run else "sent"
    held = " (quiet hours: held until they end)" if report.quiet else ""
    print(f"Round as of {at}: {report.sent.total()} {verb}{held}, {report.held.total()} held, "
          f"{report.refused.total()} refused (opted out); {report.isp_calls.total()} ISP calls "
          f"({_counts(report.isp_calls)}).")
    for kind in sorted({*report.sent, *report.held, *report.refused}):
        print(f"  {kind}: {report.sent[kind]} {verb}, {report.held[kind]} held, {report.refused[kind]} refused")


def _counts(counts: Any) -> str:
    return ", ".join(f"{name} {count}" for name, count in sorted(counts.items())) or "none"


async def _status(_: argparse.Namespace) -> None:
    from bot.store import NoticeRounds

    zone = isp_zone()
    async with store() as database, database.session() as session:
        rounds = await NoticeRounds().last(session, SHOWN_ROUNDS)
    if not rounds:
        print("No round of notices yet (`ispbot run` runs one every ISPBOT_NOTICE_EVERY minutes).")
        return
    print(f"The last {len(rounds)} rounds of notices, newest first; times in {zone.key}:")
    print(f"{'as of':<16}  {'took':>6}  {'sent':>6}  {'held':>6}  {'refused':>7}  {'ISP calls':>9}  note")
    for each in rounds:
        took = f"{(each.finished_at - each.started_at).total_seconds():.0f}s" if each.finished_at else "-"
        note = ["dry run" if each.details.get("dry_run") else "", "quiet hours" if each.details.get("quiet") else "",
                "" if each.finished_at else "unfinished"]
        print(f"{each.as_of.astimezone(zone):%Y-%m-%d %H:%M}  {took:>6}  {each.sent:>6}  {each.held:>6}  "
              f"{each.refused:>7}  {each.isp_calls:>9}  {', '.join(n for n in note if n)}")
