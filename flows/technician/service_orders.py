"""The ISP reads and writes of the agenda, the service-order status and the appointment, typed.

- Service-order moves: the spec names the six statuses and shows only that some allow on_the_way,
  aborted and completed. ``TRANSITIONS`` is the sandbox's reading (``bot/sandbox/rules/tickets.py``);
  when a real ISP refuses a move with error 15, the targets its message lists win
  (``allowed_in_refusal``).
- A position is sent with at most 7 decimals (about 1 cm; the spec's Decimal(16.13) would refuse a
  phone's 15), and refused before sending when the ISP would refuse it (``valid_position``).
- The agenda's tickets: the technician's with the day's appointment, and open service orders
  (``Situacao_OS`` F, A, E, P) of tickets not closed, one filtered query each; their customers and
  contracts are read in one query each (``IN``), not once per ticket.
- A ticket's query names no contract: an order is marked "contract cancelled" or "suspended" when
  none of its customer's contracts is in effect (``standing``), and "late" when its appointment's
  start has passed with the work not begun (``late``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from urllib.parse import quote_plus

from babel.dates import get_day_names
from bot.isp.models import v1_records, v2_requests, v2_results

from flows.context import Context
from flows.technician.tickets import OPEN_OS
from flows.words import normalise

Move = v2_requests.OsStatus

# generation-1.0 code of a ticket's service order (None: no order yet) → its generation-2.0 name
NAMES: dict[v1_records.OsStatus | None, str] = {
    None: "none",
    v1_records.OsStatus.QUEUED: Move.IN_QUEUE.value,
    v1_records.OsStatus.ON_THE_WAY: Move.ON_THE_WAY.value,
    v1_records.OsStatus.EXECUTING: Move.RUNNING.value,
    v1_records.OsStatus.PAUSED: Move.PAUSED.value,
    v1_records.OsStatus.COMPLETED: Move.COMPLETED.value,
    v1_records.OsStatus.ABORTED: Move.ABORTED.value,
}
TRANSITIONS: dict[v1_records.OsStatus | None, tuple[Move, ...]] = {
    None: (Move.IN_QUEUE, Move.ON_THE_WAY),
    v1_records.OsStatus.QUEUED: (Move.ON_THE_WAY, Move.ABORTED, Move.COMPLETED),
    v1_records.OsStatus.ON_THE_WAY: (Move.RUNNING, Move.IN_QUEUE, Move.ABORTED),
    v1_records.OsStatus.EXECUTING: (Move.PAUSED, Move.COMPLETED, Move.ABORTED),
    v1_records.OsStatus.PAUSED: (Move.RUNNING, Move.ABORTED),
    v1_records.OsStatus.ABORTED: (Move.IN_QUEUE,),
    v1_records.OsStatus.COMPLETED: (),
}
OS_NOT_ALLOWED = 15  # ticket_os_status_update: invalid OS status (the move is not allowed)
DEFAULT_DURATION = "01:00"
MAPS = "https://www.google.com/maps?q="  # opens the map app on a phone, the browser elsewhere
_WORD = re.compile(r"[a-z_]+")


# ---- service orders ------------------------------------------------------------------------------
def status_name(ticket: v1_records.Ticket) -> str:
    return NAMES[ticket.Situacao_OS]


def allowed_moves(ticket: v1_records.Ticket) -> tuple[Move, ...]:
    return TRANSITIONS[ticket.Situacao_OS]


def allowed_in_refusal(description: str) -> tuple[Move, ...]:
    """The targets an error-15 message lists ("... só é permitido ir para on_the_way, aborted")."""
    tail = description.rsplit(" para ", 1)[-1] if " para " in description else description
    names = {move.value: move for move in Move}
    found = [names[word] for word in _WORD.findall(tail.lower()) if word in names]
    return tuple(dict.fromkeys(found))


def valid_position(latitude: float, longitude: float) -> bool:
    """What the ISP accepts: -90 <= lat < 0 or 0 < lat <= 90, the same for longitude up to 180."""
    if not (math.isfinite(latitude) and math.isfinite(longitude)):
        return False
    lat, lon = _degrees(latitude), _degrees(longitude)
    return lat != 0 and lon != 0 and abs(lat) <= 90 and abs(lon) <= 180


async def move_order(ctx: Context, ticket: int, target: Move, position: tuple[float, float] | None = None) -> None:
    """The move as the technician (with the position when given)."""
    degrees = None if position is None else (_degrees(position[0]), _degrees(position[1]))
    await ctx.coordinator.move_order(ticket, target, ctx.system_user, degrees)


def _degrees(value: float) -> Decimal:
    return Decimal(f"{value:.7f}")


# ---- the agenda ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Visit:
    """A ticket as the agenda shows it: who, where, which plan, when."""

    ticket: v1_records.Ticket
    name: str
    address: str
    plan: str
    standing: str | None = None  # "cancelled" or "suspended": the customer has no contract in effect

    def late(self, now: datetime) -> bool:
        return late(self.ticket, now)

    @property
    def number(self) -> int:
        return self.ticket.Numero or 0

    @property
    def closed(self) -> bool:
        return self.ticket.Encerramento_DataHora is not None


async def appointments(ctx: Context, day: date) -> list[v2_results.Appointment]:
    """The technician's busy slots that day (tickets' appointments and their own calendar)."""
    return await ctx.coordinator.appointments(ctx.system_user, day)


async def scheduled_on(ctx: Context, day: date) -> list[v1_records.Ticket]:
    """The technician's tickets with an appointment that day, closed ones too, by time."""
    rows = await ctx.coordinator.scheduled_tickets(ctx.system_user, day)
    rows = [t for t in rows if t.Data_Agendamento == day and t.Situacao_Agendamento != "canceled"]
    return sorted(rows, key=lambda t: (t.Hora_Agendamento or time.min, t.Numero or 0))


