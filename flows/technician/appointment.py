"""The appointment of the ticket in hand: confirm it, or reschedule it (a day, a time, confirmed or not).

- Rescheduling keeps the appointment's duration (an hour when the ISP has none) and asks whether the
  new time is confirmed with the customer (``appointment_status``): the technician usually agrees it
  on the phone.
- A day is picked from the next ``DAYS_OFFERED`` days or typed ``dd/mm``: not before today, not more
  than ``MAX_AHEAD`` ahead (a typo, not a plan). A time is picked or typed (``14:30``, ``14h``): not
  in the past, and not over another of the technician's appointments that day (the ticket's own
  slot does not count).
- A ticket without an appointment gets one (``ticket_appointment_insert``): ``update`` would fail
  with error 15.
- An appointment sets a state: every write re-reads the ticket first and is sent with
  ``ctx.write_state``, so one whose answer was lost is read back at once and told as done when the
  ticket shows the new time (sending the same appointment twice changes nothing).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from bot.isp import IspApiError
from bot.isp.models import v1_records, v2_requests

from flows.context import Context
from flows.events import Text
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.technician import service_orders
from flows.technician.tickets import back_to_ticket, in_hand_or_refuse

DAYS_OFFERED = 6
MAX_AHEAD = timedelta(days=90)
TIMES_OFFERED = ("08:00", "10:00", "13:00", "15:00", "17:00")
CONFIRM, RESCHEDULE, BACK = "confirm", "reschedule", "back"
NOT_FOUND = 15  # ticket_appointment_update: error searching the ticket (or its appointment)


class Appointment(Flow):
    name = "appointment"
    steps = Steps(
        begin=("choose", TO_MENU),
        choose=("day", Switch("ticket"), TO_MENU),
        day=("hour", Switch("ticket")),
        hour=("day", "save", TO_MENU),
        save=(Switch("ticket"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        ticket = await in_hand_or_refuse(ctx)
        if ticket is None:
            return
        if not service_orders.has_appointment(ticket):
            options = [Option(RESCHEDULE, key="technician_appointment.button_schedule"),
                       Option(BACK, key="technician_appointment.button_back")]
            ctx.reply.ask("choose", "technician_appointment.none", options, number=ticket.Numero)
            return
        options = []
        if ticket.Situacao_Agendamento != v2_requests.AppointmentStatus.CONFIRMED.value:
            options.append(Option(CONFIRM, key="technician_appointment.button_confirm"))
        options += [Option(RESCHEDULE, key="technician_appointment.button_reschedule"),
                    Option(BACK, key="technician_appointment.button_back")]
        ctx.reply.ask("choose", "technician_appointment.current", options, number=ticket.Numero,
                      day=ticket.Data_Agendamento, time=ticket.Hora_Agendamento,
                      duration=service_orders.duration_of(ticket),
                      confirmed=ticket.Situacao_Agendamento == v2_requests.AppointmentStatus.CONFIRMED.value)

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="confirm"):
                ticket = await in_hand_or_refuse(ctx)
                if ticket is None:
                    return
                slot = service_orders.slot_of(ticket)
                if slot is None or not service_orders.has_appointment(ticket):
                    await self.begin(ctx)  # gone since it was shown: show what there is now
                    return
                await self._save(ctx, ticket, slot[0], v2_requests.AppointmentStatus.CONFIRMED)
            case Chosen(value="reschedule"):
                self._ask_day(ctx)
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case _:
                raise Unexpected("technician.pick_a_button")

    async def day(self, ctx: Context, event: StepEvent) -> None:
        today = ctx.coordinator.now().date()
        match event:
            case Chosen(value="back"):
                back_to_ticket(ctx)
                return
            case Chosen(value=str() as iso):
                picked: date | None = date.fromisoformat(iso)
            case Text(text=text):
                picked = service_orders.parse_day(text, today)
            case _:
                raise Unexpected("technician_appointment.bad_day")
        if picked is None:
            raise Unexpected("technician_appointment.bad_day")
        if picked < today:
            raise Unexpected("technician_appointment.day_past")
        if picked - today > MAX_AHEAD:
            raise Unexpected("technician_appointment.day_far", days=MAX_AHEAD.days)
        ctx.data["day"] = picked.isoformat()
        self._ask_time(ctx, picked)

    async def hour(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="back"):
                self._ask_day(ctx)
                return
            case Chosen(value=str() as text) | Text(text=text):
                at = service_orders.parse_time(text)
            case _:
                raise Unexpected("technician_appointment.bad_time")
        if at is None:
            raise Unexpected("technician_appointment.bad_time")
        when = datetime.combine(date.fromisoformat(ctx.data["day"]), at)
        if when <= _now(ctx):
            raise Unexpected("technician_appointment.time_past")
        ticket = await in_hand_or_refuse(ctx)
        if ticket is None:
            return
        busy = await service_orders.clash(ctx, ticket, when)
        if busy is not None:
            raise Unexpected("technician_appointment.clash", start=busy.start_time, end=busy.end_time)
        ctx.data["when"] = when.isoformat()
        options = [
            Option(v2_requests.AppointmentStatus.CONFIRMED.value, key="technician_appointment.button_save_confirmed"),
            Option(v2_requests.AppointmentStatus.TO_CONFIRM.value, key="technician_appointment.button_save_to_confirm"),
            Option(BACK, key="technician_appointment.button_back"),
        ]
        ctx.reply.ask("save", "technician_appointment.confirm", options, number=ticket.Numero, day=when.date(),
                      time=when.time(), duration=service_orders.duration_of(ticket))

    async def save(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case Chosen(value=str() as status) if status in {s.value for s in v2_requests.AppointmentStatus}:
                ticket = await in_hand_or_refuse(ctx)
                if ticket is not None:
                    when = datetime.fromisoformat(ctx.data["when"])
                    await self._save(ctx, ticket, when, v2_requests.AppointmentStatus(status))
            case _:
                raise Unexpected("technician.pick_a_button")

    # ---- internals -----------------------------------------------------------------------------
    def _ask_day(self, ctx: Context) -> None:
        today = ctx.coordinator.now().date()
        days = [today + timedelta(days=n) for n in range(DAYS_OFFERED)]
        options = [Option(d.isoformat(), key="technician_appointment.button_day", vars={"day": d}) for d in days]
        options.append(Option(BACK, key="technician_appointment.button_back"))
        ctx.reply.ask("day", "technician_appointment.ask_day", options, columns=3)

    def _ask_time(self, ctx: Context, day: date) -> None:
        now = _now(ctx)
        offered = [t for t in TIMES_OFFERED if datetime.combine(day, time.fromisoformat(t)) > now]
        options = [Option(t, text=t) for t in offered]
        options.append(Option(BACK, key="technician_appointment.button_other_day"))
        ctx.reply.ask("hour", "technician_appointment.ask_time", options, columns=3, day=day)

    async def _save(
        self, ctx: Context, ticket: v1_records.Ticket, when: datetime, status: v2_requests.AppointmentStatus
    ) -> None:
        def landed(fresh: v1_records.Ticket) -> bool:
            slot = service_orders.slot_of(fresh)
            return slot is not None and slot[0] == when

        # Not landed, or the read-back failing, is the engine's: told, and the question asked again.
        write = ctx.write_state(read_back=lambda: in_hand_or_refuse(ctx), landed=landed)
        try:
            sent = await write.send(lambda: service_orders.schedule(ctx, ticket, when, status))
        except IspApiError as refused:
            if refused.code != NOT_FOUND:
                raise
            ctx.reply.say("technician_appointment.not_found", number=ticket.Numero)
            back_to_ticket(ctx)
            return
        if sent is None:  # no longer theirs: said
            return
        ctx.reply.say("technician_appointment.saved", number=ticket.Numero, day=when.date(), time=when.time(),
                      confirmed=status is v2_requests.AppointmentStatus.CONFIRMED)
        if ticket.CodigoCliente is not None:  # the subscriber hears of their visit's new time
            await ctx.reply.notify_customer(ticket.CodigoCliente, "visit_scheduled",
                                            "technician_appointment.customer_visit",
                                            ticket=ticket.Numero, day=when.date(), time=when.time())
        back_to_ticket(ctx)


def _now(ctx: Context) -> datetime:
    """The ISP's wall clock, naive (the ISP's dates and times carry no zone)."""
    return ctx.coordinator.now().replace(tzinfo=None)
