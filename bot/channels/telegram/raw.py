"""Bot API calls by name, with raw JSON in and out, on python-telegram-bot's request object.

The sender delivers calls rendered as data (``render.ApiCall``), and polling wants ``getUpdates``
unparsed (one update python-telegram-bot cannot parse must not fail the batch), so both go through
this rather than the typed ``Bot`` methods. A call goes to ``Bot.request`` as ``Bot.do_api_request``
would send it, without what ``Bot`` adds on every call (defaults this bot does not set, and a warning
to use the typed method, which does not apply here), and fails as it would: the request maps
Telegram's answers to python-telegram-bot's exceptions. One difference: a 404 or 401 is
``InvalidToken`` as the request raises it, not wrapped in ``EndPointNotFound``
(``failures.describe`` reads both alike). ``getUpdates`` keeps ``do_api_request``, on its own request.

Both also wait out Telegram's flood control: ``retry_after_seconds`` reads a 429's wait in either form.
"""

from __future__ import annotations

import base64
import datetime as dtm
import warnings
from typing import Any

from telegram._utils.types import ODVInput
from telegram.error import RetryAfter
from telegram.request import BaseRequest, RequestData
from telegram.request._requestparameter import RequestParameter
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
    if method == "getUpdates":  # polling's own request (its timeouts), which ``Bot`` keeps to itself
        return await bot.do_api_request(method, api_kwargs=params, read_timeout=read_timeout)
    data = RequestData([RequestParameter.from_input(key, value) for key, value in params.items() if value is not None])
    return await bot.request.post(f"{bot.base_url}/{method}", request_data=data, read_timeout=read_timeout)


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
