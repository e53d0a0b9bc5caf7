"""How to reach WhatsApp's Cloud API, from the environment (``ISPBOT_WHATSAPP_*``) or ``.env``.

WhatsApp is configured when ``ISPBOT_WHATSAPP_TOKEN`` is set; the phone number id, the app secret
(which signs what Meta posts to the webhook) and the verify token (which Meta echoes when the webhook
is registered) are then required too. ``ISPBOT_WHATSAPP_API_URL`` is the Graph API's root (the tests
point it at a fake); ``ISPBOT_WHATSAPP_RATE`` the number's throughput tier in messages a second.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Self

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.channels.whatsapp.templates import load_templates
from bot.settings import root_url

REQUIRED_WITH_TOKEN = ("phone_number_id", "app_secret", "verify_token")
_VERSION = re.compile(r"v\d{1,3}\.\d{1,2}")


class WhatsAppSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ISPBOT_", env_file=".env", extra="ignore", env_ignore_empty=True)

    whatsapp_token: SecretStr | None = Field(
        default=None, description="WhatsApp: a permanent token of the Meta app's system user (unset: no WhatsApp)",
    )
    whatsapp_phone_number_id: str | None = Field(
        default=None, description="WhatsApp: the id of the business phone number (not the number itself)",
    )
    whatsapp_app_secret: SecretStr | None = Field(
        default=None, description="WhatsApp: the Meta app's secret, which signs the webhook's posts",
    )
    whatsapp_verify_token: SecretStr | None = Field(
        default=None, description="WhatsApp: a word of your choice Meta sends back when the webhook is registered",
    )
    whatsapp_api_url: str = Field(default="https://graph.facebook.com", description="WhatsApp: root of the Graph API")
    whatsapp_api_version: str = Field(default="v23.0", description="WhatsApp: the Graph API version, vNN.N")
    whatsapp_rate: int = Field(
        default=80, ge=1, le=1000, description="WhatsApp: messages a second the number may send (its throughput tier)",
    )
    whatsapp_max_media_mb: int = Field(
        default=16, ge=1, le=100, description="WhatsApp: the largest receipt (image or document) fetched, in MB",
    )
    whatsapp_templates: Path | None = Field(
        default=None,
        description="WhatsApp: YAML naming each kind of notice's approved template, for outside 24 hours "
                    "(example: ops/whatsapp-templates.yaml)",
    )

    @property
    def configured(self) -> bool:
        return self.whatsapp_token is not None

    @field_validator("whatsapp_api_url")
    @classmethod
    def _root_url(cls, value: str) -> str:
        return root_url(value)

    @field_validator("whatsapp_api_version")
    @classmethod
    def _version(cls, value: str) -> str:
        value = value.strip()
        if not _VERSION.fullmatch(value):
            raise ValueError("must be a Graph API version such as v23.0")
        return value

    @field_validator("whatsapp_templates")
    @classmethod
    def _templates(cls, value: Path | None) -> Path | None:
        if value is not None:
            load_templates(value)  # refused at start, naming what to fix, not at the first notice
        return value

    @field_validator("whatsapp_phone_number_id")
    @classmethod
    def _number_id(cls, value: str | None) -> str | None:
        if value is not None and not value.strip().isdecimal():
            raise ValueError("must be the phone number's id (digits, from the app's WhatsApp > API setup page)")
        return None if value is None else value.strip()

    @field_validator("whatsapp_token", "whatsapp_app_secret", "whatsapp_verify_token")
    @classmethod
    def _trimmed(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        secret = value.get_secret_value().strip()
        if not secret or any(c.isspace() for c in secret):
            raise ValueError("must be one word, without spaces")
        return SecretStr(secret)

    @model_validator(mode="after")
    def _complete(self) -> Self:
        if self.whatsapp_token is None:
            return self
        missing = [f"ISPBOT_WHATSAPP_{name.upper()}" for name in REQUIRED_WITH_TOKEN
                   if getattr(self, f"whatsapp_{name}") is None]
        if missing:
            raise ValueError(f"{', '.join(missing)} must be set too when ISPBOT_WHATSAPP_TOKEN is")
        return self

    @property
    def graph_root(self) -> str:
        """The versioned root every call is made under: ``https://graph.facebook.com/v23.0``."""
        return f"{self.whatsapp_api_url}/{self.whatsapp_api_version}"
