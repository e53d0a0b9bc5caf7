"""``ispbot invite`` and ``ispbot technicians``: the only way a chat becomes a technician's or a
staff member's.

``DESCRIPTION`` is both commands' ``--help``: the sub-commands, what each asks and keeps, exit codes.
"""

from __future__ import annotations

import argparse
import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.commands.support import (
    EXIT_INVALID,
    EXIT_REFUSED,
    EXIT_UNREACHABLE,
    Refused,
    configuration_refused,
    isp_zone,
    load_all,
    run_action,
    store,
    usage,
)

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from sqlalchemy.ext.asyncio import AsyncSession

    from bot.isp import IspSettings
    from bot.store import Database
    from bot.store.models import LinkRow

DESCRIPTION = """\
``ispbot invite`` and ``ispbot technicians``: the only way a chat becomes a technician's or a
staff member's.

    ispbot invite technician LOGIN [--hours 24] [--bot-username NAME] [--whatsapp-number NUMBER]
    ispbot invite staff LOGIN [--hours 24] [--bot-username NAME] [--whatsapp-number NUMBER]
    ispbot invite list
    ispbot invite revoke ID
    ispbot technicians [--remove LOGIN_OR_CHAT_ID]

``invite technician`` (or ``invite staff``) asks the ISP (``ConsultaUsuarios``) that LOGIN is an
active system user, then stores a single-use invite and prints its deep link
``https://t.me/<bot>?start=<code>`` once: only a hash of the code is kept, so it cannot be shown
again (revoke it and issue another). The bot's username comes from ``--bot-username`` or from
Telegram's ``getMe`` when ``ISPBOT_TELEGRAM_TOKEN`` is set; without either the code is printed with
the link's pattern. With ``--whatsapp-number`` (the bot's WhatsApp number, country code first) it
also prints ``https://wa.me/<number>?text=/start <code>``: WhatsApp opens with the code written, to
send as it is. ``invite list`` shows invites that can still be used (never their codes);
``invite revoke`` withdraws one.

``technicians`` lists the chats linked to technicians with their Telegram chat ids (personal data:
this is the operator's own console; do not paste the list elsewhere). ``--remove`` unlinks every
chat of a system user, or one chat by its id; the chat is back to a stranger's greeting at once.

The database is ``ISPBOT_DATABASE_URL`` (it must be at this version's migrations, ``ispbot migrate``),
the ISP ``ISPBOT_ISP_*``. Exit codes, as ``ispbot call``'s: 0 done; 1 refused (a system user that is
unknown, blocked or inactive, the ISP said no, no such invite or technician, a database behind its
migrations), with nothing created; 2 invalid arguments or configuration (naming the variable);
3 the ISP web service or Telegram could not be reached. Errors are one line on stderr.
"""

MAX_HOURS = 24 * 30
GET_ME_TIMEOUT = 10.0  # seconds for Telegram's getMe, all tries included
LINK = "https://t.me/{bot}?start={code}"
WHATSAPP_LINK = "https://wa.me/{number}?text=%2Fstart%20{code}"
# Telegram usernames: 5-32 characters of letters, digits and underscores, starting with a letter.
_USERNAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{4,31}")
_STATE_ATTEMPTS = 3


# ---- the command line --------------------------------------------------------------------------
def register(subparsers: Any) -> None:
    invite = subparsers.add_parser(
        "invite", help="issue, list or revoke the single-use links that make a chat a technician's or staff's",
        description=DESCRIPTION,
    )
    actions = invite.add_subparsers(dest="action", metavar="ACTION")
    for role, who in (("technician", "technician"), ("staff", "staff member")):  # the store's Role values
        issue = actions.add_parser(
            role, help=f"check the system user is active and print a single-use deep link for the {who}",
        )
        issue.add_argument("system_user", help=f"login of the {who} in the ISP management system")
        issue.add_argument(
            "--hours", type=int, default=24, help=f"hours the link stays valid (1-{MAX_HOURS}, default 24)",
        )
        issue.add_argument(
            "--bot-username", default=None,
            help="the bot's Telegram username for the link (default: asked from Telegram with ISPBOT_TELEGRAM_TOKEN)",
        )
        issue.add_argument(
            "--whatsapp-number", default=None,
            help="the bot's WhatsApp number, country code first (5511940000000), for a wa.me link with the code",
        )
        issue.set_defaults(func=run, handler=_invite, role=role)
    listing = actions.add_parser("list", help="invites that can still be used: id, role, user, expiry (never the code)")
    listing.set_defaults(func=run, handler=_list_invites)
    revoke = actions.add_parser("revoke", help="withdraw an unused invite by its id (see invite list)")
    revoke.add_argument("id", type=int, help="the invite's id")
    revoke.set_defaults(func=run, handler=_revoke_invite)
    invite.set_defaults(func=usage(invite))

    technicians = subparsers.add_parser(
        "technicians",
        help="list the chats linked to technicians, with their Telegram chat ids (personal data: "
             "shown on this console only), or --remove one",
        description=DESCRIPTION,
    )
    technicians.add_argument(
        "--remove", metavar="USER_OR_CHAT", default=None,
        help="unlink every chat of this system user, or the chat with this id",
    )
    technicians.set_defaults(func=run, handler=_technicians)


