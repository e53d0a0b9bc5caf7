"""A ticket's follow-up: after a ticket is opened, or a person is asked for where no staff desk
answers live, what the subscriber writes belongs to that ticket.

Every message of a conversation with a ticket is mirrored into the ticket's messages by the engine;
here each one is also acknowledged in one short line naming the protocol (the number the ISP's staff
read out on the phone), so nobody meets "I didn't get that" while adding details. The menu's buttons
stay under the question, and /menu (or "menu", "voltar" sent alone) leaves. Thanks and a 👍 get
their kind answer instead of the acknowledgement.
"""

from __future__ import annotations

from flows.context import Context
from flows.events import Text
from flows.flow import Chosen, Flow, Option, StepEvent
from flows.intents import default_intents
from flows.subscriber.menu import SMALL_TALK_REPLIES


class FollowTicket(Flow):
    name = "follow_ticket"
    resting = True

    async def begin(self, ctx: Context) -> None:
        options = [Option(flow.name, key=f"menu.{flow.name}") for flow in ctx.menu]
        ctx.ask("note", "follow_ticket.prompt", options, columns=2, protocol=ctx.data["protocol"])

    async def note(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=flow):
                ctx.switch(flow)
            case _ if ctx.current_ticket is None:  # the staff closed it meanwhile: nothing to add to
                ctx.to_menu()
            case Text(text=text) if (talk := default_intents().match(ctx.language, text)) in SMALL_TALK_REPLIES:
                ctx.say(SMALL_TALK_REPLIES[talk or ""])
            case _:
                ctx.say("follow_ticket.noted", protocol=ctx.data["protocol"])
