"""The bot's own settings, from the environment (``ISPBOT_*``) or a ``.env`` file.

How to reach the ISP lives in ``bot.isp.settings.IspSettings`` (``ISPBOT_ISP_*``); this holds the
database and the operator's policy, the choices flows follow (``flows.policy.Policy``).

``ISPBOT_TICKET_MODE`` is a ``code`` of the ISP's own ``get_tickets_mode`` list: every installation
registers its modes by hand, so the operator sets the code their system uses for Telegram (the
sandbox's is "7", hence the default). The bot does not look the code up at start: a wrong code shows
as the ISP refusing the first ticket, which the operator sees in the log with the ISP's error code.
"""

from __future__ import annotations

import re
from datetime import time, timedelta
from pathlib import Path
from typing import Any, Literal

import yaml
from flows.hours import read_hours
from flows.policy import CancelTerms, Policy
from flows.stock import StockCatalog
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot import yamltext
from bot.logs import LEVELS, LogFormat
from bot.store.urls import DEFAULT_URL, async_url

# The processor's DEFAULT_CONCURRENCY (bot.runtime.processor, which this layer cannot import; a test
# keeps the two equal).
_DEFAULT_CONCURRENCY = 12

# The settings of the process whatever its channels: defined once, read by ``ServerSettings`` and by
# ``TelegramSettings`` (whose section of .env.example and the operator's guide lists them).
LISTEN_HOST = Field(default="127.0.0.1", description="address the web server listens on")
LISTEN_PORT = Field(
    default=8080, ge=1, le=65535, description="port of /livez, /readyz, /healthz, /metrics and the webhooks",
)
CONCURRENCY = Field(default=_DEFAULT_CONCURRENCY, ge=1, le=1024, description="chats processed at the same time")
LOG_FORMAT: Any = Field(default="auto", description="json, text, or auto (text on a terminal)")
LOG_LEVEL = Field(default="INFO", description="DEBUG, INFO, WARNING or ERROR")


def root_url(value: str, example: str = "") -> str:
    """A service's root URL as settings take it: trimmed, without a trailing slash, http(s) only."""
    value = value.strip().rstrip("/")
    if not value.startswith(("https://", "http://")):
        raise ValueError(f"must be an http(s) URL{', e.g. ' + example if example else ''}")
    return value


def level_name(value: str) -> str:
    value = value.strip().upper()
    if value not in LEVELS:
        raise ValueError(f"must be one of {', '.join(LEVELS)}")
    return value


class ServerSettings(BaseSettings):
    """The web server, the chats processed at once and the log: what ``ispbot run`` needs whichever
    channels it runs (a WhatsApp-only bot has no ``TelegramSettings``)."""

    model_config = SettingsConfigDict(env_prefix="ISPBOT_", env_file=".env", extra="ignore", env_ignore_empty=True)

    listen_host: str = LISTEN_HOST
    listen_port: int = LISTEN_PORT
    concurrency: int = CONCURRENCY
    log_format: LogFormat = LOG_FORMAT
    log_level: str = LOG_LEVEL

    @field_validator("log_level")
    @classmethod
    def _level_name(cls, value: str) -> str:
        return level_name(value)


class BotSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ISPBOT_", env_file=".env", extra="ignore", env_ignore_empty=True)

    database_url: str = Field(default=DEFAULT_URL, description="sqlite:///FILE or postgresql://USER@HOST/DB")
    isp_user: str = Field(default="ispbot", description="ISP system user the bot opens tickets as")
    ticket_mode: str = Field(default="7", description="code of the Telegram mode in get_tickets_mode")
    link_max_failures: int = Field(default=5, ge=1, le=100, description="failed link attempts per window")
    link_window_minutes: int = Field(default=60, ge=1, le=7 * 24 * 60, description="window of link attempts")
    link_target_max_failures: int = Field(
        default=10, ge=1, le=1000,
        description="failed link attempts at one tax id or PPPoE login per window, all chats together",
    )
    support_phone: str = Field(
        default="", description="the ISP's phone, told to people the bot cannot hand to a person (not linked, no desk)",
    )
    support_hours: str = Field(
        default="", max_length=120,
        description=(
            "when that phone and the staff desk answer, as people read it and the bot reads it "
            "(days then hours, in the ISP's time zone: seg-sex 08:00-18:00; sáb 08:00-12:00)"
        ),
    )
    address: str = Field(
        default="", max_length=200, description="the ISP's address (an office or a shop), told to anyone who asks",
    )
    website: str = Field(default="", max_length=120, description="the ISP's web site, told to anyone who asks")
    sales_phone: str = Field(default="", description="the sales team's phone, told to people who want to subscribe")
    sales_address: str = Field(
        default="", max_length=200, description="where to subscribe besides the phone: a web site or a shop's address",
    )
    unblock_enabled: bool = Field(default=True, description="offer unblock in trust to blocked subscribers")
    unblock_every_days: int = Field(default=30, ge=1, le=366, description="days between two unblocks of a contract")
    unblock_max_overdue: int = Field(default=2, ge=0, le=99, description="most overdue bills an unblock allows")
    unblock_release_minutes: int = Field(default=15, ge=1, le=24 * 60, description="minutes the ISP takes to release")
    staff_desk: Literal["telegram", "chatwoot"] | None = Field(
        default=None,
        description="where staff answer handoffs: telegram (the topics of ISPBOT_STAFF_CHAT_ID, the default when "
                    "it is set) or chatwoot",
    )
    company: str = Field(
        default="", max_length=160,
        description="the ISP's legal name and CNPJ as printed on cancel receipts and yearly statements",
    )
    company_tax_id: str = Field(
        default="", max_length=20, pattern=r"^[0-9A-Za-z./\- ]*$",
        description="the ISP's CNPJ: a payment receipt naming another payee goes to a person",
    )
    self_cancel: bool = Field(
        default=True, description="subscribers cancel in the chat (contract_cancel); off: a person takes it",
    )
    retention_offer: str = Field(
        default="", max_length=400, description="the one retention offer shown before a cancel (empty: none)",
    )
    cancel_reversal_reason: int = Field(
        default=0, ge=0, description="contract_cancel billing.reason_id: the ISP's reason for reversing bills",
    )
    cancel_fine_account: int = Field(
        default=0, ge=0, description="contract_cancel fine.account_id: an account of nature Receipts",
    )
    cancel_fine_history: int = Field(
        default=0, ge=0, description="contract_cancel fine.historic_id: a history of operation Credit, type Term",
    )
    cancel_future_billing: bool = Field(default=True, description="contract_cancel reverses future bills")
    cancel_period_action: Literal["none", "cancel", "block"] = Field(
        default="none", description="the current period's bill on a cancel: none, cancel (reverse) or block",
    )
    cancel_pre_billing: bool = Field(default=True, description="contract_cancel deletes pre-billings")
    cancel_withdrawal_topic: int = Field(
        default=0, ge=0, description="topic code of the equipment-withdrawal ticket a cancel opens (0: none)",
    )
    suspend_min_days: int = Field(default=30, ge=1, le=365, description="fewest days of a temporary suspension")
    suspend_max_days: int = Field(default=120, ge=1, le=365, description="most days of a temporary suspension")
    suspend_start_within_days: int = Field(
        default=30, ge=0, le=365, description="how many days ahead a temporary suspension may start",
    )
    contest_topic: str = Field(
        default="", max_length=80, description="name of the ticket topic of contested charges (empty: a financial one)",
    )
    restart_wait_seconds: int = Field(  # the restart watch's, after the turn; the answer promises "within" it
        default=60, ge=10, le=90, description="how long the bot looks for a restarted connection to come back",
    )
    handoff_wait_minutes: int = Field(default=5, ge=1, le=24 * 60, description="minutes before the wait notice")
    handoff_minutes_each: int = Field(default=10, ge=1, le=24 * 60, description="minutes a staff member takes per case")
    contact_quiet_minutes: int = Field(
        default=30, ge=1, le=24 * 60,
        description="minutes without a message after which a person's next one begins a new contact (a new protocol)",
    )
    deadline_warn_hours: int = Field(
        default=48, ge=1, le=30 * 24,
        description="hours before a complaint's or request's deadline runs out that staff are warned",
    )
    notice_due_days: int = Field(
        default=3, ge=0, le=30, description="days before a bill's due date that its reminder goes (0: none)",
    )
    notice_overdue_days: int = Field(
        default=1, ge=1, le=30, description="days after an unpaid due date that the overdue notice goes",
    )
    notice_every: int = Field(
        default=15, ge=0, le=24 * 60,
        description="minutes between rounds of the notices the bot writes first (0: no rounds)",
    )
    notice_quiet: str = Field(
        default="21:00-08:00", description="hours (the ISP's time zone) when no notice is sent: they wait",
    )
    stock_file: Path | None = Field(default=None, description="YAML of stock products (label code, id) and locations")
    locales_dir: Path | None = Field(
        default=None, description="folder of texts to use instead of those shipped with ispbot (pt_BR/, en/, es/...)",
    )

    @field_validator("notice_quiet")
    @classmethod
    def _quiet_hours(cls, value: str) -> str:
        quiet_hours(value)  # raises with the form expected
        return value

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str) -> str:
        try:
            async_url(value)
        except ValueError as exc:  # sqlalchemy's ArgumentError is a ValueError too
            raise ValueError(f"not a database URL the bot can use ({exc})") from None
        return value

    @field_validator("isp_user")
    @classmethod
    def _user_name(cls, value: str) -> str:
        value = value.strip()
        if not value or any(c.isspace() for c in value) or len(value) > 60:
            raise ValueError("must be the login of an existing ISP system user (no spaces, at most 60 characters)")
        return value

    @field_validator("ticket_mode")
    @classmethod
    def _mode_code(cls, value: str) -> str:
        value = value.strip()
        if not value or len(value) > 20:
            raise ValueError("must be the code of a ticket mode from the ISP's get_tickets_mode list, e.g. 7")
        return value

    @field_validator("stock_file")
    @classmethod
    def _stock_catalog(cls, value: Path | None) -> Path | None:
        if value is not None:
            stock_catalog(value)  # refused at start-up, naming the entry to fix, rather than mid-visit
        return value

    @field_validator("locales_dir")
    @classmethod
    def _texts_folder(cls, value: Path | None) -> Path | None:
        if value is not None and not (value / "pt_BR").is_dir():
            raise ValueError(f"{value} has no pt_BR/ folder: name a copy of ispbot's locales, or leave it unset")
        return value

    @field_validator("support_phone", "sales_phone")
    @classmethod
    def _phone(cls, value: str) -> str:
        value = " ".join(value.split())
        if len(value) > 40 or not re.fullmatch(r"[0-9+() .-]*", value):
            raise ValueError("must be a phone number as people should dial it, e.g. 0800 123 4567 or (11) 4004-1234")
        return value

    @field_validator("support_hours", "sales_address", "address")
    @classmethod
    def _one_line(cls, value: str) -> str:
        return " ".join(value.split())  # said inside a sentence: one line, single spaces

    @field_validator("support_hours")
    @classmethod
    def _schedule(cls, value: str) -> str:
        read_hours(value)  # the bot tells when the desk opens next: the text must name a schedule
        return value

    @field_validator("website")
    @classmethod
    def _site(cls, value: str) -> str:
        value = value.strip()
        if value and (any(c.isspace() for c in value) or "." not in value):
            raise ValueError("must be a web address as people should type it, e.g. www.provedor.com.br")
        return value

    def policy(self) -> Policy:
        return Policy(
            isp_user=self.isp_user,
            ticket_mode=self.ticket_mode,
            link_max_failures=self.link_max_failures,
            link_window=timedelta(minutes=self.link_window_minutes),
            link_target_max_failures=self.link_target_max_failures,
            support_phone=self.support_phone,
            support_hours=self.support_hours,
            handoff_minutes_each=self.handoff_minutes_each,
            address=self.address,
            website=self.website,
            sales_phone=self.sales_phone,
            sales_address=self.sales_address,
            unblock_enabled=self.unblock_enabled,
            unblock_every=timedelta(days=self.unblock_every_days),
            unblock_max_overdue=self.unblock_max_overdue,
            unblock_release_minutes=self.unblock_release_minutes,
            contact_quiet=timedelta(minutes=self.contact_quiet_minutes),
            stock=stock_catalog(self.stock_file) if self.stock_file is not None else StockCatalog(),
            company=" ".join(self.company.split()),
            company_tax_id="".join(c for c in self.company_tax_id if c.isalnum()).upper(),
            self_cancel=self.self_cancel,
            retention_offer=" ".join(self.retention_offer.split()),
            cancel_terms=CancelTerms(
                reversal_reason=self.cancel_reversal_reason, fine_account=self.cancel_fine_account,
                fine_history=self.cancel_fine_history, future_billing=self.cancel_future_billing,
                period_action=self.cancel_period_action, pre_billing=self.cancel_pre_billing,
                pre_billing_action="cancel" if self.cancel_pre_billing else "none",
                withdrawal_topic=self.cancel_withdrawal_topic,
            ),
            suspend_min_days=min(self.suspend_min_days, self.suspend_max_days),
            suspend_max_days=self.suspend_max_days,
            suspend_start_within_days=self.suspend_start_within_days,
            contest_topic=self.contest_topic.strip(),
            restart_wait_seconds=float(self.restart_wait_seconds),
        )


def stock_catalog(path: Path) -> StockCatalog:
    """The catalog in ``path`` (see ``flows.stock``); ``ValueError`` saying what to fix."""
    try:
        raw = yamltext.load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"cannot read the stock catalog {path}: {exc}") from None
    return StockCatalog.from_mapping(raw, str(path))


def quiet_hours(text: str) -> tuple[time, time] | None:
    """``ISPBOT_NOTICE_QUIET`` read: (start, end) as "HH:MM-HH:MM" (across midnight when start > end),
    None for "" or "off" (no quiet hours)."""
    if text.strip().lower() in ("", "off", "none"):
        return None
    try:
        start, end = (time.fromisoformat(part.strip()) for part in text.split("-"))
    except ValueError:
        raise ValueError(f"quiet hours {text!r} are not HH:MM-HH:MM (like 21:00-08:00), nor off") from None
    return start, end
