"""The Chatwoot side of ``ispbot doctor`` (with ``ISPBOT_STAFF_DESK=chatwoot``): the token (whose
user it is, and that it belongs to the account), the inbox (an API channel, its webhook pointing at
the bot's ``/chatwoot/webhook``, signed with the secret the bot has, where Chatwoot shows it to the
token's user) and the team handoffs are assigned to. Nothing is written; no token or secret printed.
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import urlsplit

from bot.desks.chatwoot.client import ChatwootClient, ChatwootError
from bot.desks.chatwoot.intake import PATH
from bot.desks.chatwoot.settings import ChatwootSettings
from bot.doctor.report import Finding, bounded, fail, ok, origin, warn

FIX = "check ISPBOT_CHATWOOT_URL and the network"


async def chatwoot_findings(settings: ChatwootSettings, seconds: float) -> list[Finding]:
    """The token first: without a user Chatwoot accepts, the inbox cannot be asked."""
    if settings.missing():
        return [fail("chatwoot", "ISPBOT_STAFF_DESK=chatwoot needs " + ", ".join(settings.missing()))]
    client = ChatwootClient(settings, attempts=1)
    where = origin(str(settings.url))
    try:
        me: dict[str, Any] = {}
        found = await bounded("chatwoot", seconds, f"Chatwoot at {where}", FIX, _token(client, settings, me))
        if not me:
            return found
        found += await bounded("chatwoot-inbox", seconds, f"Chatwoot at {where}", FIX, _inbox(client, settings))
        if settings.team_id is not None:
            found += await bounded("chatwoot-team", seconds, f"Chatwoot at {where}", FIX, _team(client, settings))
        return found
    finally:
        await client.aclose()


async def _token(client: ChatwootClient, settings: ChatwootSettings, me: dict[str, Any]) -> list[Finding]:
    try:
        profile = await client.profile()
    except ChatwootError as exc:
        return [fail("chatwoot", str(exc))]
    accounts = {a.get("id"): a for a in profile.get("accounts", []) if isinstance(a, dict)}
    if accounts and settings.account_id not in accounts:
        return [fail("chatwoot", f"the token's user ({profile.get('name')}) is not in account {settings.account_id}: "
                                 "check ISPBOT_CHATWOOT_ACCOUNT_ID (the number after /accounts/ in Chatwoot's URLs)")]
    me.update(profile)
    role = accounts.get(settings.account_id, {}).get("role", "?")
    return [ok("chatwoot", f"token accepted: {profile.get('name')} (user {profile.get('id')}, {role} of account "
                           f"{settings.account_id}) at {origin(str(settings.url))}")]


async def _inbox(client: ChatwootClient, settings: ChatwootSettings) -> list[Finding]:
    try:
        inbox = await client.inbox()
    except ChatwootError as exc:
        return [fail("chatwoot-inbox", f"{exc}; is the token's user an agent of inbox {settings.inbox_id}?")]
    name, kind = inbox.get("name"), inbox.get("channel_type")
    if kind != "Channel::Api":
        return [fail("chatwoot-inbox", f"inbox {settings.inbox_id} ({name}) is a {kind}, not an API channel: create "
                                       "an API inbox for the bot and set ISPBOT_CHATWOOT_INBOX_ID to it")]
    found = [ok("chatwoot-inbox", f"inbox {settings.inbox_id} ({name}) is an API channel")]
    url = str(inbox.get("webhook_url") or "")
    if not url:
        found.append(fail("chatwoot-inbox", f"the inbox has no webhook URL: agents' replies never reach the bot; set "
                                            f"it to https://<the bot's public address>{PATH}"))
    elif urlsplit(url).path.rstrip("/") != PATH:
        found.append(warn("chatwoot-inbox", f"the inbox posts to {origin(url, path=True)}, not to a {PATH}: is "
                                            "something in front of the bot passing it on?"))
    secret = inbox.get("secret")
    if isinstance(secret, str) and settings.webhook_secret is not None and not hmac.compare_digest(
            secret.encode(), settings.webhook_secret.get_secret_value().encode()):
        found.append(fail("chatwoot-inbox", "ISPBOT_CHATWOOT_WEBHOOK_SECRET is not the inbox's webhook secret "
                                            "(Settings, Inboxes, the inbox, Configuration): every post is refused"))
    return found


async def _team(client: ChatwootClient, settings: ChatwootSettings) -> list[Finding]:
    try:
        team = await client.team(int(settings.team_id or 0))
    except ChatwootError as exc:
        return [fail("chatwoot-team", f"{exc}; check ISPBOT_CHATWOOT_TEAM_ID")]
    return [ok("chatwoot-team", f"handoffs are assigned to team {settings.team_id} ({team.get('name')})")]
