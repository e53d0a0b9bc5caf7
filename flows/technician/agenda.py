"""The technician's agenda: a day's appointments and the open service orders, a ticket to take in hand.

- ``consult_appointments`` answers busy slots only (start and end): a slot is matched to the
  technician's ticket scheduled at that time that day; a slot no ticket explains is shown as
  "another commitment".
- Today's view also lists the open service orders assigned to the technician that are not
  scheduled today (yesterday's backlog is today's); another day's view shows that day's
  appointments only.
- Every ticket that can be taken in hand gets a button, ``PAGE`` at a time ("more", "back"); the
  text lists the whole day. A closed ticket is shown but cannot be taken in hand.
- A visit whose customer's contract is cancelled or suspended says so, and one past its time is
  marked late (``service_orders.standing``, ``service_orders.late``).
- Another day: the day before or after, back to today, or a day typed (``dd/mm``, ``dd/mm/yyyy``,
  "hoje", "amanhã", "ontem", a weekday's name, in any of the bot's languages), also without
  pressing "another day" first.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from flows.context import Context
from flows.events import Text
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.technician import service_orders
from flows.technician.tickets import TICKET

PAGE = 8  # ticket buttons at a time
PREVIOUS, NEXT, TODAY, PICK, MENU, PAGE_TO = "previous", "next", "today", "pick", "menu", "page"


class Agenda(Flow):
    name = "agenda"
    commands = ("agenda",)
    steps = Steps(begin=("choose",), choose=("pick_day", Switch("ticket"), TO_MENU), pick_day=("choose",))

    async def begin(self, ctx: Context) -> None:
        await self._show(ctx, ctx.coordinator.now().date())

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        shown = date.fromisoformat(ctx.data["day"])
        match event:
            case Chosen(value=int() as number):
                ctx.set_current_ticket(number)
                ctx.switch(TICKET)
            case Chosen(value=["page", int(page)]):
                await self._show(ctx, shown, page)
            case Chosen(value="previous"):
                await self._show(ctx, shown - timedelta(days=1))
            case Chosen(value="next"):
                await self._show(ctx, shown + timedelta(days=1))
            case Chosen(value="today"):
                await self._show(ctx, ctx.coordinator.now().date())
            case Chosen(value="pick"):
                ctx.reply.ask("pick_day", "technician_agenda.ask_day",
                              [Option(MENU, key="technician_agenda.button_back")])
            case Chosen(value="menu"):
                ctx.to_menu()
            case Text(text=text) if service_orders.parse_day(text, ctx.coordinator.now().date()) is not None:
                await self.pick_day(ctx, event)
            case _:
                raise Unexpected("technician_agenda.pick_or_type_day")

    async def pick_day(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Text(text=text):
                day = service_orders.parse_day(text, ctx.coordinator.now().date())
                if day is None:
                    raise Unexpected("technician_agenda.bad_day")
                await self._show(ctx, day)
            case Chosen():
                await self._show(ctx, date.fromisoformat(ctx.data["day"]))
            case _:
                raise Unexpected("technician_agenda.bad_day")

    async def _show(self, ctx: Context, day: date, page: int = 0) -> None:
        today = ctx.coordinator.now().date()
        busy = await service_orders.appointments(ctx, day)
        scheduled = await service_orders.scheduled_on(ctx, day)
        backlog = [t for t in await service_orders.open_orders(ctx) if t.Numero not in {s.Numero for s in scheduled}] \
            if day == today else []
        visits = await service_orders.visits(ctx, scheduled + backlog)
        by_number = {v.number: v for v in visits}
        slots = _slots(ctx, busy, [by_number[t.Numero or 0] for t in scheduled])
        others = [by_number[t.Numero or 0] for t in backlog]
        ctx.data["day"] = day.isoformat()
        takeable = [v for v in [by_number[t.Numero or 0] for t in scheduled] + others if not v.closed]
        pages = max(1, -(-len(takeable) // PAGE))
        page = min(max(page, 0), pages - 1)
        options = [Option(v.number, text=_label(v)) for v in takeable[page * PAGE:(page + 1) * PAGE]]
        if page > 0:
            options.append(Option([PAGE_TO, page - 1], key="technician_agenda.button_page_back", vars={"page": page}))
        if page + 1 < pages:
            options.append(Option([PAGE_TO, page + 1], key="technician_agenda.button_page_more",
                                  vars={"left": len(takeable) - (page + 1) * PAGE}))
        options += [
            Option(PREVIOUS, key="technician_agenda.button_previous", vars={"day": day - timedelta(days=1)}),
            Option(NEXT, key="technician_agenda.button_next", vars={"day": day + timedelta(days=1)}),
        ]
        if day != today:
            options.append(Option(TODAY, key="technician_agenda.button_today"))
        options += [Option(PICK, key="technician_agenda.button_pick"),
                    Option(MENU, key="technician_agenda.button_menu")]
        ctx.reply.ask(
            "choose", "technician_agenda.day", options, columns=2,
            day=day, today=day == today, slots=slots, others=[_entry(ctx, v) for v in others],
            first=page * PAGE + 1, last=min(len(takeable), (page + 1) * PAGE), total=len(takeable),
        )


def _slots(ctx: Context, busy: list[Any], scheduled: list[service_orders.Visit]) -> list[dict[str, Any]]:
    """Each busy slot of the day with the visit it is for (tickets with no slot are added too)."""
    left = list(scheduled)
    slots: list[dict[str, Any]] = []
    for slot in busy:
        if slot.start_time is None:
            continue
        start = slot.start_time.replace(tzinfo=None)
        visit = next((v for v in left if (s := service_orders.slot_of(v.ticket)) is not None and s[0] == start), None)
        if visit is not None:
            left.remove(visit)
        end = slot.end_time.replace(tzinfo=None) if slot.end_time is not None else None
        slots.append({"start": start.time(), "end": end.time() if end else None, "visit": _entry(ctx, visit)})
    for visit in left:  # the ISP listed no slot for it: still the technician's visit that day
        slot = service_orders.slot_of(visit.ticket)
        slots.append({"start": slot[0].time() if slot else None, "end": slot[1].time() if slot else None,
                      "visit": _entry(ctx, visit)})
    return sorted(slots, key=lambda s: (s["start"] is None, str(s["start"])))


def _entry(ctx: Context, visit: service_orders.Visit | None) -> dict[str, Any] | None:
    if visit is None:
        return None
    ticket = visit.ticket
    return {
        "number": visit.number, "name": visit.name, "address": visit.address, "plan": visit.plan,
        "subject": ticket.Assunto or ticket.Topico or "",
        "status": ctx.text(f"technician_status.status_{service_orders.status_name(ticket)}"),
        "closed": visit.closed, "to_confirm": ticket.Situacao_Agendamento == "to_confirm",
        "day": ticket.Data_Agendamento, "time": ticket.Hora_Agendamento,
        "standing": visit.standing, "late": visit.late(ctx.coordinator.now()),
    }


def _label(visit: service_orders.Visit) -> str:
    ticket = visit.ticket
    when = ticket.Hora_Agendamento.strftime("%H:%M") if ticket.Hora_Agendamento is not None else ""
    label = " · ".join(part for part in (f"#{visit.number}", when, visit.name or ticket.Assunto or "") if part)
    return label[:60]