async def open_orders(ctx: Context) -> list[v1_records.Ticket]:
    """Open tickets assigned to the technician with a service order not completed, oldest first."""
    rows = await ctx.coordinator.tickets_with_order(ctx.system_user, OPEN_OS)
    rows = [t for t in rows if t.Encerramento_DataHora is None and t.Situacao_OS in OPEN_OS]
    return sorted(rows, key=lambda t: (t.Data_Agendamento is None, t.Data_Agendamento or date.min,
                                       t.Hora_Agendamento or time.min, t.Numero or 0))


async def visits(ctx: Context, tickets: Iterable[v1_records.Ticket]) -> list[Visit]:
    """The tickets with their customers' names, addresses and plans (two reads however many)."""
    tickets = list(tickets)
    codes = sorted({t.CodigoCliente for t in tickets if t.CodigoCliente})
    customers: dict[int, v1_records.Customer] = {}
    plans: dict[int, list[str]] = {}
    statuses: dict[int, list[v1_records.ContractStatus | None]] = {}
    if codes:
        for customer in await ctx.coordinator.customers_by_codes(codes):
            if customer.Codigo is not None:
                customers[customer.Codigo] = customer
        for contract in await ctx.coordinator.contracts_of(codes):
            if contract.Cliente_Codigo is not None:
                statuses.setdefault(contract.Cliente_Codigo, []).append(contract.Situacao_Codigo)
            if contract.Cliente_Codigo is None or not contract.Plano_Descricao:
                continue
            if contract.Situacao_Codigo in (v1_records.ContractStatus.CANCELLED, v1_records.ContractStatus.TRANSFERRED):
                continue
            names = plans.setdefault(contract.Cliente_Codigo, [])
            if contract.Plano_Descricao not in names:
                names.append(contract.Plano_Descricao)
    found = []
    for ticket in tickets:
        owner = customers.get(ticket.CodigoCliente or 0)
        found.append(Visit(
            ticket, name=(owner.Nome or "") if owner else "", address=address(owner),
            plan=" + ".join(plans.get(ticket.CodigoCliente or 0, [])),
            standing=standing(statuses.get(ticket.CodigoCliente or 0, [])),
        ))
    return found


