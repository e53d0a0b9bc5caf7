"""Restart my connection: ``disconnect_online_customer`` drops the access session so the equipment
dials in again, then the bot watches for the session to come back.

- Offered by ``connection`` when the customer is online and no outage on record explains it (typed
  during one, the connection flow tells the outage) ; with no session (of the chat's contract)
  there is nothing to drop, and the router checklist is the answer.
- After a "yes", each session is dropped; then the sessions are read every ``restart_poll_seconds``
  until one of the contract with a new id shows, for at most ``restart_wait_seconds`` (the person
  waits on one turn: a router takes well under a minute). Back: said with the new session's address;
  not back: the ticket is offered. ``policy.sleep`` is how the turn waits (tests move a fake clock).
- A session whose server the ISP names without a numeric code cannot be dropped: told, ticket offered.
"""

from __future__ import annotations

from bot.isp.models import v2_results

from flows.context import Context
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected


class Restart(Flow):
    name = "restart"
    commands = ("reiniciar", "restart", "reconectar")
    steps = Steps(
        begin=("sure", "next", Switch("connection"), TO_MENU),
        sure=("next", TO_MENU),
        next=(Switch("new_ticket"), Switch("connection"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        if await ctx.coordinator.outage_on_record(ctx.customer) is not None:  # a restart would not help
            ctx.switch("connection")
            return
        sessions = await _sessions(ctx)
        if not sessions:
            ctx.ask("next", "restart.no_session", _next_options(ticket=True, check=True))
            return
        options = [Option("yes", key="restart.button_yes"), Option("no", key="restart.button_no")]
        ctx.ask("sure", "restart.sure", options, seconds=int(ctx.policy.restart_wait_seconds))

    async def sure(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="yes"):
                await self._restart(ctx)
            case Chosen(value="no"):
                ctx.say("restart.kept")
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
            ctx.ask("next", "restart.no_session", _next_options(ticket=True, check=True))
            return
        dropped = []
        for session in sessions:
            server = (session.server or "").strip()
            if not server.isdigit() or not session.nas_ip_address or not session.session_id:
                continue
            await ctx.coordinator.disconnect(ctx.customer, session, int(server))
            dropped.append(session)
        if not dropped:
            ctx.ask("next", "restart.cannot", _next_options(ticket=True))
            return
        back = await self._watch(ctx, {s.session_id for s in dropped}, {s.contract_id for s in dropped})
        await ctx.record(self.name, "connection_restarted")  # whether it came back is the next question's
        if back is not None:
            ctx.ask("next", "restart.back", _next_options(ticket=True), address=back.framed_ipv4_address or "")
        else:
            ctx.ask("next", "restart.not_back", _next_options(ticket=True),
                    seconds=int(ctx.policy.restart_wait_seconds))

    async def _watch(
        self, ctx: Context, old: set[str | None], contracts: set[int | None],
    ) -> v2_results.OnlineSession | None:
        """The first new session of these contracts, read every poll until the wait runs out; None."""
        policy = ctx.policy
        waited = 0.0
        while waited < policy.restart_wait_seconds:
            step = min(policy.restart_poll_seconds, policy.restart_wait_seconds - waited)
            await policy.sleep(step)
            waited += step
            fresh = [s for s in await ctx.coordinator.sessions(ctx.customer)
                     if s.session_id not in old and s.contract_id in contracts]
            if fresh:
                return fresh[0]
        return None


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
