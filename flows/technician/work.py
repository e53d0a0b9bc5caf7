"""The ISP reads and writes of the technician's work on the ticket in hand (occurrence, checklist,
materials, finish), typed, through ``ctx.coordinator.client`` and ``ctx.coordinator.now()``. Nothing here is cached:
a technician acts on what just changed.

The flows send the writes whose outcome may be unknown with ``ctx.write_once`` (``flows.writes``);
``occurrence_landed`` is the occurrence's read-back.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from bot.isp import F, quotable
from bot.isp.models import v1_records, v2_requests

from flows.context import Context
from flows.writes import CLOCK_SLACK

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
    rows = await occurrences(ctx, ticket)
    located = [
        o for o in rows
        if o.Latitude is not None and o.Longitude is not None and o.Data is not None and o.Data >= since
        and valid_position(float(o.Latitude), float(o.Longitude))
    ]
    if not located:
        return None
    newest = max(located, key=lambda o: (o.Data or since, o.Id or 0))
    return float(newest.Latitude or 0), float(newest.Longitude or 0)


# ---- occurrences ---------------------------------------------------------------------------------
async def occurrences(ctx: Context, ticket: int) -> list[v1_records.TicketOccurrence]:
    return await ctx.coordinator.client.ConsultaOcorrenciasAtendimentos(F("Atendimento") == ticket)


async def add_occurrence(ctx: Context, ticket: int, text: str, position: tuple[float, float] | None) -> None:
    latitude, longitude = position if position is not None else (None, None)
    await ctx.coordinator.client.ticket_occurrence_insert(v2_requests.TicketOccurrenceInsert(
        ticket_id=ticket, user=ctx.system_user, description=text,
        latitude=Decimal(str(latitude)) if latitude is not None else None,
        longitude=Decimal(str(longitude)) if longitude is not None else None,
    ))


async def occurrence_landed(
    ctx: Context, ticket: int, text: str, tried: datetime,
) -> v1_records.TicketOccurrence | None:
    """The occurrence with this text recorded on the ticket since shortly before ``tried``, if any."""
    since = tried.astimezone(ctx.coordinator.zone).replace(tzinfo=None) - CLOCK_SLACK
    return next(
        (o for o in await occurrences(ctx, ticket) if o.Descricao == text and (o.Data is None or o.Data >= since)),
        None,
    )


# ---- checklist -----------------------------------------------------------------------------------
async def checklist(ctx: Context, ticket: int) -> list[v1_records.ChecklistItem]:
    rows = await ctx.coordinator.client.ConsultaChecklistAtendimentos(F("Atendimento_Numero") == ticket)
    # The filter is the ISP's; the check here keeps another ticket's items out whatever it does.
    return sorted((i for i in rows if i.Atendimento_Numero == ticket), key=lambda i: i.Checklist_Id or 0)


def is_checked(item: v1_records.ChecklistItem) -> bool:
    return item.Checklist_Status is v1_records.YesNo.YES


def is_mandatory(item: v1_records.ChecklistItem) -> bool:
    return item.Checklist_Obrigatorio is v1_records.YesNo.YES


def missing_mandatory(items: list[v1_records.ChecklistItem]) -> list[v1_records.ChecklistItem]:
    return [i for i in items if is_mandatory(i) and not is_checked(i)]


async def set_checklist_item(ctx: Context, ticket: int, item: int, checked: bool) -> None:
    """Check (M) or uncheck (D) an item: setting a state, so sending it twice changes nothing."""
    await ctx.coordinator.client.ticket_checklist_update(
        v2_requests.TicketChecklistUpdate(
            ticket_id=ticket,
            checklist_id=item,
            checklist_set=v2_requests.ChecklistSet.CHECK if checked else v2_requests.ChecklistSet.UNCHECK,
            user=ctx.system_user,
        )
    )


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
    if not cleaned.isdigit() or len(cleaned) > 12 or int(cleaned) <= 0:
        return None
    return int(cleaned)


async def add_item(
    ctx: Context, *, ticket: int, customer: int, operation: v2_requests.ItemOperation, item: int, contract: int | None,
    serial: str | None, location: int | None, quantity: Decimal,
) -> int | None:
    """A stock product consumed or lent on the ticket; the ISP's id of the item."""
    created = await ctx.coordinator.client.ticket_item_insert(v2_requests.TicketItemInsert(
        ticket_id=ticket, customer_id=customer, type=v2_requests.ItemType.PRODUCT, operation=operation,
        contract_id=contract, item_id=item, serial_number=serial, location_id=location, quantity=quantity,
    ))
    return created.item_id


async def search_models(ctx: Context, words: str) -> list[v1_records.ProductModel]:
    """Product models whose description or brand contains the words (quoted by ``F``); none for words
    no filter can hold (a backslash), which no model's name has."""
    if not quotable(words):
        return []
    where = F("Descricao").contains(words) | F("Marca").contains(words)
    return await ctx.coordinator.client.ConsultaModelosProduto(where)


# ---- finish --------------------------------------------------------------------------------------
async def causes_for(ctx: Context, ticket: v1_records.Ticket) -> list[v1_records.ClosingCause]:
    """Active closing causes of the ticket's type (all active ones when the ticket has no type)."""
    return await ctx.coordinator.active_causes(ticket.Tipo)


async def finish_ticket(ctx: Context, ticket: int, cause: int, solution: str) -> list[int]:
    """Close the ticket; the numbers of the tickets the ISP opened because of it."""
    result = await ctx.coordinator.client.ticket_finish(v2_requests.TicketFinish(
        ticket_id=ticket, cause_id=cause, solution=solution, user=ctx.system_user,
    ))
    return [t.ticket_id for t in result.new_tickets if t.ticket_id is not None]