def run(args: argparse.Namespace) -> int:
    import asyncio

    return asyncio.run(execute(args))


async def execute(args: argparse.Namespace) -> int:
    """The sub-command ``args`` names; its exit code. Output on stdout, one-line errors on stderr."""
    return await run_action("ispbot invite" if args.command == "invite" else "ispbot technicians", args)


def _shown(moment: datetime, zone: ZoneInfo) -> str:
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M} ({zone.key})"


# ---- invite technician ---------------------------------------------------------------------------
async def _invite(args: argparse.Namespace) -> None:
    from bot.isp import IspSettings
    from bot.settings import BotSettings
    from bot.store import Invites, Role

    role = Role(args.role)
    who = "technician" if role is Role.TECHNICIAN else "staff member"
    login = str(args.system_user).strip()
    if not 1 <= args.hours <= MAX_HOURS:
        raise Refused(EXIT_INVALID, f"--hours must be between 1 and {MAX_HOURS}")
    username = _given_username(args.bot_username)
    number = _whatsapp_number(args.whatsapp_number)
    isp_settings, bot_settings = load_all(IspSettings, BotSettings)  # every wrong variable of both, at once
    # A database behind its migrations is refused before anything is asked.
    async with store(bot_settings.database_url) as database:
        await _check_active(isp_settings, login)
        if username is None and number is None:
            username = await _username_from_telegram()
        async with database.transaction() as session:
            issued = await Invites().create(session, role, login, ttl=timedelta(hours=args.hours))
    invite = issued.invite
    until = _shown(invite.expires_at, isp_settings.zone)
    print(f"Invite {invite.id} for {who} {login}: single use, valid until {until}.")
    if number is not None:
        print(WHATSAPP_LINK.format(number=number, code=issued.code))
        print(f"Send this link to the {who} only; on their phone it opens WhatsApp with the code written: "
              "sending it links that WhatsApp.")
    if username is not None:
        print(LINK.format(bot=username, code=issued.code))
        print(f"Send this link to the {who} only; opening it on their phone links that Telegram account.")
    elif number is None:
        print(f"Code: {issued.code}")
        print(f"Link: {LINK.format(bot='<bot username>', code=issued.code)}")
        print("(set ISPBOT_TELEGRAM_TOKEN or pass --bot-username to print the whole link)")
    print("The code is not stored and cannot be shown again: `ispbot invite revoke` and issue another if it is lost.")


def _whatsapp_number(raw: str | None) -> str | None:
    """The number as wa.me wants it: digits only, country code first."""
    if raw is None:
        return None
    digits = re.sub(r"[\s().+-]", "", raw)
    if not digits.isdecimal() or not 10 <= len(digits) <= 15:
        raise Refused(EXIT_INVALID, "--whatsapp-number must be the bot's number, country code first: 5511940000000")
    return digits


def _given_username(raw: str | None) -> str | None:
    if raw is None:
        return None
    name = raw.strip().removeprefix("@")
    if not _USERNAME.fullmatch(name):
        raise Refused(EXIT_INVALID, "--bot-username must be the bot's Telegram username, e.g. MyIspBot")
    return name


async def _check_active(isp_settings: IspSettings, login: str) -> None:
    from flows.coordinator import IspCoordinator

    from bot.isp import IspApiError, IspClient, IspTransportError
    from bot.isp.models.v1_records import UserStatus

    status_words = {UserStatus.BLOCKED: "blocked", UserStatus.INACTIVE: "inactive"}
    try:
        async with IspClient(isp_settings) as client:  # through the one door, as the bot asks it
            user = await IspCoordinator(client, zone=isp_settings.zone).system_user(login)
    except IspApiError as exc:
        raise Refused(EXIT_REFUSED, str(exc)) from None
    except IspTransportError as exc:
        raise Refused(EXIT_UNREACHABLE, f"ConsultaUsuarios: {exc}") from None
    if user is None:
        raise Refused(EXIT_REFUSED, f"{login!r} is not a system user of the ISP; nothing was created")
    if user.Situacao is not UserStatus.ACTIVE:
        word = status_words.get(user.Situacao, "not active") if user.Situacao else "not active"
        raise Refused(EXIT_REFUSED, f"system user {login!r} is {word} in the ISP system; nothing was created")