def standing(statuses: Iterable[v1_records.ContractStatus | None]) -> str | None:
    """What a technician must know before going: "suspended" or "cancelled" when none of the
    customer's contracts is in effect (a visit may still be due: taking the equipment back), else None."""
    found = set(statuses)
    out = {v1_records.ContractStatus.SUSPENDED, v1_records.ContractStatus.CANCELLED,
           v1_records.ContractStatus.TRANSFERRED}
    if not found or not found <= out:
        return None
    return "suspended" if v1_records.ContractStatus.SUSPENDED in found else "cancelled"


def late(ticket: v1_records.Ticket, now: datetime) -> bool:
    """A visit past its time: the appointment's start has passed (``now`` in the ISP's zone) and the
    work has not begun (no order, queued or on the way), the ticket still open."""
    slot = slot_of(ticket)
    begun = ticket.Situacao_OS not in (None, v1_records.OsStatus.QUEUED, v1_records.OsStatus.ON_THE_WAY)
    return (slot is not None and has_appointment(ticket) and ticket.Encerramento_DataHora is None and not begun
            and slot[0] < now.replace(tzinfo=None))


def address(customer: v1_records.Customer | None) -> str:
    if customer is None:
        return ""
    street = ", ".join(str(part) for part in (customer.Endereco, customer.Numero, customer.Complemento) if part)
    return " · ".join(part for part in (street, customer.Bairro, customer.Cidade) if part)


def phones(customer: v1_records.Customer | None) -> list[str]:
    """The customer's phones as Telegram makes them tappable (+55 11 98765-4321), mobile first."""
    if customer is None:
        return []
    found = [_dialable(raw) for raw in (customer.TelCelular, customer.TelResidencial, customer.TelComercial) if raw]
    return list(dict.fromkeys(phone for phone in found if phone))


def _dialable(raw: str) -> str | None:
    digits = re.sub(r"\D", "", raw)
    if len(digits) in (12, 13) and digits.startswith("55"):
        digits = digits[2:]
    if len(digits) in (11, 12) and digits.startswith("0"):
        digits = digits[1:]  # the trunk prefix of a national call
    if len(digits) in (10, 11):
        return f"+55 {digits[:2]} {digits[2:-4]}-{digits[-4:]}"
    if len(digits) in (8, 9):  # no area code on record: still dialable from the same area
        return f"{digits[:-4]}-{digits[-4:]}"
    return None


def map_link(customer: v1_records.Customer | None) -> str:
    """A map of the customer's place: the coordinates the ISP holds, else the address ("" without either).
    One query parameter (no "&"), so the link survives Telegram's HTML as it is."""
    if customer is None:
        return ""
    lat, lng = customer.MapsMarkLat, customer.MapsMarkLng
    if lat is not None and lng is not None and valid_position(float(lat), float(lng)):
        return f"{MAPS}{float(lat):.6f},{float(lng):.6f}"
    street = ", ".join(str(part) for part in (customer.Endereco, customer.Numero) if part)
    place = ", ".join(part for part in (street, customer.Bairro, customer.Cidade, customer.UF) if part)
    return f"{MAPS}{quote_plus(place)}" if customer.Endereco and customer.Cidade else ""


# ---- appointments of a ticket ----------------------------------------------------------------------
def has_appointment(ticket: v1_records.Ticket) -> bool:
    return ticket.Data_Agendamento is not None and ticket.Situacao_Agendamento != "canceled"


def duration_of(ticket: v1_records.Ticket) -> str:
    """The appointment's duration ``HH:MM`` (an hour when the ISP has none, or zero)."""
    length = ticket.Duracao_Agendamento
    if length is None or (length.hour, length.minute) == (0, 0):
        return DEFAULT_DURATION
    return length.strftime("%H:%M")


async def schedule(
    ctx: Context, ticket: v1_records.Ticket, when: datetime, status: v2_requests.AppointmentStatus
) -> None:
    """Reschedule the ticket's appointment (``ticket_appointment_update``), or give it one."""
    # A canceled one is moved (and revived) too.
    await ctx.coordinator.schedule_visit(int(ticket.Numero or 0), when, duration_of(ticket), status,
                                         moving=ticket.Data_Agendamento is not None)


