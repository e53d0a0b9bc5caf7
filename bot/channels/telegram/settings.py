"""How to reach Telegram, from the environment (``ISPBOT_*``) or a ``.env`` file; each field's
description is what ``.env.example`` and docs/operator-guide.md say of it.

``ISPBOT_TELEGRAM_API_URL`` is the root of the Bot API server (Telegram's, or a self-hosted
``telegram-bot-api``): python-telegram-bot's ``base_url``. Webhook mode needs the public HTTPS root
Telegram posts to and a secret: Telegram sends it back in the ``X-Telegram-Bot-Api-Secret-Token``
header, and a hash of it names the path, so neither is guessable from the other. Paid broadcast
(``ISPBOT_PAID_BROADCAST``) is for the bot's own notices only, never replies, and off by default:
Telegram bills each message in Stars.
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal, Self

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.channels.telegram.intake import DEFAULT_CHAT_BACKLOG
from bot.logs import LogFormat
from bot.settings import CONCURRENCY, LISTEN_HOST, LISTEN_PORT, LOG_FORMAT, LOG_LEVEL, level_name, root_url

_TOKEN = re.compile(r"\d{1,20}:[A-Za-z0-9_-]{20,}")
_SECRET = re.compile(r"[A-Za-z0-9_-]{16,256}")


class TelegramSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ISPBOT_", env_file=".env", extra="ignore", env_ignore_empty=True)

    telegram_token: SecretStr = Field(description="the bot's token from @BotFather")
    telegram_api_url: str = Field(default="https://api.telegram.org", description="root of the Bot API server")
    mode: Literal["polling", "webhook"] = Field(
        default="polling", description="how updates arrive: polling (no public address) or webhook",
    )
    webhook_url: str | None = Field(
        default=None, description="webhook mode: the public https root Telegram posts updates to",
    )
    webhook_secret: SecretStr | None = Field(
        default=None, description="webhook mode: a secret, 16-256 of A-Z a-z 0-9 _ -",
    )
    listen_host: str = LISTEN_HOST
    listen_port: int = LISTEN_PORT
    staff_chat_id: int | None = Field(default=None, description="the staff supergroup (forum) chat id")
    concurrency: int = CONCURRENCY
    chat_backlog: int = Field(
        default=DEFAULT_CHAT_BACKLOG, ge=1, le=1000,
        description="updates one chat may have waiting; what it sends beyond is set aside with a 'slow down'",
    )
    telegram_retry_hours: float = Field(
        default=24.0, gt=0, le=168,
        description="hours an answer is retried while Telegram cannot be reached; then a dead letter",
    )
    paid_broadcast: bool = Field(
        default=False, description="send the bot's own notices as paid broadcasts (a fee per message)",
    )
    log_format: LogFormat = LOG_FORMAT
    log_level: str = LOG_LEVEL

    @field_validator("telegram_token")
    @classmethod
    def _token_shape(cls, value: SecretStr) -> SecretStr:
        if not _TOKEN.fullmatch(value.get_secret_value().strip()):
            raise ValueError("does not look like a bot token (digits:letters, as @BotFather gives it)")
        return SecretStr(value.get_secret_value().strip())

    @field_validator("telegram_api_url", "webhook_url")
    @classmethod
    def _root_url(cls, value: str | None) -> str | None:
        return None if value is None else root_url(value)

    @field_validator("log_level")
    @classmethod
    def _level_name(cls, value: str) -> str:
        return level_name(value)

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not _SECRET.fullmatch(value.get_secret_value()):
            raise ValueError("must be 16-256 characters of A-Z, a-z, 0-9, _ and -")
        return value

    @model_validator(mode="after")
    def _webhook_complete(self) -> Self:
        if self.mode == "webhook":
            if self.webhook_url is None or not self.webhook_url.startswith("https://"):
                raise ValueError("ISPBOT_WEBHOOK_URL must be set to the bot's public https:// address in webhook mode")
            if self.webhook_secret is None:
                raise ValueError("ISPBOT_WEBHOOK_SECRET must be set in webhook mode")
        return self

    @property
    def base_url(self) -> str:
        """python-telegram-bot's ``base_url``: the token is appended to it."""
        return f"{self.telegram_api_url}/bot"

    @property
    def base_file_url(self) -> str:
        """Where python-telegram-bot downloads files from (getFile's ``file_path``): the token is appended."""
        return f"{self.telegram_api_url}/file/bot"

    @property
    def webhook_path(self) -> str:
        """``/telegram/<hash of the secret>``: where Telegram posts updates."""
        secret = self.webhook_secret.get_secret_value() if self.webhook_secret else ""
        return "/telegram/" + hashlib.sha256(secret.encode()).hexdigest()[:32]
