"""The service order's status: the moves its current status allows, as the technician, with GPS for running.

- Every move re-reads the ticket just before it is sent: a move already made (a write that landed
  though its answer was lost, another person's change) is told, not sent again, and a move the fresh
  status does not allow is explained with the ones it does. Error 15 (move not allowed) is explained
  with the targets the ISP's message lists, offered as the buttons (the ISP's rule wins over ours).
- ``running`` needs the phone's position, checked before anything is sent; a bad one is asked again.
- A move sets a state: it is sent with ``ctx.write_state`` (after any failure to reach the ISP the
  ticket is read back at once); when that read fails too, one button (carrying the move) checks
  again, and the move is offered again only once a read shows it did not happen.
- On ``on_the_way`` every chat linked to the ticket's customer is told.
- Aborting cannot be undone in the field: it takes the reason (typed) and a confirmation; the reason
  is recorded on the ticket as an occurrence once the ISP has taken the move (``send_once``: a lost
  answer is read back). Not taken, the technician is told to write it as one; maybe taken, to look first.
"""

from __future__ import annotations

from bot.isp import IspApiError, IspError
from bot.isp.models import v1_records

from flows.context import Context
from flows.events import Location, Text
from flows.flow import TO_MENU, WORDS, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.technician import service_orders
from flows.technician.tickets import back_to_ticket, in_hand_or_refuse
from flows.technician.work import MAX_TEXT
from flows.writes import Found, Sent, Unsure, WriteState, send_once

BACK, CHECK, ABORT = "back", "check", "abort"


