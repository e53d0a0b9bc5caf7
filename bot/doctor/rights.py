"""Whether subscribers can cancel in the chat without an attendant, as Decreto 11.034/2022 asks:
with ``ISPBOT_SELF_CANCEL`` on, ``contract_cancel`` needs three ids of the ISP system; while any is
unset every cancel is handed to a person, which the doctor warns about, naming what to set."""

from __future__ import annotations

from bot.doctor.report import Finding, ok, warn
from bot.settings import BotSettings

CHECK = "cancel"


def cancel_findings(settings: BotSettings) -> list[Finding]:
    if not settings.self_cancel:
        return [warn(CHECK, (
            "ISPBOT_SELF_CANCEL is off: every cancel is handed to a person; the decree asks that subscribers "
            "can cancel without an attendant, so a person must answer at once"
        ))]
    ids = (("ISPBOT_CANCEL_REVERSAL_REASON", settings.cancel_reversal_reason),
           ("ISPBOT_CANCEL_FINE_ACCOUNT", settings.cancel_fine_account),
           ("ISPBOT_CANCEL_FINE_HISTORY", settings.cancel_fine_history))
    missing = [name for name, value in ids if not value]
    if missing:
        return [warn(CHECK, (
            f"{', '.join(missing)} not set: cancels are handed to a person until they name your system's reason "
            "for reversing bills, an account of nature Receipts and a history of operation Credit and type Term"
        ))]
    offer = "with no retention offer"
    if settings.retention_offer:
        offer = "with the retention offer of ISPBOT_RETENTION_OFFER"
    return [ok(CHECK, f"subscribers cancel in the chat (contract_cancel), {offer}")]
