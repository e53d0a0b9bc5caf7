"""What a failed Bot API call means for the message it carried: the one reading of
python-telegram-bot's exceptions, for the sender, ``ispbot run`` and ``ispbot doctor``.

Only Telegram's own refusal of this message is final (400 Bad Request: chat not found, message too
long; 403 Forbidden: bot blocked by the user): the message is kept as a dead letter with Telegram's
words, never counted as delivered. A 429 waits its ``retry_after``; a migrated group moves. All the
rest is transient and retried, because nothing says the message is at fault: a refused, reset or
timed-out connection, a 5xx, an answer that is not the Bot API's JSON (``UnreadableAnswer``), and a
404 or 401 that was not there at start (a proxy's, while the bot's own ``getMe`` had worked). One
answer is success in disguise: "not modified" (an edit, a topic closed already) is already done.

``kind`` is what the logs and dead letters say: short, with no page, text or token in it.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from telegram.error import (
    BadRequest,
    ChatMigrated,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from bot.channels.telegram.aiohttp_request import UnreadableAnswer

_TOKEN = re.compile(r"\d{5,}:[A-Za-z0-9_-]{20,}")
_NOT_MODIFIED = re.compile(r"not[ _]modified", re.IGNORECASE)  # an edit's, a topic's TOPIC_NOT_MODIFIED


class Meaning(enum.Enum):
    TRANSIENT = "transient"  # kept and sent again with backoff, then a dead letter
    FINAL = "final"  # Telegram refuses this message: a dead letter now
    FLOOD = "flood"  # 429: sent again after retry_after
    MOVED = "moved"  # the group became a supergroup: sent to its new id
    DONE = "done"  # an edit that changes nothing: as good as delivered


@dataclass(frozen=True, slots=True)
class Failure:
    meaning: Meaning
    kind: str


def scrub(text: str) -> str:
    """A text of Telegram's (or of a proxy's) fit for a log line: no token, at most 200 characters."""
    return _TOKEN.sub("<token>", text)[:200]


def read_failure(exc: BaseException) -> Failure:
    """What ``exc``, raised by a Bot API call, means for the message (see the module docstring)."""
    if isinstance(exc, RetryAfter):
        return Failure(Meaning.FLOOD, "flood control")
    if isinstance(exc, ChatMigrated):
        return Failure(Meaning.MOVED, "chat migrated")
    if isinstance(exc, BadRequest) and _NOT_MODIFIED.search(exc.message):
        return Failure(Meaning.DONE, scrub(exc.message))
    if isinstance(exc, BadRequest | Forbidden):
        return Failure(Meaning.FINAL, scrub(refusal(exc)))
    return Failure(Meaning.TRANSIENT, describe(exc))


def describe(exc: BaseException) -> str:
    """A transport failure in a few words: "connection refused", "timed out", "Not Found",
    "Bad Gateway (502), not from the Bot API's JSON"."""
    if isinstance(exc, InvalidToken | EndPointNotFound) and isinstance(exc.__cause__, InvalidToken):
        exc = exc.__cause__  # python-telegram-bot's words over a 404 or 401 to ``do_api_request``
    if isinstance(exc, TimedOut):
        return "timed out"
    if isinstance(exc, TelegramError):
        return scrub(exc.message or type(exc).__name__)
    return type(exc).__name__


def cannot_start(exc: TelegramError, api_url: str) -> str:
    """Why ``getMe`` failed, as the one line that stops ``ispbot run`` and fails ``ispbot doctor``,
    naming what to fix. ``api_url``: the Bot API's address as it may be printed."""
    if isinstance(exc, InvalidToken | EndPointNotFound):
        status = describe(exc)
        if "not found" not in status.lower():
            return ("token refused by Telegram (401 Unauthorized): set ISPBOT_TELEGRAM_TOKEN to the token "
                    "@BotFather gave this bot")
        return (f"the Bot API at {api_url} answered getMe with {status}: check ISPBOT_TELEGRAM_API_URL (the "
                "Bot API's root, as https://api.telegram.org) and ISPBOT_TELEGRAM_TOKEN")
    if isinstance(exc, UnreadableAnswer):
        return (f"the Bot API at {api_url} gave getMe {describe(exc)}: check ISPBOT_TELEGRAM_API_URL "
                "(a proxy or a captive portal in the way?)")
    if isinstance(exc, NetworkError):
        return f"cannot reach the Bot API at {api_url} ({describe(exc)}): check ISPBOT_TELEGRAM_API_URL and the network"
    return f"getMe refused ({refusal(exc)}): check ISPBOT_TELEGRAM_TOKEN"


def refusal(exc: TelegramError) -> str:
    """Telegram's own words, with the kind of refusal (python-telegram-bot keeps "Forbidden:", drops "Bad Request:")."""
    kind = type(exc).__name__
    return exc.message if exc.message.startswith(kind) else f"{kind}: {exc.message}"
