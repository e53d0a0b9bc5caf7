"""The checklist of the ticket in hand as toggle buttons (✅ checked, ⬜ not), mandatory items marked
with "*", and "done" back to the ticket.

Each button carries the state it sets (check M or uncheck D), not "toggle": pressing an old button
again, or retrying after the ISP did not answer, sets the same state and never flips it back. It is
sent with ``ctx.write_state``: after a failure to reach the ISP the checklist is read back at once,
and an item showing the state goes on as set. The checklist is read again after every change, so
what is shown is what the ISP holds.
"""

from __future__ import annotations

from flows.context import Context
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.technician.tickets import back_to_ticket, in_hand_or_refuse
from flows.technician.work import is_checked, is_mandatory, missing_mandatory

MAX_LABEL = 60


class Checklist(Flow):
    name = "checklist"
    steps = Steps(begin=("toggle", Switch("ticket"), TO_MENU), toggle=(Switch("ticket"), TO_MENU))

    async def begin(self, ctx: Context) -> None:
        ticket = await in_hand_or_refuse(ctx)
        if ticket is None:
            return
        number = int(ticket.Numero or 0)
        items = await ctx.coordinator.checklist(number)
        if not items:
            ctx.reply.say("technician_work.checklist_empty", number=number)
            back_to_ticket(ctx)
            return
        options = []
        for item in items:
            mark = "✅" if is_checked(item) else "⬜"
            star = " *" if is_mandatory(item) else ""
            label = f"{mark} {item.Checklist_Descricao or item.Checklist_Id}"[: MAX_LABEL - len(star)] + star
            options.append(Option([item.Checklist_Id, not is_checked(item)], text=label))
        options.append(Option("done", key="technician_work.button_done"))
        ctx.reply.ask("toggle", "technician_work.checklist", options, number=number,
                      missing=len(missing_mandatory(items)))

    async def toggle(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="done"):
                back_to_ticket(ctx)
            case Chosen(value=[int(item), bool(checked)]):
                ticket = await in_hand_or_refuse(ctx)
                if ticket is None:
                    return
                number = int(ticket.Numero or 0)
                write = ctx.write_state(  # not set, or the read failing, is the engine's: the same question again
                    read_back=lambda: ctx.coordinator.checklist(number),
                    landed=lambda items: any(i.Checklist_Id == item and is_checked(i) == checked for i in items),
                )
                await write.send(lambda: ctx.coordinator.set_checklist_item(number, item, checked, ctx.system_user))
                await self.begin(ctx)
            case _:
                raise Unexpected("technician.pick_a_button")
