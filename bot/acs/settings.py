"""How to reach the ISP's GenieACS NBI, from the environment (``ISPBOT_ACS_*``) or a ``.env`` file.
Without ``ISPBOT_ACS_URL`` the bot has no ACS: no Wi-Fi or router flow shows, troubleshooting and
the technicians' orders stay as they were. Each field's description is what ``.env.example`` and
docs/operator-guide.md say of it."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class AcsSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ISPBOT_ACS_", env_file=".env", extra="ignore",
                                      env_ignore_empty=True)

    url: str | None = Field(
        default=None, description="GenieACS's NBI root, e.g. http://acs.example.net:7557 (unset: no ACS)",
    )
    username: str | None = Field(default=None, description="HTTP basic user of the NBI, when it asks for one")
    password: SecretStr | None = Field(default=None, description="HTTP basic password of the NBI")
    timeout: float = Field(
        default=10.0, gt=1, le=60,
        description=("seconds a turn may wait on the ACS, all its calls together; a change the router confirms"
                     " later is told as sent"),
    )

    @property
    def configured(self) -> bool:
        return bool(self.url)

    @property
    def root(self) -> str:
        return (self.url or "").strip().rstrip("/")

    def secrets(self) -> list[str]:
        """What the logs must never show."""
        return [self.password.get_secret_value()] if self.password is not None else []
