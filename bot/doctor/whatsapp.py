"""The WhatsApp side of ``ispbot doctor``: the token and the phone number id (the number's record:
its verified name and quality), the webhook's settings (the app secret and verify token set,
where Meta must post), and a template for each kind of notice (``ISPBOT_WHATSAPP_TEMPLATES``).

A refused token is said plainly (expired or revoked: make a permanent one); the token, the app
secret and the verify token are never printed.
"""

from __future__ import annotations

import httpx

from bot.channels.whatsapp.client import CloudApi, CloudApiError, describe
from bot.channels.whatsapp.settings import WhatsAppSettings
from bot.channels.whatsapp.templates import kinds, load_templates, problems
from bot.doctor.report import Finding, bounded, fail, ok, origin, warn
from bot.i18n import default_translations

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
    )), _templates(settings)]


def _templates(settings: WhatsAppSettings) -> Finding:
    """Each kind of notice with its approved template, for outside the 24-hour window."""
    translations = default_translations()
    path = settings.whatsapp_templates
    if path is None:
        return warn("whatsapp-templates", (
            "ISPBOT_WHATSAPP_TEMPLATES is not set: every notice to someone who has not written for 24 hours is "
            f"held ({', '.join(kinds(translations))}); submit the templates of the operator's guide and name them "
            "as in ops/whatsapp-templates.yaml"
        ))
    found = problems(load_templates(path), translations)  # the settings read the file already
    if found:
        return warn("whatsapp-templates", f"{path}: " + "; ".join(found))
    return ok("whatsapp-templates", f"{path}: a template for every kind of notice ({len(kinds(translations))})")


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
        return [fail("whatsapp", f"{where} could not be reached ({describe(exc)}): {WHATSAPP_FIX}")]
    name = record.get("verified_name") or "(no verified name)"
    quality = str(record.get("quality_rating") or "UNKNOWN")
    line = f"token and number accepted: {name} ({record.get('display_phone_number', '?')}) at {where}"
    if quality not in ("GREEN", "UNKNOWN"):
        return [warn("whatsapp", f"{line}; quality rating {quality}: Meta may lower the number's limits")]
    return [ok("whatsapp", line)]