class Status(Flow):
    name = "status"
    steps = Steps(
        begin=("move", Switch("ticket"), TO_MENU),
        move=("where", "reason", "check", Switch("ticket"), TO_MENU),
        reason=(WORDS, "confirm_abort", Switch("ticket")),
        confirm_abort=("move", "check", Switch("ticket"), TO_MENU),
        where=("move", "check", Switch("ticket"), TO_MENU),
        check=("move", Switch("ticket"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        ticket = await in_hand_or_refuse(ctx)
        if ticket is not None:
            self._offer(ctx, ticket)

    async def move(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case Chosen(value=str() as name) if name in {m.value for m in service_orders.Move}:
                await self._try(ctx, service_orders.Move(name))
            case _:
                raise Unexpected("technician.pick_a_button")

    async def reason(self, ctx: Context, event: StepEvent) -> None:
        """Why the order is aborted, before it is confirmed."""
        match event:
            case Text(text=text) if text.strip():
                ctx.data["reason"] = text.strip()[:MAX_TEXT]
                options = [Option(ABORT, key="technician_status.button_abort_confirm"),
                           Option(BACK, key="technician_status.button_back")]
                ctx.reply.ask("confirm_abort", "technician_status.confirm_abort", options,
                              number=ctx.current_ticket, reason=ctx.data["reason"])
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case _:
                raise Unexpected("technician_status.abort_reason_hint")

    async def confirm_abort(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="abort"):
                ticket = await in_hand_or_refuse(ctx)
                if ticket is not None and self._still_possible(ctx, ticket, service_orders.Move.ABORTED):
                    await self._send(ctx, ticket, service_orders.Move.ABORTED, None)
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case _:
                raise Unexpected("technician.pick_a_button")

    async def where(self, ctx: Context, event: StepEvent) -> None:
        """Waiting for the position that moving to running needs."""
        match event:
            case Location(latitude=latitude, longitude=longitude):
                if not service_orders.valid_position(latitude, longitude):
                    raise Unexpected("technician_status.bad_position")
                ticket = await in_hand_or_refuse(ctx)
                if ticket is not None and self._still_possible(ctx, ticket, service_orders.Move.RUNNING):
                    await self._send(ctx, ticket, service_orders.Move.RUNNING, (latitude, longitude))
            case Text():
                raise Unexpected("technician_status.need_location")
            case _:
                raise Unexpected("technician_status.need_location")

    async def check(self, ctx: Context, event: StepEvent) -> None:
        """After a move whose outcome is unknown and a failed re-read: read again, then tell."""
        match event:
            case Chosen(value=["check", str() as name]) if name in {m.value for m in service_orders.Move}:
                target = service_orders.Move(name)
                found = await self._move(ctx, target).recall()
                if found is not None:
                    await self._moved(ctx, found.value, target)
            case Chosen(value="check"):  # asked before the button carried the move: offer the moves afresh
                await self.begin(ctx)
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case _:
                raise Unexpected("technician.pick_a_button")

    # ---- internals -----------------------------------------------------------------------------
    def _offer(
        self, ctx: Context, ticket: v1_records.Ticket, moves: tuple[service_orders.Move, ...] | None = None
    ) -> None:
        moves = service_orders.allowed_moves(ticket) if moves is None else moves
        if not moves:
            ctx.reply.say(
                "technician_status.no_moves",
                number=ticket.Numero,
                status=_word(ctx, service_orders.status_name(ticket)),
            )
            back_to_ticket(ctx)
            return
        options = [Option(m.value, key=f"technician_status.button_{m.value}") for m in moves]
        options.append(Option(BACK, key="technician_status.button_back"))
        ctx.reply.ask("move", "technician_status.choose", options, columns=2,
                      number=ticket.Numero, status=_word(ctx, service_orders.status_name(ticket)))

    def _still_possible(self, ctx: Context, ticket: v1_records.Ticket, target: service_orders.Move) -> bool:
        """The fresh ticket allows ``target``; otherwise the technician is told why and offered the rest."""
        if service_orders.status_name(ticket) == target.value:
            ctx.reply.say("technician_status.already", number=ticket.Numero, status=_word(ctx, target.value))
            back_to_ticket(ctx)
            return False
        if target not in service_orders.allowed_moves(ticket):
            ctx.reply.say(
                "technician_status.not_allowed",
                move=_word(ctx, target.value),
                status=_word(ctx, service_orders.status_name(ticket)),
                allowed=_words(ctx, service_orders.allowed_moves(ticket)),
            )
            self._offer(ctx, ticket)
            return False
        return True

    async def _try(self, ctx: Context, target: service_orders.Move) -> None:
        ticket = await in_hand_or_refuse(ctx)
        if ticket is None or not self._still_possible(ctx, ticket, target):
            return
        if target is service_orders.Move.RUNNING:
            ctx.reply.ask_location("where", "technician_status.ask_location", number=ticket.Numero)
            return
        if target is service_orders.Move.ABORTED:
            ctx.reply.ask("reason", "technician_status.ask_abort_reason",
                          [Option(BACK, key="technician_status.button_back")], number=ticket.Numero)
            return
        await self._send(ctx, ticket, target, None)

    def _move(self, ctx: Context, target: service_orders.Move) -> WriteState[v1_records.Ticket]:
        def unsure(key: str) -> None:
            options = [Option([CHECK, target.value], key="technician_status.button_check"),
                       Option(BACK, key="technician_status.button_back")]
            ctx.reply.ask("check", key, options, move=_word(ctx, target.value))

        def missed(fresh: v1_records.Ticket) -> None:
            ctx.reply.say("technician_status.not_recorded", move=_word(ctx, target.value))
            self._offer(ctx, fresh)

        return ctx.write_state(read_back=lambda: in_hand_or_refuse(ctx),
                               landed=lambda fresh: service_orders.status_name(fresh) == target.value,
                               missed=missed, ask=unsure, unsure="technician_status.unsure")

    async def _send(self, ctx: Context, ticket: v1_records.Ticket, target: service_orders.Move,
                    position: tuple[float, float] | None) -> None:
        number = ticket.Numero or 0
        try:
            sent = await self._move(ctx, target).send(
                lambda: service_orders.move_order(ctx, number, target, position))
        except IspApiError as refused:
            if refused.code != service_orders.OS_NOT_ALLOWED:
                raise
            allowed = service_orders.allowed_in_refusal(refused.description)
            ctx.reply.say("technician_status.refused", move=_word(ctx, target.value), allowed=_words(ctx, allowed))
            self._offer(ctx, ticket, allowed or None)
            return
        match sent:
            case Sent():
                await self._moved(ctx, ticket, target)
            case Found(value=fresh):  # the answer was lost but the move landed
                await self._moved(ctx, fresh, target)

    async def _moved(self, ctx: Context, ticket: v1_records.Ticket, target: service_orders.Move) -> None:
        told = 0
        if target is service_orders.Move.ON_THE_WAY and ticket.CodigoCliente:
            told = await ctx.reply.notify_customer(
                ticket.CodigoCliente, "technician_on_the_way", "technician_status.customer_on_the_way",
                ticket=ticket.Numero, subject=ticket.Assunto or ticket.Topico or "",
            )
        reason = ctx.data.get("reason") if target is service_orders.Move.ABORTED else None
        unrecorded = await self._record_reason(ctx, ticket.Numero or 0, reason) if reason else None
        ctx.reply.say("technician_status.moved", number=ticket.Numero, status=_word(ctx, target.value), told=told,
                      held=ctx.reply.notices_held, reason=bool(reason) and unrecorded is None)
        if unrecorded is not None:
            ctx.reply.say(unrecorded, number=ticket.Numero, reason=reason)
        back_to_ticket(ctx)

    async def _record_reason(self, ctx: Context, number: int, reason: str) -> str | None:
        """The abort's reason as an occurrence (the move stands whatever happens to it): None when it is
        on the ticket, else what to tell: not taken, or a lost answer not on the ticket yet (unsure)."""
        note = ctx.isp_text("technician_status.abort_occurrence", reason=reason)
        try:
            sent = await send_once(lambda: ctx.coordinator.add_occurrence(number, note, ctx.system_user),
                                   lambda tried: ctx.coordinator.find_occurrence(number, note, tried),
                                   ctx.coordinator.now)
        except IspError:
            return "technician_status.abort_reason_not_recorded"
        return "technician_status.abort_reason_unsure" if isinstance(sent, Unsure) else None


def _word(ctx: Context, status: str) -> str:
    """A status in the technician's language (``none`` when the ticket has no service order)."""
    return ctx.text(f"technician_status.status_{status}")


def _words(ctx: Context, moves: tuple[service_orders.Move, ...]) -> str:
    return ", ".join(_word(ctx, m.value) for m in moves)
