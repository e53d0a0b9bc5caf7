"""How to reach the ISP web service, from the environment (``ISPBOT_ISP_*``) or a ``.env`` file."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

V1_PATH = "/ws/server_json.php"
V2_PATH = "/ws_json/ws_json.php"


def is_loopback_host(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class IspSettings(BaseSettings):
    """Many installations serve the web service under ``/routerbox/ws/rbx_server_json.php`` and
    ``/routerbox/ws_json/ws_json.php``: set the two paths when yours does."""

    model_config = SettingsConfigDict(env_prefix="ISPBOT_ISP_", env_file=".env", extra="ignore", env_ignore_empty=True)

    base_url: str = Field(description="Root of the installation, e.g. https://erp.example.net")
    key: SecretStr = Field(description="Integration key of the web-service instance")
    v1_path: str = Field(default=V1_PATH, description="Path of the first-generation web service")
    v2_path: str = Field(default=V2_PATH, description="Path of the second-generation web service")
    timezone: str = Field(default="America/Sao_Paulo", description="The ISP's time zone (IANA name)")
    timeout: float = Field(default=15.0, gt=0, description="Seconds to wait for one answer")
    max_concurrency: int = Field(default=8, ge=1, description="Calls in flight at once")
    retries: int = Field(default=2, ge=0, le=10, description="Extra tries of a failed query")
    breaker_threshold: int = Field(default=5, ge=1, description="Failures in a row that open the circuit")
    breaker_reset: float = Field(default=30.0, gt=0, description="Seconds the circuit stays open")

    @field_validator("base_url")
    @classmethod
    def _secure_base_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http(s) URL such as https://erp.example.net")
        if parts.scheme == "http" and not is_loopback_host(parts.hostname):
            raise ValueError("must use https:// (plain http is accepted only for loopback hosts)")
        if parts.query or parts.fragment:
            raise ValueError("must not carry a query string or fragment")
        return value.rstrip("/")

    @field_validator("v1_path", "v2_path")
    @classmethod
    def _absolute_path(cls, value: str) -> str:
        if not value.startswith("/"):
            raise ValueError("must start with /")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r} (use an IANA name like America/Sao_Paulo)") from None
        return value

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def v1_url(self) -> str:
        return self.base_url + self.v1_path

    @property
    def v2_url(self) -> str:
        return self.base_url + self.v2_path
