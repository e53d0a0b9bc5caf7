"""A ticket's follow-up: after a ticket is opened, or a person is asked for where no staff desk
answers live, what the subscriber writes belongs to that ticket.

Every message of a conversation with a ticket is mirrored into the ticket's messages by the engine;
here each one is also acknowledged in one short line naming the ticket by its number (labelled a
ticket: "protocol" is the contact's, ``flows.contacts``), so nobody meets "I didn't get that" while
adding details. Only what is not a request of its own is a detail: "quero cancelar meu plano" or "já
paguei" leave for their own flow (the engine's reading of requests, ``NOTE``), the ticket out of that
conversation; "ainda está lento" or "o técnico não veio" stay details. The menu's buttons stay under
the question, and /menu (or "menu", "voltar" sent alone) leaves. Thanks and a 👍 get their kind answer
instead of the acknowledgement. A ticket the ISP's staff closed meanwhile takes
nothing more: the subscriber is told so and gets the menu.
"""

from __future__ import annotations

from bot.isp import IspError

from flows.context import Context
from flows.events import Text
from flows.flow import MENU_FLOWS, TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Takes
from flows.intents import default_intents
from flows.subscriber.menu import SMALL_TALK_REPLIES

# Typed words are the ticket's details, except requests of their own: what tells a problem (the
# connection, a visit) is about this ticket, anything else asked for is a new matter.
NOTE = Takes("words", but=frozenset({"connection", "new_ticket"}))


class FollowTicket(Flow):
    name = "follow_ticket"
    resting = True
    steps = Steps(begin=("note",), note=(NOTE, MENU_FLOWS, TO_MENU))

    async def begin(self, ctx: Context) -> None:
        options = [Option(name, key=f"menu.{name}") for name in ctx.menu]
        ctx.reply.ask("note", "follow_ticket.prompt", options, columns=2, ticket=_ticket(ctx))

    async def note(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=flow):
                ctx.switch(flow)
            case Text(text=text) if (talk := default_intents().plainly(ctx.language, text) or "") in SMALL_TALK_REPLIES:
                ctx.reply.say(SMALL_TALK_REPLIES[talk])
            case _ if not await self._still_open(ctx):
                ctx.set_current_ticket(None)  # nothing of this turn goes to a closed ticket
                ctx.reply.say("follow_ticket.closed", ticket=_ticket(ctx))
                ctx.to_menu()
            case _:
                ctx.reply.say("follow_ticket.noted", ticket=_ticket(ctx))

    async def _still_open(self, ctx: Context) -> bool:
        """Whether the ticket still takes words (when the ISP cannot say now, it is taken to)."""
        if ctx.current_ticket is None:
            return False
        try:
            return any(t.Numero == ctx.current_ticket for t in await ctx.coordinator.open_tickets(ctx.customer))
        except IspError:
            return True


def _ticket(ctx: Context) -> int | None:
    """The ticket's number (a chat that began following before tickets were told by number kept its
    ISP protocol instead: its current ticket is the one)."""
    return ctx.data.get("ticket") or ctx.current_ticket
