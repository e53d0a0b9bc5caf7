"""How to reach Chatwoot, from the environment (``ISPBOT_CHATWOOT_*``) or a ``.env`` file; read only
when ``ISPBOT_STAFF_DESK=chatwoot``, and then every field without a default must be set.

The token is an access token of a Chatwoot user who is an agent of the inbox (Profile settings, Access
Token); the webhook secret is the one Chatwoot shows in the API inbox's settings (Configuration,
Webhook secret, Chatwoot 4.13 and later), with which it signs what it posts to the bot. Each field's
description is what ``.env.example`` and docs/operator-guide.md say of it.
"""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.settings import root_url

REQUIRED = ("url", "account_id", "inbox_id", "api_token", "webhook_secret")


class ChatwootSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="ISPBOT_CHATWOOT_", env_file=".env", extra="ignore", env_ignore_empty=True,
    )

    url: str | None = Field(default=None, description="root of the Chatwoot installation, e.g. https://chat.example.com")
    account_id: int | None = Field(default=None, ge=1, description="the Chatwoot account's number (in its URLs)")
    inbox_id: int | None = Field(default=None, ge=1, description="the API-channel inbox handoffs go to")
    api_token: SecretStr | None = Field(default=None, description="access token of the Chatwoot user the bot acts as")
    webhook_secret: SecretStr | None = Field(
        default=None, description="the API inbox's webhook secret, which signs what Chatwoot posts",
    )
    team_id: int | None = Field(default=None, ge=1, description="team a handed-off conversation is assigned to")
    webhook_tolerance: int = Field(
        default=300, ge=30, le=3600, description="seconds a signed webhook stays valid (older ones are refused)",
    )
    timeout: float = Field(default=10.0, gt=0, le=120, description="seconds a call to Chatwoot may take")
    agents: str = Field(
        default="", description="the ISP user each Chatwoot agent acts as, by the agent's id in Chatwoot: "
        "12=ana.silva,15=joao.souza (an agent not listed acts as ISPBOT_ISP_USER)",
    )

    @field_validator("url")
    @classmethod
    def _root_url(cls, value: str | None) -> str | None:
        return None if value is None else root_url(value, "https://chat.example.com")

    @field_validator("api_token", "webhook_secret")
    @classmethod
    def _no_blanks(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and (not value.get_secret_value().strip() or any(
                c.isspace() for c in value.get_secret_value().strip())):
            raise ValueError("must be the value Chatwoot shows, without spaces")
        return SecretStr(value.get_secret_value().strip()) if value is not None else None

    @field_validator("agents")
    @classmethod
    def _agent_pairs(cls, value: str) -> str:
        _pairs(value)
        return value

    def agent_users(self) -> dict[int, str]:
        """The ISP user of each agent listed in ``agents``, by the agent's id."""
        return _pairs(self.agents)

    def missing(self) -> list[str]:
        """The variables a Chatwoot desk needs that are not set."""
        return [f"ISPBOT_CHATWOOT_{name.upper()}" for name in REQUIRED if getattr(self, name) is None]

    def secrets(self) -> list[str]:
        """What the logs must never show."""
        return [s.get_secret_value() for s in (self.api_token, self.webhook_secret) if s is not None]


def _pairs(value: str) -> dict[int, str]:
    found: dict[int, str] = {}
    for pair in filter(None, (part.strip() for part in value.split(","))):
        agent, _, user = (side.strip() for side in pair.partition("="))
        if not agent.isdecimal() or not user or any(c.isspace() for c in user):
            raise ValueError(f"{pair!r} is not AGENT_ID=ISP_USER (e.g. 12=ana.silva, pairs separated by commas)")
        found[int(agent)] = user
    return found
