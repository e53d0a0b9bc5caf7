"""What the technician's work on the ticket in hand (occurrence, checklist, materials, finish) needs
around the coordinator's reads and writes: positions, checks, what a technician types.

The flows send the writes whose outcome may be unknown with ``ctx.write_once`` or ``ctx.write_state``
(``flows.writes``), read back with the coordinator's reads named in each write.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from bot.isp.models import v1_records

from flows.context import Context

# A position shared this recently (by the technician in the occurrence flow, or recorded by the ISP
# with a status move on this ticket) goes with a new occurrence.
POSITION_FRESH = timedelta(minutes=15)
MAX_TEXT = 2000  # occurrence notes, solutions: what a technician types on a phone, capped
# ticket_item_insert's quantity is Decimal(15.2): up to 13 digits before the point, 2 after.
MAX_QUANTITY = Decimal("9999999999999.99")


# ---- positions -----------------------------------------------------------------------------------
def valid_position(latitude: float, longitude: float) -> bool:
    """Within range and not 0 on either axis (the spec refuses 0: a phone without a fix sends 0,0)."""
    return -90 <= latitude <= 90 and -180 <= longitude <= 180 and latitude != 0 and longitude != 0


def position_record(ctx: Context, latitude: float, longitude: float) -> dict[str, Any]:
    return {"latitude": latitude, "longitude": longitude, "at": ctx.coordinator.now().isoformat()}


def fresh(ctx: Context, record: dict[str, Any] | None) -> tuple[float, float] | None:
    """The position of ``record`` if it was shared within ``POSITION_FRESH``."""
    if not record:
        return None
    if ctx.coordinator.now() - datetime.fromisoformat(record["at"]) > POSITION_FRESH:
        return None
    return float(record["latitude"]), float(record["longitude"])


async def recorded_position(ctx: Context, ticket: int) -> tuple[float, float] | None:
    """The newest position the ISP recorded on this ticket within ``POSITION_FRESH`` (a status move
    sent with the phone's location records one), if any."""
    since = ctx.coordinator.now().replace(tzinfo=None) - POSITION_FRESH
    rows = await ctx.coordinator.occurrences(ticket)
    located = [
        o for o in rows
        if o.Latitude is not None and o.Longitude is not None and o.Data is not None and o.Data >= since
        and valid_position(float(o.Latitude), float(o.Longitude))
    ]
    if not located:
        return None
    newest = max(located, key=lambda o: (o.Data or since, o.Id or 0))
    return float(newest.Latitude or 0), float(newest.Longitude or 0)


# ---- checklist -----------------------------------------------------------------------------------
def is_checked(item: v1_records.ChecklistItem) -> bool:
    return item.Checklist_Status is v1_records.YesNo.YES


def is_mandatory(item: v1_records.ChecklistItem) -> bool:
    return item.Checklist_Obrigatorio is v1_records.YesNo.YES


def missing_mandatory(items: list[v1_records.ChecklistItem]) -> list[v1_records.ChecklistItem]:
    return [i for i in items if is_mandatory(i) and not is_checked(i)]


# ---- materials -----------------------------------------------------------------------------------
def parse_quantity(text: str) -> Decimal | None:
    """A quantity as a technician types it ("2", "1,5", "12.25"): > 0, at most 2 decimals, within
    Decimal(15.2); None otherwise."""
    cleaned = text.strip().replace(" ", "").replace(",", ".")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return None
    if not value.is_finite() or value <= 0 or value > MAX_QUANTITY or value.as_tuple().exponent < -2:  # type: ignore[operator]
        return None
    return value


def parse_code(text: str) -> int | None:
    """A positive code typed as digits (product code, stock location), else None."""
    cleaned = text.strip().lstrip("#")
    if not cleaned.isdecimal() or len(cleaned) > 12 or int(cleaned) <= 0:
        return None
    return int(cleaned)


# ---- finish --------------------------------------------------------------------------------------
async def causes_for(ctx: Context, ticket: v1_records.Ticket) -> list[v1_records.ClosingCause]:
    """Active closing causes of the ticket's type (all active ones when the ticket has no type)."""
    return await ctx.coordinator.active_causes(ticket.Tipo)
