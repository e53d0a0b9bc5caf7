"""JSON text on the paths every update takes (a chat's stored state, the Bot API's bodies, the log line).

orjson writes and reads it several times faster than the standard library, for the same values. What
orjson refuses (a lone surrogate, an integer beyond 64 bits, a datetime, a str or int subclass; to read:
a text that is not UTF-8, ``NaN``) is handed to ``json``, which writes it, reads it or raises exactly
as it did. Two differences are left, on values the bot never stores: orjson writes a plain ``Enum`` by
its value, where ``json`` refuses it, and a float that is not a number (``nan``, ``inf``) as ``null``,
where ``json`` writes ``NaN``, which is not JSON (PostgreSQL refuses it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

# Keys that are not strings written as ``json`` writes them; the rest passed to ``json`` (see above).
_OPTIONS = (
    orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
)
_standard = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def dumps(value: Any, *, default: Callable[[Any], Any] | None = None) -> str:
    """``value`` as compact JSON text, non-ASCII characters as themselves; ``default`` turns what JSON
    has no type for into what it has (``str``, say), as ``json.dumps(default=…)`` does."""
    try:
        return orjson.dumps(value, default=default, option=_OPTIONS).decode()
    except orjson.JSONEncodeError:
        if default is None:
            return _standard(value)
        return json.dumps(value, ensure_ascii=False, default=default)


def utf8(value: Any) -> bytes:
    """``value`` as compact JSON in UTF-8 that is always valid: a lone surrogate is written as its
    ``\\u`` escape (a body for a peer that must be able to read it)."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":")).encode("ascii")


def loads(text: str | bytes) -> Any:
    """The value of a JSON text; ``json.JSONDecodeError`` (a ``ValueError``) when it is not one."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