def slot_of(ticket: v1_records.Ticket) -> tuple[datetime, datetime] | None:
    """When the ticket's own appointment starts and ends."""
    if ticket.Data_Agendamento is None or ticket.Hora_Agendamento is None:
        return None
    start = datetime.combine(ticket.Data_Agendamento, ticket.Hora_Agendamento.replace(second=0, microsecond=0))
    hours, minutes = (int(part) for part in duration_of(ticket).split(":"))
    return start, start + timedelta(hours=hours, minutes=minutes)


async def clash(ctx: Context, ticket: v1_records.Ticket, when: datetime) -> v2_results.Appointment | None:
    """Another appointment of the technician overlapping ``when`` (for the ticket's duration)."""
    hours, minutes = (int(part) for part in duration_of(ticket).split(":"))
    end = when + timedelta(hours=hours, minutes=minutes)
    own = slot_of(ticket)
    for busy in await appointments(ctx, when.date()):
        if busy.start_time is None or busy.end_time is None:
            continue
        start, stop = busy.start_time.replace(tzinfo=None), busy.end_time.replace(tzinfo=None)
        if own is not None and (start, stop) == own:
            continue  # the ticket's own appointment, the one being moved
        if start < end and when < stop:
            return busy
    return None


# ---- what a technician types -------------------------------------------------------------------------
_DAY = re.compile(r"^\s*(\d{1,2})\s*[/.-]\s*(\d{1,2})(?:\s*[/.-]\s*(\d{2}|\d{4}))?\s*$")
_TIME = re.compile(r"^\s*(\d{1,2})\s*(?:[:h.]\s*(\d{2})?)?\s*(?:h|hs|min)?\s*$", re.IGNORECASE)


# Days said instead of written, in the three languages (accents and case do not matter): how many
# days from today. Weekday names come from Babel's locales (each language's long and short names).
_RELATIVE = {
    "hoje": 0, "amanha": 1, "ontem": -1, "depois de amanha": 2, "anteontem": -2,
    "today": 0, "tomorrow": 1, "yesterday": -1, "day after tomorrow": 2,
    "hoy": 0, "manana": 1, "ayer": -1, "pasado manana": 2, "anteayer": -2,
}
_LEADING = re.compile(r"^(?:(?:na|no|nesta|neste|proxima|proximo|on|this|next|el|la|este|esta)\s+)+")


def _plain(text: str) -> str:
    """Lower case, no accents or punctuation: "Amanhã" and "amanha" are one word, "sexta-feira" two."""
    return " ".join(normalise(text))


def _weekdays() -> dict[str, int]:
    names: dict[str, int] = {}
    for babel_locale in ("pt_BR", "en_US", "es_419"):
        for width in ("wide", "abbreviated"):
            for weekday, name in get_day_names(width, locale=babel_locale).items():
                plain = _plain(name)
                names[plain] = weekday
                names[plain.split()[0]] = weekday  # "segunda" for "segunda-feira"
    return names


_WEEKDAYS = _weekdays()


def parse_day(text: str, today: date) -> date | None:
    """``dd/mm`` (the nearest such day to today), ``dd/mm/yyyy``, a relative day ("hoje", "amanhã",
    "tomorrow", "pasado mañana") or a weekday's name (the next such day, today included); None when
    it is not a day."""
    match = _DAY.match(text)
    if match is None:
        return _said_day(text, today)
    day, month, year = int(match[1]), int(match[2]), match[3]
    if year is not None:
        full = int(year) + (2000 if len(year) == 2 else 0)
        return _date(full, month, day)
    candidates = [d for d in (_date(today.year + k, month, day) for k in (-1, 0, 1)) if d is not None]
    return min(candidates, key=lambda d: abs((d - today).days)) if candidates else None


def _said_day(text: str, today: date) -> date | None:
    words = _plain(text)
    if words in _RELATIVE:
        return today + timedelta(days=_RELATIVE[words])
    weekday = _WEEKDAYS.get(_LEADING.sub("", words))
    if weekday is None:
        return None
    return today + timedelta(days=(weekday - today.weekday()) % 7)


def parse_time(text: str) -> time | None:
    """``14:30``, ``14h30``, ``14h``, ``9``; None when it is not a time of day."""
    match = _TIME.match(text)
    if match is None:
        return None
    hour, minute = int(match[1]), int(match[2] or 0)
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


def _date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None
