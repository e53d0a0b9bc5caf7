"""The customer's router through the ISP's ACS: the fiber signal, what is connected, a restart, and
the Wi-Fi (``wifi``). Without an ACS it is the connection check (``connection``), as before.

- The fiber signal is the ONU's optical receive power, read fresh (``getParameterValues`` of the
  vendor's path, ``flows.acs.look_at``) and told in dBm and in words: good above -25 dBm, weak from
  -25 to -28, critical below -28, when a ticket is offered carrying the reading. A router that does
  not answer now has its last reading told, with when it was taken.
- What is connected: the hosts the router lists (``refreshObject`` first), active ones, by name
  where the router gives one.
- A restart is confirmed (yes or no), then a ``reboot`` task: 200 "restarting", 202 "when it connects".
"""

from __future__ import annotations

from bot.acs import AcsError, TaskOutcome
from bot.acs.device import HOSTS
from bot.i18n import plain_text

from flows.acs import (
    ACS_NEXT,
    DEVICE,
    NEXT_LEADS,
    OUTCOME_KEYS,
    Look,
    acs_of,
    answer_next,
    chosen_device,
    current_device,
    find_device,
    look_at,
    offer_ticket,
    tell_failure,
)
from flows.context import Context
from flows.flow import TO_MENU, YES_NO, Answer, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected


class Router(Flow):
    name = "router"
    commands = ("roteador", "router", "enrutador")
    needs_acs = True
    steps = Steps(
        begin=("which", "what", ACS_NEXT, Switch("connection")),
        which=("what", ACS_NEXT),
        what=("what", "restart", ACS_NEXT, Switch("wifi"), TO_MENU),
        restart=(YES_NO, ACS_NEXT, TO_MENU),
        next=NEXT_LEADS,
    )

    async def begin(self, ctx: Context) -> None:
        if ctx.acs is None:
            ctx.switch("connection")
            return
        device = await find_device(ctx, "which")
        if device is not None:
            ask_what(ctx, "router.what", device=device.model)

    async def which(self, ctx: Context, event: StepEvent) -> None:
        device = await chosen_device(ctx, event)
        if device is not None:
            ask_what(ctx, "router.what", device=device.model)

    async def what(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="signal"):
                await self._signal(ctx)
            case Chosen(value="hosts"):
                await self._hosts(ctx)
            case Chosen(value="restart"):
                ctx.reply.ask("restart", "router.restart_sure", [Option(True, key="router.button_yes"),
                                                                 Option(False, key="router.button_no")])
            case Chosen(value="wifi"):
                ctx.switch("wifi")
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("router.pick_a_button")

    async def restart(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=True) | Answer(value=True):
                try:
                    outcome = await acs_of(ctx).reboot(str(ctx.data[DEVICE]))
                except AcsError as error:
                    tell_failure(ctx, error)
                    return
                ctx.reply.say(f"router.restart_{OUTCOME_KEYS[outcome]}")
                ctx.to_menu()
            case Chosen(value=False) | Answer(value=False):
                ctx.reply.say("router.kept")
                ctx.to_menu()
            case _:
                raise Unexpected("router.yes_or_no")

    async def next(self, ctx: Context, event: StepEvent) -> None:
        await answer_next(ctx, event)

    async def _signal(self, ctx: Context) -> None:
        device = await current_device(ctx)
        if device is None:
            return
        try:
            look = await look_at(ctx, device)
        except AcsError as error:
            tell_failure(ctx, error)
            return
        if look.signal is None:
            ask_what(ctx, "router.no_signal")
            return
        words = look.words(ctx)
        if look.signal.level == "critical":
            offer_ticket(ctx, "signal", seen(ctx, look), **words)
            return
        ask_what(ctx, "router.signal", **words)

    async def _hosts(self, ctx: Context) -> None:
        acs = acs_of(ctx)
        device = await current_device(ctx)
        if device is None:
            return
        try:
            if await acs.refresh_object(device.id, HOSTS[device.root]) is TaskOutcome.APPLIED:
                device = await acs.device(device.id)
        except AcsError as error:
            tell_failure(ctx, error)
            return
        hosts = device.hosts()
        if hosts is None:
            ask_what(ctx, "router.no_hosts")
            return
        named = sorted({h for h in hosts if h})
        ask_what(ctx, "router.hosts", count=len(hosts), names=named, unnamed=len([h for h in hosts if not h]))


def ask_what(ctx: Context, key: str, **variables: object) -> None:
    """Say ``key`` and offer the router's actions."""
    ctx.reply.ask("what", key, [
        Option("signal", key="router.button_signal"), Option("hosts", key="router.button_hosts"),
        Option("restart", key="router.button_restart"), Option("wifi", key="router.button_wifi"),
        Option("menu", key="router.button_menu"),
    ], columns=2, **variables)


def seen(ctx: Context, look: Look) -> str:
    """What was seen, as the ticket's description carries it (plain text)."""
    return plain_text(ctx.text("router.seen", **look.words(ctx)))
