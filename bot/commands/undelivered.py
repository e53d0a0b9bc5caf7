"""``ispbot undelivered``: answers the bot could not get to Telegram or WhatsApp, seen and sent again
by the operator.

    ispbot undelivered list             # dead letters: id, chat id, method, when, the error
    ispbot undelivered resend [--id N]  # send them (all, or one) through their channel now, oldest first

Telegram's are answers retried past ``ISPBOT_TELEGRAM_RETRY_HOURS`` or refused; WhatsApp's
(``whatsapp.*``) those Meta refused, said ``failed``, or held outside the 24-hour window with no
template (``bot.channels.whatsapp.undelivered`` sends them). ``list`` never shows what an answer says;
chat ids are personal data (the operator's own console). ``resend`` forgets each letter taken, and
each refused for good or not to be sent again (said on the line); it stops at the first network
failure, keeping that letter and the rest. Settings: ``ISPBOT_DATABASE_URL`` (migrated), Telegram's
and WhatsApp's. Exit codes: 0 done; 1 refused (a database behind its migrations); 2 invalid
configuration; 3 Telegram or WhatsApp could not be reached. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bot.commands.support import EXIT_INVALID, EXIT_UNREACHABLE, Refused, isp_zone, load, runs_actions, store, usage

if TYPE_CHECKING:
    from bot.channels.telegram.settings import TelegramSettings
    from bot.store.dead_letters import DeadLetter

PROG = "ispbot undelivered"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "undelivered", help="answers Telegram or WhatsApp did not take (dead letters): list, resend",
        description=__doc__,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser("list", help="dead letters: id, chat id, method, when, error (never the text)")
    listing.set_defaults(func=run, handler=_list)
    resend = actions.add_parser("resend", help="send dead letters (all, or one) through their channel now")
    resend.add_argument("--id", type=int, default=None, help="only this dead letter")
    resend.set_defaults(func=run, handler=_resend)
    parser.set_defaults(func=usage(parser))


run = runs_actions(PROG)


async def _list(_: argparse.Namespace) -> None:
    from bot.store.dead_letters import DeadLetters

    zone = isp_zone()
    async with store() as database, database.session() as session:
        letters = await DeadLetters().all(session)
    if not letters:
        print("No dead letters: every answer reached Telegram or WhatsApp (or is still being retried).")
        return
    print(f"{len(letters)} dead letters (`{PROG} resend [--id N]` sends them); times in {zone.key}:")
    print(f"{'id':>8}  {'chat':>14}  {'method':<16}  {'kept':<16}  error")
    for letter in letters:
        kept = f"{letter.created_at.astimezone(zone):%Y-%m-%d %H:%M}"
        print(f"{letter.id:>8}  {letter.chat_id:>14}  {letter.method:<16}  {kept:<16}  {letter.error}")


async def _resend(args: argparse.Namespace) -> None:
    from bot.store.dead_letters import DeadLetters

    ids = None if args.id is None else [args.id]
    async with store() as database:
        async with database.session() as session:
            letters = await DeadLetters().all(session, ids)
        if not letters:
            print("No dead letter to send." if ids is None else f"No dead letter {args.id}.")
            return
        whatsapp = [letter for letter in letters if letter.method.startswith("whatsapp.")]
        telegram = [letter for letter in letters if letter not in whatsapp]
        done, refused, unreachable = await _send(load_telegram(), telegram) if telegram else ([], [], None)
        if whatsapp and unreachable is None:
            from bot.channels.whatsapp.settings import WhatsAppSettings
            from bot.channels.whatsapp.undelivered import resend

            settings = load(WhatsAppSettings)
            if not settings.configured:
                raise Refused(EXIT_INVALID, "WhatsApp dead letters wait: set ISPBOT_WHATSAPP_TOKEN and the rest")
            sent, gone, unreachable = await resend(settings, database, whatsapp, print)
            done, refused = [*done, *sent], [*refused, *gone]
        async with database.transaction() as session:
            await DeadLetters().remove(session, [letter.id for letter in [*done, *refused]])
    kept = len(letters) - len(done) - len(refused)
    print(f"{len(done)} sent, {len(refused)} refused or not to be sent again (forgotten), {kept} kept.")
    if unreachable is not None:
        raise Refused(EXIT_UNREACHABLE, f"{unreachable}: the rest are kept")


def load_telegram() -> TelegramSettings:
    from bot.channels.telegram.settings import TelegramSettings

    return load(TelegramSettings)


async def _send(
    settings: TelegramSettings, letters: list[DeadLetter],
) -> tuple[list[DeadLetter], list[DeadLetter], str | None]:
    """Send in order until the network fails: (sent, refused for good, the network error if one)."""
    import asyncio

    from telegram.error import ChatMigrated, RetryAfter, TelegramError

    from bot.channels.telegram import raw
    from bot.channels.telegram.aiohttp_request import AiohttpRequest
    from bot.channels.telegram.failures import Meaning, describe, read_failure
    from telegram import Bot

    done: list[DeadLetter] = []
    refused: list[DeadLetter] = []
    request = AiohttpRequest(1)
    bot = Bot(settings.telegram_token.get_secret_value(), base_url=settings.base_url, request=request)
    try:
        await bot.initialize()  # getMe: fails at once when Telegram is still unreachable
    except TelegramError as exc:
        await request.shutdown()
        return done, refused, f"Telegram could not be reached ({describe(exc)})"
    try:
        for letter in letters:
            params = letter.params
            for _ in range(3):
                try:
                    await raw.call(bot, letter.method, params)
                except TelegramError as exc:
                    failure = read_failure(exc)
                    if isinstance(exc, RetryAfter):
                        await asyncio.sleep(raw.retry_after_seconds(exc))
                        continue
                    if isinstance(exc, ChatMigrated):
                        params = {**params, "chat_id": int(exc.new_chat_id)}
                        continue
                    if failure.meaning is Meaning.FINAL:
                        print(f"dead letter {letter.id}: Telegram refused it ({failure.kind})")
                        refused.append(letter)
                    elif failure.meaning is Meaning.DONE:
                        done.append(letter)
                    else:
                        return done, refused, f"Telegram could not be reached ({failure.kind})"
                else:
                    done.append(letter)
                break
    finally:
        await bot.shutdown()
    return done, refused, None
