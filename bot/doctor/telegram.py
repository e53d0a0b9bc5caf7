"""The Telegram side of ``ispbot doctor``: the token (``getMe``), the webhook against
``ISPBOT_MODE`` (``getWebhookInfo``), and the staff group (``getChat``, ``getChatMember``).

Nothing secret is printed: never the token, and of a webhook only its scheme and host (its path is
derived from the webhook secret). ``last_error_message`` is Telegram's own text about reaching that
host ("Connection refused", "Wrong response from the webhook: 503 ...").
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from telegram.error import BadRequest, Forbidden, TelegramError

from bot.channels.telegram import raw
from bot.channels.telegram.aiohttp_request import AiohttpRequest
from bot.channels.telegram.failures import cannot_start, refusal
from bot.channels.telegram.settings import TelegramSettings
from bot.doctor.report import Finding, bounded, fail, ok, origin, warn
from telegram import Bot

TELEGRAM_FIX = "check ISPBOT_TELEGRAM_API_URL and the network"
PENDING_WARNING = 100  # updates waiting at Telegram beyond which the operator is told


async def telegram_findings(settings: TelegramSettings, seconds: float) -> list[Finding]:
    """The token first: without a bot Telegram accepts, the webhook and the group cannot be asked."""
    request = AiohttpRequest(2, connect_timeout=seconds, read_timeout=seconds, pool_timeout=seconds)
    await request.initialize()
    bot = Bot(settings.telegram_token.get_secret_value(), base_url=settings.base_url, request=request)
    try:
        me: dict[str, Any] = {}
        found = await bounded("telegram", seconds, "the Bot API", TELEGRAM_FIX, _me(bot, settings, me))
        if not me:
            return found
        found += await bounded("webhook", seconds, "the Bot API", TELEGRAM_FIX, _webhook(bot, settings))
        found += await bounded(
            "staff-group", seconds, "the Bot API", TELEGRAM_FIX, _staff_group(bot, settings, int(me["id"])),
        )
        return found
    finally:
        await request.shutdown()


async def _me(bot: Bot, settings: TelegramSettings, me: dict[str, Any]) -> list[Finding]:
    try:
        me.update(await raw.call(bot, "getMe", {}))
    except TelegramError as exc:
        return [fail("telegram", cannot_start(exc, origin(settings.telegram_api_url)))]
    return [ok("telegram", f"token accepted: @{me.get('username')} (id {me.get('id')}) "
                           f"at {origin(settings.telegram_api_url)}")]


async def _webhook(bot: Bot, settings: TelegramSettings) -> list[Finding]:
    info: dict[str, Any] = await raw.call(bot, "getWebhookInfo", {})
    url = str(info.get("url") or "")
    pending = int(info.get("pending_update_count") or 0)
    waiting = f"{pending} update{'s' if pending != 1 else ''} waiting at Telegram"
    found = [_registered(settings, url, waiting)]
    error = info.get("last_error_message")
    if error and settings.mode == "webhook":
        when = info.get("last_error_date")
        at = f" at {datetime.fromtimestamp(int(when), UTC):%Y-%m-%d %H:%M} UTC" if when else ""
        found.append(warn("webhook", (
            f"Telegram's last delivery failed{at}: {error}; check that {origin(url or str(settings.webhook_url))} "
            "reaches this server through the reverse proxy"
        )))
    if pending >= PENDING_WARNING:
        found.append(warn("webhook", f"{waiting}: is `ispbot run` running and keeping up?"))
    return found


def _registered(settings: TelegramSettings, url: str, waiting: str) -> Finding:
    """The webhook Telegram holds (``url``, empty for none) against the mode and address configured."""
    if settings.mode == "polling":
        if not url:
            return ok("webhook", f"none set, as polling needs; {waiting}")
        return fail("webhook", (
            f"a webhook is set ({origin(url)}) but ISPBOT_MODE=polling: Telegram refuses getUpdates while it is, "
            "another deployment may be receiving this bot's updates, and `ispbot run` would delete it; "
            "set ISPBOT_MODE=webhook with ISPBOT_WEBHOOK_URL, or stop the other deployment"
        ))
    expected = f"{settings.webhook_url}{settings.webhook_path}"
    if not url:
        return warn("webhook", f"none registered yet: `ispbot run` registers {origin(expected)} at start; {waiting}")
    if url == expected:
        return ok("webhook", f"Telegram posts to {origin(expected)} as ISPBOT_WEBHOOK_URL says; {waiting}")
    differs = "its path (ISPBOT_WEBHOOK_SECRET changed?)" if origin(url) == origin(expected) else origin(url)
    return fail("webhook", (
        f"Telegram posts this bot's updates to {differs}, not to ISPBOT_WEBHOOK_URL ({origin(expected)}): "
        "another deployment holds the webhook, or ISPBOT_WEBHOOK_URL / ISPBOT_WEBHOOK_SECRET changed since "
        "`ispbot run` registered it; restart `ispbot run` here or fix the settings"
    ))


async def _staff_group(bot: Bot, settings: TelegramSettings, bot_id: int) -> list[Finding]:
    chat_id = settings.staff_chat_id
    if chat_id is None:
        return [ok("staff-group", "ISPBOT_STAFF_CHAT_ID not set: a handoff opens a ticket the staff answer "
                                  "in the ISP system")]
    join = "add the bot to the group and make it an administrator with 'Manage topics', or fix ISPBOT_STAFF_CHAT_ID"
    try:
        chat: dict[str, Any] = await raw.call(bot, "getChat", {"chat_id": chat_id})
        member: dict[str, Any] = await raw.call(bot, "getChatMember", {"chat_id": chat_id, "user_id": bot_id})
    except (BadRequest, Forbidden) as exc:
        return [fail("staff-group", f"chat {chat_id} cannot be reached by the bot ({refusal(exc)}): {join}")]
    if chat.get("type") != "supergroup" or not chat.get("is_forum"):
        kind = "a supergroup without topics" if chat.get("type") == "supergroup" else f"a {chat.get('type')} chat"
        return [fail("staff-group", (
            f"chat {chat_id} is {kind}, not a forum: turn Topics on in the group's settings "
            "(it becomes a supergroup), and set ISPBOT_STAFF_CHAT_ID to its new id if it changed"
        ))]
    status = member.get("status")
    if status == "administrator" and not member.get("can_manage_topics"):
        return [fail("staff-group", (
            f"the bot is an administrator of chat {chat_id} without 'Manage topics': give it that right "
            "(it opens and closes a topic per handoff)"
        ))]
    if status not in ("administrator", "creator"):
        return [fail("staff-group", (
            f"the bot is '{status}' in chat {chat_id}, not an administrator: promote it with 'Manage topics'"
        ))]
    return [ok("staff-group", f"chat {chat_id} is a forum supergroup; the bot is an administrator that can "
                              "manage topics")]
