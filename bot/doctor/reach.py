"""Whether everyone can reach a person: someone not linked to a customer (a prospect, a person who
cannot prove who they are) is handed to the staff group, or told the ISP's phone and hours. With
neither the bot can only say where a customer finds the number (their contract, their bills), so
the doctor warns; the sales contacts are named when prospects fall back to the support phone."""

from __future__ import annotations

from bot.channels.telegram.settings import TelegramSettings
from bot.doctor.report import Finding, ok, warn
from bot.settings import BotSettings

CHECK = "reach"


def reach_findings(settings: BotSettings, telegram: TelegramSettings) -> list[Finding]:
    if telegram.staff_chat_id is not None:
        return [ok(CHECK, "people not linked to a customer, and prospects, are handed to the staff group")]
    if not settings.support_phone:
        return [warn(CHECK, (
            "neither ISPBOT_STAFF_CHAT_ID nor ISPBOT_SUPPORT_PHONE is set: someone not linked to a customer "
            "(a prospect, a person who cannot prove who they are) cannot reach a person; set "
            "ISPBOT_SUPPORT_PHONE and ISPBOT_SUPPORT_HOURS, or a staff group"
        ))]
    hours = "with ISPBOT_SUPPORT_HOURS" if settings.support_hours else "without hours (ISPBOT_SUPPORT_HOURS not set)"
    sales = (
        "prospects the sales contacts" if settings.sales_phone or settings.sales_address
        else "prospects the same phone (no ISPBOT_SALES_PHONE nor ISPBOT_SALES_ADDRESS)"
    )
    return [ok(CHECK, f"no staff group: people not linked are told ISPBOT_SUPPORT_PHONE {hours}; {sales}")]