async def _username_from_telegram() -> str | None:
    """The bot's username from getMe when a token is configured; None without one."""
    import asyncio

    from pydantic import ValidationError

    from bot.channels.telegram.settings import TelegramSettings

    try:
        telegram_settings = TelegramSettings()
    except ValidationError as exc:
        if all(e["loc"] == ("telegram_token",) and e["type"] == "missing" for e in exc.errors()):
            return None
        raise configuration_refused(exc, TelegramSettings) from None
    # python-telegram-bot loads only when it is asked.
    from telegram.error import InvalidToken, TelegramError
    from telegram.request import HTTPXRequest

    from telegram import Bot

    request = HTTPXRequest(
        connection_pool_size=1, connect_timeout=GET_ME_TIMEOUT, read_timeout=GET_ME_TIMEOUT,
        write_timeout=GET_ME_TIMEOUT, pool_timeout=GET_ME_TIMEOUT,
    )
    bot = Bot(telegram_settings.telegram_token.get_secret_value(), base_url=telegram_settings.base_url, request=request)
    unreachable = (
        f"could not ask Telegram for the bot's username at {telegram_settings.telegram_api_url}; "
        "pass --bot-username; nothing was created"
    )
    try:
        async with asyncio.timeout(GET_ME_TIMEOUT):
            me = await bot.get_me()
    except InvalidToken:
        refused = "Telegram refused the bot token: check ISPBOT_TELEGRAM_TOKEN (from @BotFather); nothing was created"
        raise Refused(EXIT_INVALID, refused) from None
    except (TelegramError, TimeoutError):
        raise Refused(EXIT_UNREACHABLE, unreachable) from None
    finally:
        await request.shutdown()
    if not me.username:
        raise Refused(EXIT_UNREACHABLE, unreachable)
    return me.username


# ---- invite list / revoke ------------------------------------------------------------------------
async def _list_invites(_: argparse.Namespace) -> None:
    from bot.store import Invites

    zone = isp_zone()
    async with store() as database, database.transaction() as session:
        invites = await Invites().list_active(session)
    if not invites:
        print("No invite can be used now.")
        return
    print(f"{'id':>6}  {'role':<10}  {'system user':<24}  expires")
    for invite in invites:
        print(f"{invite.id:>6}  {invite.role.value:<10}  {invite.system_user:<24}  {_shown(invite.expires_at, zone)}")


async def _revoke_invite(args: argparse.Namespace) -> None:
    from bot.store import Invites

    async with store() as database, database.transaction() as session:
        revoked = await Invites().revoke(session, args.id)
    if not revoked:
        unknown = f"no usable invite {args.id} (unknown, used or revoked already; see `ispbot invite list`)"
        raise Refused(EXIT_REFUSED, unknown)
    print(f"Invite {args.id} revoked: its link no longer works.")


# ---- technicians ---------------------------------------------------------------------------------
async def _technicians(args: argparse.Namespace) -> None:
    if args.remove is not None:
        await _remove(str(args.remove).strip())
        return
    zone = isp_zone()
    async with store() as database, database.transaction() as session:
        rows = await _technician_links(session)
    if not rows:
        print("No chat is linked to a technician (`ispbot invite technician LOGIN` issues a link).")
        return
    print(f"{'system user':<24}  {'chat id':>16}  linked since")
    for row in rows:
        print(f"{row.system_user or '':<24}  {row.chat_id:>16}  {_shown(row.proved_at, zone)}")


async def _technician_links(session: AsyncSession, *criteria: Any) -> list[LinkRow]:
    from sqlalchemy import select

    from bot.store import Role
    from bot.store.models import LinkRow

    statement = (
        select(LinkRow)
        .where(LinkRow.role == Role.TECHNICIAN.value, LinkRow.unlinked_at.is_(None), *criteria)
        .order_by(LinkRow.system_user, LinkRow.id)
    )
    return list((await session.execute(statement)).scalars())


async def _remove(target: str) -> None:
    from bot.store import Links
    from bot.store.models import LinkRow

    async with store() as database:
        async with database.transaction() as session:
            rows = await _technician_links(session, LinkRow.system_user == target)
            if not rows and re.fullmatch(r"-?\d{1,20}", target):
                rows = await _technician_links(session, LinkRow.chat_id == int(target))
            chats = [row.chat_id for row in rows]
            for chat_id in chats:
                await Links().unlink(session, chat_id)
        if not chats:
            unknown = f"no technician chat has the system user or chat id {target!r} (see `ispbot technicians`)"
            raise Refused(EXIT_REFUSED, unknown)
        for chat_id in chats:
            await _forget_role(database, chat_id)
    listed = ", ".join(map(str, chats))
    plural = "s" if len(chats) > 1 else ""
    print(f"Unlinked {len(chats)} technician chat{plural} ({listed}); their next message meets the greeting.")


async def _forget_role(database: Database, chat_id: int) -> None:
    """Drop the chat's technician conversation: its next message meets the greeting, not a menu it lost."""
    from bot.store import ChatStates, Role, StaleStateError

    states = ChatStates()
    for _ in range(_STATE_ATTEMPTS):
        try:
            async with database.transaction() as session:
                state, link = await states.load_locked(session, chat_id)
                if state.version == 0 or link is not None:
                    return  # never spoke, or linked again meanwhile
                state.role, state.flow, state.step, state.data = Role.SUBSCRIBER, None, None, {}
                state.current_ticket = None
                await states.save(session, state)
                return
        except StaleStateError:
            continue
