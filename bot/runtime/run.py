"""``ispbot run``: the bot on every configured channel (Telegram, polling by default or behind a
webhook; WhatsApp, through its webhook), in one process, until SIGTERM/SIGINT.

Settings come from the environment or ``.env`` (``TelegramSettings``, ``WhatsAppSettings``,
``IspSettings``, ``BotSettings``); a wrong one stops the bot at once with a line naming the variable,
and so does having no channel at all. The web server (``bot.web``: ``/livez``, ``/readyz``,
``/healthz``, ``/metrics`` and the webhooks) runs whatever the channels, on
``ISPBOT_LISTEN_HOST``:``ISPBOT_LISTEN_PORT``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from dataclasses import dataclass

import httpx
from pydantic import ValidationError
from telegram.error import TelegramError

from bot import logs
from bot.channels.telegram.failures import cannot_start
from bot.channels.telegram.polling import FatalPollingError
from bot.channels.telegram.settings import TelegramSettings
from bot.channels.whatsapp.client import CloudApiError
from bot.channels.whatsapp.settings import WhatsAppSettings
from bot.cli_support import EXIT_INVALID, Refused, configuration_refused, load_all, refused
from bot.heap import freeze_startup_objects
from bot.isp import IspSettings
from bot.runtime.app import Settings, build_app
from bot.settings import BotSettings, ServerSettings
from bot.store.errors import DatabaseRevisionError
from bot.web import serve

log = logging.getLogger(__name__)

NO_CHANNEL = (
    "configuration: no channel is configured: set ISPBOT_TELEGRAM_TOKEN for Telegram, or ISPBOT_WHATSAPP_TOKEN, "
    "ISPBOT_WHATSAPP_PHONE_NUMBER_ID, ISPBOT_WHATSAPP_APP_SECRET and ISPBOT_WHATSAPP_VERIFY_TOKEN for WhatsApp"
)


@dataclass(frozen=True)
class RunSettings:
    """What ``ispbot run`` reads: at least one of ``telegram`` and ``whatsapp``."""

    server: ServerSettings
    telegram: TelegramSettings | None
    whatsapp: WhatsAppSettings | None
    isp: IspSettings
    bot: BotSettings

    def app_settings(self) -> Settings:
        return Settings(self.isp, self.bot, self.telegram, self.whatsapp, self.server)


def _telegram() -> TelegramSettings | None:
    """Telegram's settings, None when its token is not set (Telegram is then no channel here)."""
    try:
        return TelegramSettings()
    except ValidationError as exc:
        if all(e["loc"] == ("telegram_token",) and e["type"] == "missing" for e in exc.errors()):
            return None
        raise configuration_refused(exc, TelegramSettings) from None


def load_settings() -> RunSettings:
    """The settings; ``Refused`` with a line for each wrong or missing variable, or for no channel."""
    problems: list[str] = []
    telegram = None
    try:
        telegram = _telegram()
    except Refused as exc:
        problems.append(str(exc))
    try:
        whatsapp: WhatsAppSettings | None = WhatsAppSettings()
    except ValidationError as exc:
        whatsapp = None
        problems.append(str(configuration_refused(exc, WhatsAppSettings)))
    else:
        if telegram is None and not problems and whatsapp is not None and not whatsapp.configured:
            problems.append(NO_CHANNEL)
    try:
        server, isp, bot = load_all(ServerSettings, IspSettings, BotSettings)
    except Refused as exc:
        problems.append(str(exc))
    if problems:
        # A wrong variable shared by Telegram's and the server's settings is one line, not two.
        lines = list(dict.fromkeys(line for problem in problems for line in problem.splitlines()))
        raise Refused(EXIT_INVALID, "\n".join(lines))
    return RunSettings(server, telegram, whatsapp if whatsapp is not None and whatsapp.configured else None, isp, bot)


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


def main() -> int:
    try:
        settings = load_settings()
    except Refused as exc:
        refused("ispbot run", exc)
        return exc.code
    secrets = [settings.isp.key.get_secret_value()]
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

    freeze_startup_objects()  # the imports are done: what is alive now lives as long as the process
    try:
        asyncio.run(until_signalled())
    except (DatabaseRevisionError, FatalPollingError, FileNotFoundError) as exc:  # each says what to fix
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
                  type(exc).__name__)
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
