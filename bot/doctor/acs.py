"""The ACS side of ``ispbot doctor`` (with ``ISPBOT_ACS_URL``): GenieACS's NBI answers a device
query with the credentials the bot has, and says how many devices it manages. Nothing is written;
no password printed."""

from __future__ import annotations

import httpx

from bot.acs import AcsClient, AcsError, AcsRefused, AcsSettings, AcsUnavailable, AcsUnknownDevice
from bot.doctor.report import Finding, bounded, fail, ok, origin, warn

FIX = "check ISPBOT_ACS_URL (GenieACS's NBI, port 7557 unless changed) and the network"


async def acs_findings(settings: AcsSettings, seconds: float, *,
                       transport: httpx.AsyncBaseTransport | None = None) -> list[Finding]:
    client = AcsClient(settings, http_transport=transport)
    where = origin(settings.root)
    try:
        return await bounded("acs", seconds, f"the ACS at {where}", FIX, _devices(client, where))
    finally:
        await client.aclose()


async def _devices(client: AcsClient, where: str) -> list[Finding]:
    try:
        total = await client.ping()
    except AcsRefused as exc:
        if exc.status in (401, 403):
            return [fail("acs", f"the NBI at {where} refused the credentials ({exc.status}): "
                                "check ISPBOT_ACS_USERNAME and ISPBOT_ACS_PASSWORD")]
        return [fail("acs", f"the NBI at {where} refused a device query ({exc.status}): is {where} GenieACS's NBI "
                            "(not its UI, port 3000)?")]
    except AcsUnknownDevice:
        return [fail("acs", f"{where} has no /devices/: is it GenieACS's NBI (port 7557), not its UI or CWMP port?")]
    except AcsUnavailable as exc:
        return [fail("acs", f"{exc}: {FIX}")]
    except AcsError as exc:  # pragma: no cover - every AcsError is one of the above
        return [fail("acs", str(exc))]
    if total == 0:
        return [warn("acs", f"the NBI at {where} answers but manages no device: the Wi-Fi flows will find none")]
    return [ok("acs", f"the NBI at {where} answers: {total} devices")]
