"""``ispbot run``: the bot on every configured channel (Telegram, polling by default or behind a
webhook; WhatsApp, through its webhook), in one process, until SIGTERM/SIGINT.

``bot.commands.run`` loads the settings (``RunSettings``: ``TelegramSettings``, ``WhatsAppSettings``,
``IspSettings``, ``BotSettings``, and ``ChatwootSettings`` with ``ISPBOT_STAFF_DESK=chatwoot``); a
wrong one stops the bot at once with a line naming the variable, and so does having no channel at
all. The web server (``bot.web``: ``/livez``, ``/readyz``, ``/healthz``, ``/metrics``, Chatwoot's
and WhatsApp's webhooks and, in webhook mode, Telegram's) runs whatever the channels, on
``ISPBOT_LISTEN_HOST``:``ISPBOT_LISTEN_PORT``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from dataclasses import dataclass
from pathlib import Path

import httpx
from flows.intents import default_intents
from telegram.error import TelegramError

from bot import i18n, logs
from bot.acs import AcsSettings
from bot.channels.telegram.failures import cannot_start
from bot.channels.telegram.polling import FatalPollingError
from bot.channels.telegram.settings import TelegramSettings
from bot.channels.whatsapp.client import CloudApiError, describe
from bot.channels.whatsapp.settings import WhatsAppSettings
from bot.desks.chatwoot.settings import ChatwootSettings
from bot.heap import freeze_startup_objects
from bot.isp import IspSettings
from bot.runtime.app import DeskSettingsError, Settings, build_app
from bot.settings import BotSettings, ServerSettings
from bot.store.errors import DatabaseRevisionError
from bot.web import serve

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class RunSettings:
    """What ``ispbot run`` reads (``bot.commands.run.load_settings``): at least one of ``telegram``
    and ``whatsapp``; ``chatwoot`` with ``ISPBOT_STAFF_DESK=chatwoot``."""

    server: ServerSettings
    telegram: TelegramSettings | None
    whatsapp: WhatsAppSettings | None
    isp: IspSettings
    bot: BotSettings
    chatwoot: ChatwootSettings | None = None
    acs: AcsSettings | None = None  # with ISPBOT_ACS_URL only

    def app_settings(self) -> Settings:
        return Settings(self.isp, self.bot, self.telegram, self.whatsapp, self.server, self.chatwoot, self.acs)


async def run(settings: RunSettings, stop: asyncio.Event | None = None) -> None:
    stop = stop or asyncio.Event()
    app = await build_app(settings.app_settings())
    runtime = app.runtime
    assert runtime is not None  # noqa: S101 - built with a channel's settings
    server_settings = settings.telegram or settings.server
    host, port = server_settings.listen_host, server_settings.listen_port
    try:
        await runtime.start()
        server = serve(runtime.web_app(), host, port, stop)
        telegram = settings.telegram
        if telegram is not None and telegram.mode == "polling":
            log.info("Telegram by polling%s; the web server on %s:%d",
                     ", WhatsApp by its webhook" if settings.whatsapp else "", host, port)
            server_task = asyncio.create_task(server)
            try:
                await runtime.run_polling(stop)
            finally:
                stop.set()
                await server_task
        else:
            named = (("Telegram", telegram), ("WhatsApp", settings.whatsapp))
            channels = " and ".join(name for name, on in named if on)
            log.info("%s by webhook: listening on %s:%d", channels, host, port)
            await runtime.run_webhook(stop, server)
    finally:
        await runtime.stop()
        await app.aclose()


def settle_startup(locales_dir: Path | None) -> None:
    """Before serving: the texts' folder chosen and the intents' models trained from it (``build_app``
    finds them made), then everything alive frozen: like the imports, they live as long as the process,
    and the collector need not walk them (``bot.heap``)."""
    i18n.use_locales_dir(locales_dir)
    default_intents()
    freeze_startup_objects()


def main(settings: RunSettings) -> int:
    """Run the bot with these settings (``ispbot run`` loads them) until a signal; the exit code."""
    secrets = [settings.isp.key.get_secret_value(), *(settings.chatwoot.secrets() if settings.chatwoot else []),
               *(settings.acs.secrets() if settings.acs else [])]
    telegram, whatsapp = settings.telegram, settings.whatsapp
    if telegram is not None:
        secrets.append(telegram.telegram_token.get_secret_value())
        if telegram.webhook_secret is not None:
            secrets.append(telegram.webhook_secret.get_secret_value())
    if whatsapp is not None:
        secrets += [s.get_secret_value() for s in (whatsapp.whatsapp_token, whatsapp.whatsapp_app_secret,
                                                    whatsapp.whatsapp_verify_token) if s is not None]
    level = settings.telegram or settings.server
    logs.configure(level.log_level, level.log_format, secrets=secrets)
    # Every process of this bot gives a chat the same reference in the logs.
    key = telegram.telegram_token if telegram is not None else whatsapp.whatsapp_app_secret if whatsapp else None
    logs.set_chat_key(key.get_secret_value() if key is not None else secrets[0])

    async def until_signalled() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await run(settings, stop)

    settle_startup(settings.bot.locales_dir)
    try:
        asyncio.run(until_signalled())
    # Each says what to fix.
    except (DatabaseRevisionError, DeskSettingsError, FatalPollingError, FileNotFoundError) as exc:
        log.error("%s", exc)
        return 1
    except TelegramError as exc:  # at start: getMe, the command menu, the webhook
        assert telegram is not None  # noqa: S101 - only Telegram raises these
        log.error("%s", cannot_start(exc, str(telegram.telegram_api_url)))
        return 1
    except CloudApiError as exc:  # at start: the number's record
        log.error("%s", whatsapp_cannot_start(exc))
        return 1
    except httpx.TransportError as exc:
        log.error("could not reach WhatsApp's Graph API (%s): check ISPBOT_WHATSAPP_API_URL and the network",
                  describe(exc))
        return 1
    return 0


def whatsapp_cannot_start(exc: CloudApiError) -> str:
    """What to fix when WhatsApp refused the start's check of the number."""
    if exc.meaning == "token":
        return ("WhatsApp refused ISPBOT_WHATSAPP_TOKEN (expired or revoked, code "
                f"{exc.code}): create a permanent token for the Meta app's system user and set it")
    if exc.status in (400, 404):
        return (f"WhatsApp does not know ISPBOT_WHATSAPP_PHONE_NUMBER_ID ({exc.reason}): copy the phone number's "
                "id from the app's WhatsApp > API setup page")
    return f"WhatsApp refused the start: {exc.reason}"
