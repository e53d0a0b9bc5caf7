""""Quero cancelar meu plano": asked once whether it is so, then a person takes it, told why first.

A cancellation is a request of its own: it never goes into another ticket's notes, and it is not
opened behind the person's back from a few words (a ticket of a cancellation topic is a serious
thing to find in one's history). The person's "yes" hands the chat to ``human`` with the
cancellation topic as its hint; "no" keeps the plan and the menu.
"""

from __future__ import annotations

from flows.context import Context
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected

CANCEL_HINT = "cancel"  # the administrative topic of cancellations ("Cancelamento"), where there is one


class CancelPlan(Flow):
    name = "cancel_plan"
    steps = Steps(begin=("sure",), sure=(Switch("human"), TO_MENU))

    async def begin(self, ctx: Context) -> None:
        options = [Option(True, key="cancel_plan.button_yes"), Option(False, key="cancel_plan.button_no")]
        ctx.ask("sure", "cancel_plan.sure", options)

    async def sure(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=True):
                ctx.say("human.cancel_plan")
                ctx.switch("human", topic_hints=[CANCEL_HINT])
            case Chosen(value=False):
                ctx.say("cancel_plan.kept")
                ctx.to_menu()
            case _:
                raise Unexpected("cancel_plan.yes_or_no")
