"""The WhatsApp side of ``ispbot doctor``: the token and the phone number id (the number's record:
its verified name and quality), and the webhook's settings (the app secret and verify token set,
where Meta must post).

A refused token is said plainly (expired or revoked: make a permanent one); the token, the app
secret and the verify token are never printed.
"""

from __future__ import annotations

import httpx

from bot.channels.whatsapp.client import CloudApi, CloudApiError
from bot.channels.whatsapp.settings import WhatsAppSettings
from bot.doctor.report import Finding, bounded, fail, ok, origin, warn

WHATSAPP_FIX = "check ISPBOT_WHATSAPP_API_URL and the network"


async def whatsapp_findings(settings: WhatsAppSettings, seconds: float, listen: str,
                            transport: httpx.AsyncBaseTransport | None = None) -> list[Finding]:
    """``listen``: where the web server listens (host:port), for the webhook's line."""
    assert settings.whatsapp_token is not None and settings.whatsapp_phone_number_id is not None  # noqa: S101
    api = CloudApi(settings.graph_root, settings.whatsapp_token.get_secret_value(),
                   settings.whatsapp_phone_number_id, transport=transport)
    try:
        found = await bounded("whatsapp", seconds, "the Graph API", WHATSAPP_FIX, _number(api, settings))
    finally:
        await api.aclose()
    return [*found, ok("whatsapp-webhook", (
        f"Meta posts to https://<your public address>/whatsapp/webhook, served on {listen}; posts are checked "
        "against ISPBOT_WHATSAPP_APP_SECRET and the registration against ISPBOT_WHATSAPP_VERIFY_TOKEN"
    ))]


async def _number(api: CloudApi, settings: WhatsAppSettings) -> list[Finding]:
    where = origin(settings.whatsapp_api_url)
    try:
        record = await api.phone_number()
    except CloudApiError as exc:
        if exc.meaning == "token":
            return [fail("whatsapp", (
                f"token refused by WhatsApp (code {exc.code}: expired or revoked): set ISPBOT_WHATSAPP_TOKEN to a "
                "permanent token of the Meta app's system user (Business settings > System users)"
            ))]
        return [fail("whatsapp", (
            f"WhatsApp does not know ISPBOT_WHATSAPP_PHONE_NUMBER_ID ({exc.reason}): copy the phone number's id "
            "from the app's WhatsApp > API setup page"
        ))]
    except httpx.TransportError as exc:
        return [fail("whatsapp", f"{where} could not be reached ({type(exc).__name__}): {WHATSAPP_FIX}")]
    name = record.get("verified_name") or "(no verified name)"
    quality = str(record.get("quality_rating") or "UNKNOWN")
    line = f"token and number accepted: {name} ({record.get('display_phone_number', '?')}) at {where}"
    if quality not in ("GREEN", "UNKNOWN"):
        return [warn("whatsapp", f"{line}; quality rating {quality}: Meta may lower the number's limits")]
    return [ok("whatsapp", line)]
