"""``ispbot run``: the bot on Telegram, polling (default) or behind a webhook, until SIGTERM/SIGINT.

``bot.commands.run`` loads the settings (``TelegramSettings``, ``IspSettings``,
``BotSettings``, and ``ChatwootSettings`` with ``ISPBOT_STAFF_DESK=chatwoot``); a wrong one stops the
bot at once with a line naming the variable. The web server (``bot.web``: ``/livez``, ``/readyz``,
``/healthz``, ``/metrics``, Chatwoot's webhook and, in webhook mode, Telegram's) runs in both modes,
on ``ISPBOT_LISTEN_HOST``:``ISPBOT_LISTEN_PORT``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from telegram.error import TelegramError

from bot import logs
from bot.channels.telegram.failures import cannot_start
from bot.channels.telegram.polling import FatalPollingError
from bot.channels.telegram.settings import TelegramSettings
from bot.desks.chatwoot.settings import ChatwootSettings
from bot.heap import freeze_startup_objects
from bot.isp import IspSettings
from bot.runtime.app import DeskSettingsError, Settings, build_app
from bot.settings import BotSettings
from bot.store.errors import DatabaseRevisionError
from bot.web import serve

log = logging.getLogger(__name__)


async def run(telegram: TelegramSettings, isp_settings: IspSettings, bot_settings: BotSettings,
              stop: asyncio.Event | None = None, chatwoot: ChatwootSettings | None = None) -> None:
    stop = stop or asyncio.Event()
    app = await build_app(Settings(isp_settings, bot_settings, telegram, chatwoot))
    runtime = app.runtime
    assert runtime is not None  # noqa: S101 - built with Telegram settings
    try:
        await runtime.start()
        server = serve(runtime.web_app(), telegram.listen_host, telegram.listen_port, stop)
        if telegram.mode == "webhook":
            log.info("webhook mode: listening on %s:%d", telegram.listen_host, telegram.listen_port)
            await runtime.run_webhook(stop, server)
        else:
            log.info("polling mode; health and /metrics on %s:%d", telegram.listen_host, telegram.listen_port)
            server_task = asyncio.create_task(server)
            try:
                await runtime.run_polling(stop)
            finally:
                stop.set()
                await server_task
    finally:
        await runtime.stop()
        await app.aclose()


def main(telegram: TelegramSettings, isp_settings: IspSettings, bot_settings: BotSettings,
         chatwoot: ChatwootSettings | None = None) -> int:
    """Run the bot with these settings (``ispbot run`` loads them) until a signal; the exit code."""
    token = telegram.telegram_token.get_secret_value()
    secrets = [token, isp_settings.key.get_secret_value(), *(chatwoot.secrets() if chatwoot else [])]
    if telegram.webhook_secret is not None:
        secrets.append(telegram.webhook_secret.get_secret_value())
    logs.configure(telegram.log_level, telegram.log_format, secrets=secrets)
    logs.set_chat_key(token)  # every process of this bot gives a chat the same reference

    async def until_signalled() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await run(telegram, isp_settings, bot_settings, stop, chatwoot)

    freeze_startup_objects()  # the imports are done: what is alive now lives as long as the process
    try:
        asyncio.run(until_signalled())
    # Each says what to fix.
    except (DatabaseRevisionError, DeskSettingsError, FatalPollingError, FileNotFoundError) as exc:
        log.error("%s", exc)
        return 1
    except TelegramError as exc:  # at start: getMe, the command menu, the webhook
        log.error("%s", cannot_start(exc, str(telegram.telegram_api_url)))
        return 1
    return 0
