"""Finish the ticket in hand: refused while a mandatory checklist item is unchecked; then the closing
cause (active causes of the ticket's type), the solution, a confirmation and ``ticket_finish``.

After the ticket is closed the customer's linked chats (if any) are told the visit is done, with the
satisfaction-survey link when the ticket has one; the ticket leaves the technician's hand and the
agenda comes back (the menu where there is no agenda). Nothing read after the write may fail the
step: the write already happened.

``ticket_finish`` is written with ``ctx.write_once``: its read-back finds the ticket closed with this
solution (closed otherwise, the ticket is no longer in hand and the finish is refused).
"""

from __future__ import annotations

from bot.isp.models import v1_records

from flows.context import Context
from flows.events import Text
from flows.flow import TO_MENU, WORDS, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.technician.tickets import back_to_ticket, in_hand_or_refuse
from flows.technician.work import MAX_TEXT, causes_for, missing_mandatory
from flows.writes import Found, Wait

AGENDA = "agenda"


class Finish(Flow):
    name = "finish"
    steps = Steps(
        begin=("cause", Switch("ticket"), TO_MENU),
        cause=("solution", Switch("ticket")),
        solution=(WORDS, "confirm"),
        confirm=(Switch("agenda"), Switch("ticket"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        ticket = await in_hand_or_refuse(ctx)
        if ticket is None:
            return
        number = int(ticket.Numero or 0)
        missing = missing_mandatory(await ctx.coordinator.checklist(number))
        if missing:
            ctx.reply.say("technician_work.finish_checklist_missing", number=number,
                          items=[i.Checklist_Descricao or str(i.Checklist_Id) for i in missing])
            back_to_ticket(ctx)
            return
        causes = await causes_for(ctx, ticket)
        if not causes:
            ctx.reply.say("technician_work.finish_no_causes")
            back_to_ticket(ctx)
            return
        ctx.data.update(ticket=number, customer=ticket.CodigoCliente)
        options = [Option(c.Codigo, text=(c.Nome or c.Descricao or str(c.Codigo))[:60]) for c in causes]
        options.append(Option("back", key="technician_work.button_back"))
        ctx.reply.ask("cause", "technician_work.finish_cause", options, number=number)

    async def cause(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case Chosen(value=int(code), label=label):
                ctx.data.update(cause=code, cause_name=label)
                ctx.reply.ask("solution", "technician_work.finish_solution")
            case _:
                raise Unexpected("technician.pick_a_button")

    async def solution(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Text(text=text) if text.strip():
                ctx.data["solution"] = text.strip()[:MAX_TEXT]
                self._ask_confirm(ctx, "technician_work.finish_confirm")
            case _:
                raise Unexpected("technician_work.finish_solution_hint")

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="finish"):
                await self._finish(ctx)
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case _:
                raise Unexpected("technician.pick_a_button")

    async def _finish(self, ctx: Context) -> None:
        number, solution = int(ctx.data["ticket"]), str(ctx.data["solution"])
        write = ctx.write_once("finish", ask=lambda key: self._ask_confirm(ctx, key),
                               unsure="technician_work.finish_unsure", wait="technician_work.finish_not_yet")
        match await write.recall(lambda tried: self._closed(ctx, number)):
            case Found(value=closed) if closed.Solucao == solution:
                await self._finished(ctx, closed, [])  # the timed-out finish did close it
                return
            case Wait():
                return
        ticket = await in_hand_or_refuse(ctx)  # closed by someone else: refused here
        if ticket is None:
            return
        missing = missing_mandatory(await ctx.coordinator.checklist(number))  # unchecked since the question?
        if missing:
            ctx.reply.say("technician_work.finish_checklist_missing", number=number,
                          items=[i.Checklist_Descricao or str(i.Checklist_Id) for i in missing])
            back_to_ticket(ctx)
            return
        sent = await write.send(lambda: ctx.coordinator.finish_ticket(
            number, cause=int(ctx.data["cause"]), solution=solution, user=ctx.system_user))
        if sent is not None:
            await self._finished(ctx, ticket, sent.value)

    async def _closed(self, ctx: Context, number: int) -> v1_records.Ticket | None:
        """The ticket read now if it is closed (by the timed-out finish or by someone else)."""
        ticket = await ctx.coordinator.ticket(number)
        return ticket if ticket is not None and ticket.Encerramento_DataHora is not None else None

    async def _finished(self, ctx: Context, ticket: v1_records.Ticket, new_tickets: list[int]) -> None:
        number = int(ticket.Numero or 0)
        ctx.reply.say("technician_work.finish_done", number=number, new_tickets=new_tickets)
        if ticket.CodigoCliente is not None:
            link = await ctx.coordinator.survey_link(number)
            await ctx.reply.notify_customer(ticket.CodigoCliente, "survey" if link else "visit_done",
                                            "technician_work.visit_done", ticket=number, survey=link or "")
            ctx.coordinator.forget(ticket.CodigoCliente)  # the subscriber's ticket list changed
        ctx.set_current_ticket(None)
        if AGENDA in ctx.menu:
            ctx.switch(AGENDA)
        else:
            ctx.to_menu()

    def _ask_confirm(self, ctx: Context, key: str) -> None:
        options = [Option("finish", key="technician_work.button_finish"),
                   Option("back", key="technician_work.button_cancel")]
        ctx.reply.ask("confirm", key, options, columns=2, number=ctx.data["ticket"], cause=ctx.data["cause_name"],
                      solution=ctx.data["solution"])
