"""Restart my connection: ``disconnect_online_customer`` drops the access session so the equipment
dials in again; the bot looks for the session to come back after the turn, and tells the chat.

- Offered by ``connection`` when the customer is online and no outage on record explains it (typed
  during one, the connection flow tells the outage) ; with no session (of the chat's contract)
  there is nothing to drop, and the router checklist is the answer.
- After a "yes", each session is dropped and a restart watch written with the turn; the answer comes
  at once ("reconnecting, I'll tell you here"), and the chat is free. ``flows.restarts`` reads the
  sessions every ``restart_poll_seconds`` until one of the contract with a new id shows, for at most
  ``restart_wait_seconds``, and brings the outcome as a ``Told`` event to ``checked``: back (with the
  new address), not back, or the ISP failing to say; the last two offer the ticket.
- A session whose server the ISP names without a numeric code cannot be dropped: told, ticket offered.
"""

from __future__ import annotations

from bot.isp.models import v2_results

from flows.context import Context
from flows.events import Told
from flows.flow import TO_MENU, YES_NO, Answer, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.restarts import BACK, UNKNOWN


class Restart(Flow):
    name = "restart"
    commands = ("reiniciar", "restart", "reconectar")
    steps = Steps(
        begin=("sure", "next", Switch("connection"), TO_MENU),
        sure=(YES_NO, "next", TO_MENU),
        next=(Switch("new_ticket"), Switch("connection"), TO_MENU),
        checked=("next",),  # the outcome, brought later by ``flows.restarts`` (``Told``)
    )

    async def begin(self, ctx: Context) -> None:
        if await ctx.coordinator.outage_on_record(ctx.customer) is not None:  # a restart would not help
            ctx.switch("connection")
            return
        sessions = await _sessions(ctx)
        if not sessions:
            ctx.reply.ask("next", "restart.no_session", _next_options(ticket=True, check=True))
            return
        options = [Option("yes", key="restart.button_yes"), Option("no", key="restart.button_no")]
        ctx.reply.ask("sure", "restart.sure", options, seconds=int(ctx.policy.restart_wait_seconds))

    async def sure(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="yes") | Answer(value=True):
                await self._restart(ctx)
            case Chosen(value="no") | Answer(value=False):
                ctx.reply.say("restart.kept")
                ctx.to_menu()
            case _:
                raise Unexpected("restart.pick_a_button")

    async def next(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="ticket"):
                ctx.switch("new_ticket")
            case Chosen(value="check"):
                ctx.switch("connection")
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("restart.pick_a_button")

    async def _restart(self, ctx: Context) -> None:
        sessions = await _sessions(ctx)
        if not sessions:  # it dropped on its own meanwhile
            ctx.reply.ask("next", "restart.no_session", _next_options(ticket=True, check=True))
            return
        dropped = []
        for session in sessions:
            server = (session.server or "").strip()
            if not server.isdecimal() or not session.nas_ip_address or not session.session_id:
                continue
            await ctx.coordinator.disconnect(ctx.customer, session, int(server))
            dropped.append(session)
        if not dropped:
            ctx.reply.ask("next", "restart.cannot", _next_options(ticket=True))
            return
        await ctx.records.watch_restart([s.session_id or "" for s in dropped], [s.contract_id for s in dropped])
        await ctx.records.record(self.name, "connection_restarted")  # whether it came back is the watch's to tell
        ctx.reply.say("restart.reconnecting", seconds=int(ctx.policy.restart_wait_seconds))
        ctx.to_menu()

    async def checked(self, ctx: Context, event: StepEvent) -> None:
        """What the watch saw (``flows.restarts``): back, not back, or the ISP could not say."""
        if not isinstance(event, Told):
            raise Unexpected("restart.pick_a_button")
        seen = event.data
        if seen.get("outcome") == BACK:
            ctx.reply.ask("next", "restart.back", _next_options(ticket=True), address=seen.get("address") or "")
        elif seen.get("outcome") == UNKNOWN:
            ctx.reply.ask("next", "restart.check_failed", _next_options(ticket=True))
        else:
            ctx.reply.ask("next", "restart.not_back", _next_options(ticket=True), seconds=int(seen.get("seconds") or 0))


async def _sessions(ctx: Context) -> list[v2_results.OnlineSession]:
    """The customer's sessions, those of the chat's contract when it speaks for one."""
    sessions = await ctx.coordinator.sessions(ctx.customer)
    chosen = ctx.link.contract if ctx.link is not None else None
    return [s for s in sessions if chosen is None or s.contract_id == chosen]


def _next_options(*, ticket: bool, check: bool = False) -> list[Option]:
    options = [Option("ticket", key="connection.button_ticket")] if ticket else []
    if check:
        options.append(Option("check", key="restart.button_check"))
    return [*options, Option("menu", key="outages.button_menu")]
