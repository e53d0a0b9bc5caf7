"""Logging for the bot's processes: plain lines on stderr, with secrets scrubbed on the way out.

The Bot API puts the token in every URL (``/bot<token>/sendMessage``) and httpx logs each request's
URL at INFO, so the filter below scrubs anything shaped like a bot token from every record, and
httpx/httpcore are kept at WARNING (their INFO lines say nothing an operator needs).
"""

from __future__ import annotations

import logging
import re

# At least every shape ``TelegramSettings`` accepts as a token (scrubbing a look-alike costs nothing).
_TOKEN = re.compile(r"\d{1,20}:[A-Za-z0-9_-]{20,}")
QUIET = ("httpx", "httpcore", "telegram", "uvicorn.access", "alembic")


class RedactSecrets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed call (arguments that do not fit): shown as is, never raised at the caller
            message, record.args = f"{record.msg} {record.args!r}", None
            record.msg = message
        scrubbed = _TOKEN.sub("<bot token>", message)
        if scrubbed != message:
            record.msg, record.args = scrubbed, None
        if record.exc_info and not record.exc_text:
            record.exc_text = _TOKEN.sub("<bot token>", logging.Formatter().formatException(record.exc_info))
        return True


def configure(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in QUIET:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
