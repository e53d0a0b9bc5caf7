"""Bot API calls by name, with raw JSON in and out (python-telegram-bot's ``do_api_request``).

The sender delivers calls rendered as data (``render.ApiCall``), and polling wants ``getUpdates``
unparsed (one update python-telegram-bot cannot parse must not fail the batch), so both go through
this rather than the typed ``Bot`` methods. python-telegram-bot warns on each such call of a method
it has a typed form for; that advice does not apply here, so the warning is silenced once.

Both also wait out Telegram's flood control: ``retry_after_seconds`` reads a 429's wait in either form.
"""

from __future__ import annotations

import base64
import datetime as dtm
import warnings
from typing import Any

from telegram._utils.types import ODVInput
from telegram.error import RetryAfter
from telegram.request import BaseRequest
from telegram.warnings import PTBUserWarning

from telegram import Bot, InputFile

UPLOAD = "ispbot_upload"  # render.UPLOAD (render imports the engine's replies; this module stays bare)

warnings.filterwarnings("ignore", message=r"Please use 'Bot\.", category=PTBUserWarning)


async def call(
    bot: Bot, method: str, params: dict[str, Any], *, read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
) -> Any:
    """The call's ``result`` as JSON; Telegram's errors as python-telegram-bot's exceptions. A file kept
    as ``{UPLOAD: base 64, "filename": ...}`` goes as a multipart upload. ``read_timeout``: the
    request's own unless given (``None`` would wait for ever on a Bot API that never answers)."""
    if any(isinstance(value, dict) and UPLOAD in value for value in params.values()):
        params = {key: _input_file(value) for key, value in params.items()}
    return await bot.do_api_request(method, api_kwargs=params, read_timeout=read_timeout)


def _input_file(value: Any) -> Any:
    if isinstance(value, dict) and UPLOAD in value:
        return InputFile(base64.b64decode(value[UPLOAD]), filename=value.get("filename"), attach=True)
    return value


def retry_after_seconds(exc: RetryAfter) -> float:
    """How long a 429 asks to wait. python-telegram-bot 22 gives whole seconds (and a deprecation
    warning) or, when ``PTB_TIMEDELTA`` is set, a ``timedelta``, its only form from the next major."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = exc.retry_after
    if isinstance(value, dtm.timedelta):
        return value.total_seconds()
    return float(value)
