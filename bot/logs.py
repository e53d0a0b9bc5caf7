"""Logging for the bot's processes: one line per record on stderr, JSON or text, scrubbed on the way out.

Format: ``json`` (one object a line, for a log collector) or ``text`` (for a person at a terminal);
``auto`` picks text when stderr is a terminal and JSON otherwise (a container, a service's journal).
Whatever a call passes in ``extra=`` becomes fields of its JSON object, or ``key=value`` pairs after
the text line's message: the per-update line of the Telegram processor is made so.

``RedactSecrets`` scrubs every record (message, arguments, extra fields, exception text) before any
handler formats it: tokens and secrets, passwords, tax ids and phone numbers (its docstring lists the
shapes). Chat ids are never logged raw: ``chat_ref`` gives a keyed hash instead.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import logging
import os
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from bot.jsontext import dumps

LogFormat = Literal["auto", "json", "text"]

# At least every shape ``TelegramSettings`` accepts as a token (scrubbing a look-alike costs nothing).
_TOKEN = re.compile(r"\d{1,20}:[A-Za-z0-9_-]{20,}")
_PASSWORD = re.compile(
    r"""(?ix)
    ((?<![a-z])(?:senha|password|passwd|pwd|chaveintegracao|authentication_key|api_key)(?![a-z])["']?\s*[:=]\s*["']?)
    ([^\s"',;&}]+)
    """
)
# Shapes bounded by anything that is not a letter, digit or underscore.
_EDGE_BEFORE, _EDGE_AFTER = r"(?<![\w])", r"(?![\w])"
_TAX_ID = re.compile(
    _EDGE_BEFORE
    + r"(?:\d{3}\.\d{3}\.\d{3}-\d{2}|\d{11}|\d{14}"
    + r"|[0-9A-Z]{2}\.[0-9A-Z]{3}\.[0-9A-Z]{3}/[0-9A-Z]{4}-\d{2}"  # any CNPJ, punctuated
    + r"|(?=[0-9A-Z]{0,11}[A-Z])[0-9A-Z]{12}\d{2})"  # an alphanumeric CNPJ: a letter among the 12
    + _EDGE_AFTER,
    re.IGNORECASE,
)
_PHONE = re.compile(
    r"(?:\+\s?55[\s.-]?|(?<![\w+])(?:55[\s.-]?)?)"  # +55, or 55, or nothing before the area code
    r"(?:\(\d{2}\)|\d{2})[\s.-]?9?\d{4}[\s.-]?\d{4}"  # (11) 98765-4321, 11 987654321, 1140041234
    + _EDGE_AFTER
    + r"|" + _EDGE_BEFORE + r"9\d{4}-\d{4}" + _EDGE_AFTER  # a mobile without its area code: 98765-4321
)
# What each shape above needs at least: a digit (token, tax id, phone) or ``:``/``=`` (password).
_MAY_HOLD = re.compile(r"[\d:=]")
QUIET = ("httpx", "httpcore", "telegram", "uvicorn.access", "alembic", "aiosqlite")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

# logging's own attributes of a record: everything else on it came from ``extra=``.
_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """What the logging call passed in ``extra=``."""
    return {key: value for key, value in vars(record).items() if key not in _RECORD_FIELDS}


class RedactSecrets(logging.Filter):
    """Scrubs secrets and personal data from a record; never raises at the logging call.

    - anything shaped like a bot token (the Bot API puts it in every URL and httpx logs URLs), and the
      exact secrets it is given (the ISP key, the webhook secret);
    - values after a password-like name (``senha=...``, ``"password": "..."``, ``ChaveIntegracao``);
    - CPF and CNPJ shapes (11 or 14 digits, bare or punctuated; an alphanumeric CNPJ's 12 letters or
      digits with at least one letter, then 2 digits, in either case) and Brazilian phone numbers with
      their area code (10 digits or more, with or without +55, spaces, parentheses or a hyphen).

    Digit runs of 9 digits or fewer (update ids, message ids, ticket numbers, latencies) stay as they
    are, and digits that are part of a word (a hex hash, ``v1``) are left alone: only the shapes of tax
    ids and phone numbers go.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # Longest first, so a secret that contains another is replaced whole; short ones would
        # scrub ordinary words (an empty or 3-letter "key" in a test), so they are not trusted.
        self._secrets = sorted({s for s in secrets if len(s) >= 8}, key=len, reverse=True)

    def scrub(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, "<secret>")
        if _MAY_HOLD.search(text) is None:
            return text  # most fields of a line (its message, names, steps): one search, not four
        text = _TOKEN.sub("<bot token>", text)
        text = _PASSWORD.sub(r"\1<password>", text)
        text = _TAX_ID.sub("<tax id>", text)
        return _PHONE.sub("<phone>", text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            self._scrub_record(record)
        except Exception:  # what could not be checked is dropped; the logging call never fails
            record.msg, record.args = "(a log record that could not be scrubbed)", None
            record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True

    def _scrub_record(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a malformed call (arguments that do not fit): shown as is, never raised at the caller
            message = f"{record.msg} {record.args!r}"
        scrubbed = self.scrub(message)
        if scrubbed != message:
            record.msg, record.args = scrubbed, None
        for key, value in extra_fields(record).items():
            if isinstance(value, str):
                setattr(record, key, self.scrub(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = self.scrub(record.stack_info)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``ts`` (UTC, ISO 8601), ``level``, ``logger``, ``msg``, the call's
    ``extra=`` fields, and ``exc`` with the traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in extra_fields(record).items():
            entry.setdefault(key, value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exc"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    """``2026-11-23 15:20:19,123 INFO bot.x: message key=value ...``, for a person at a terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        line = super().formatMessage(record)
        pairs = " ".join(f"{key}={_text_value(value)}" for key, value in extra_fields(record).items())
        return f"{line} {pairs}" if pairs else line


def _text_value(value: Any) -> str:
    text = "-" if value is None else str(value)
    return json.dumps(text, ensure_ascii=False) if not text or any(c.isspace() or c in "\"=" for c in text) else text


def formatter(fmt: LogFormat, stream: Any = None) -> logging.Formatter:
    if fmt == "auto":
        stream = stream if stream is not None else sys.stderr
        fmt = "text" if getattr(stream, "isatty", lambda: False)() else "json"
    return JsonFormatter() if fmt == "json" else TextFormatter()


# ---- chat references ------------------------------------------------------------------------------

_chat_key = os.urandom(32)  # until configure() is given the deployment's key: refs of this process only


@functools.lru_cache(maxsize=4096)  # a chat's turn and its sends log the same ref, chats come back
def chat_ref(chat_id: int) -> str:
    """A short keyed hash of a chat id for logs: the id itself is personal data, and a plain hash of
    a number that small is reversed by trying them all. Never all digits (it must not look like a
    phone number to the filter): 12 hex characters after a ``c``."""
    return "c" + hmac.new(_chat_key, str(chat_id).encode(), hashlib.sha256).hexdigest()[:12]


def set_chat_key(secret: str) -> None:
    """Derive the chat reference key from a deployment secret, so every process of one bot gives a
    chat the same reference (and nobody without the secret can compute it)."""
    global _chat_key  # noqa: PLW0603 - one key per process, set once at start
    _chat_key = hmac.new(secret.encode(), b"ispbot chat reference", hashlib.sha256).digest()
    chat_ref.cache_clear()


# ---- setting up a process -------------------------------------------------------------------------

def configure(level: int | str = logging.INFO, fmt: LogFormat = "auto", *, secrets: Iterable[str] = ()) -> None:
    """Route every record to stderr through ``RedactSecrets`` (knowing ``secrets``) in ``fmt``."""
    handler = logging.StreamHandler()
    handler.setFormatter(formatter(fmt, handler.stream))
    handler.addFilter(RedactSecrets(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # Neither format shows a record's thread, process or source line: not looking them up for every
    # record is what logging's own documentation advises ("Optimization"), and each update logs one.
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging._srcfile = None  # the documented switch off for the source line
    numeric = root.level
    for name in QUIET:
        logging.getLogger(name).setLevel(max(numeric, logging.WARNING))


def configure_fallback(level: int = logging.WARNING) -> None:
    """For the short sub-commands (``ispbot call``, ``migrate``, ...): plain ``LEVEL logger: message``
    lines, scrubbed, unless the process already logs somewhere (``ispbot run`` sets its own up)."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets())
    root.addHandler(handler)
    root.setLevel(level)
