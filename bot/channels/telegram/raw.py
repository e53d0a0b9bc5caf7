"""Bot API calls by name, with raw JSON in and out (python-telegram-bot's ``do_api_request``).

The sender delivers calls rendered as data (``render.ApiCall``), and polling wants ``getUpdates``
unparsed (one update python-telegram-bot cannot parse must not fail the batch), so both go through
this rather than the typed ``Bot`` methods. python-telegram-bot warns on each such call of a method
it has a typed form for; that advice does not apply here, so the warning is silenced once.
"""

from __future__ import annotations

import warnings
from typing import Any

from telegram.warnings import PTBUserWarning

from telegram import Bot

warnings.filterwarnings("ignore", message=r"Please use 'Bot\.", category=PTBUserWarning)


async def call(bot: Bot, method: str, params: dict[str, Any], *, read_timeout: float | None = None) -> Any:
    """The call's ``result`` as JSON; Telegram's errors as python-telegram-bot's exceptions."""
    return await bot.do_api_request(method, api_kwargs=params, read_timeout=read_timeout)
