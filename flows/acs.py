"""The customer's router seen through the ISP's ACS (``ctx.acs``), as the support technician sees it
with the ACS open: found by the serial numbers the ISP lists for the contract, else by its PPPoE
login; read fresh (the fiber signal, the connected devices) before anything is said of it.

Shared by the subscribers' Wi-Fi and router flows, the connection check and the technicians' order.
A turn's calls share one deadline, the ACS's timeout (``ISPBOT_ACS_TIMEOUT``; ``ctx.acs`` is the
turn's view, ``AcsClient.for_turn``); a failure, the deadline's included, is told plainly by the flow
(``AcsError``), never left to the engine's generic apology.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.acs import AcsClient, AcsError, AcsRefused, AcsUnavailable, AcsUnknownDevice, Device, Signal, TaskOutcome
from bot.i18n import plain_text

from flows.context import Context
from flows.steps import TO_MENU, Answer, Chosen, Option, StepEvent, Switch, Unexpected

# What a task's outcome is told as (``router.yaml``): applied now, queued for the next connection,
# or sent without the device's confirmation within the wait.
OUTCOME_KEYS = {TaskOutcome.APPLIED: "applied", TaskOutcome.QUEUED: "queued", TaskOutcome.UNCONFIRMED: "unconfirmed"}


def acs_of(ctx: Context) -> AcsClient:
    if ctx.acs is None:
        raise LookupError("no ACS here")
    return ctx.acs


async def devices_for(ctx: Context, customer: int, contract: int | None) -> list[Device]:
    """The devices of the customer's contract (``contract`` None: all the customer's): the serials
    the ISP lists (``get_equipment_customer``), else the contract's PPPoE logins."""
    equipment = await ctx.coordinator.equipment(customer)
    serials = [(e.serial or "").strip() for e in equipment if contract is None or e.contract_id in (contract, None)]
    logins: list[str] = []
    if not any(serials):
        logins = [(a.Usuario or "").strip() for a in await ctx.coordinator.authentications(customer)
                  if contract is None or a.Contrato in (contract, None)]
    return await acs_of(ctx).find(serials, logins)


@dataclass(frozen=True, slots=True)
class Look:
    """What the technician reads first: when the device last spoke to the ACS, its fiber signal (read
    fresh when it answered), its WAN session, and whether the fresh read reached it."""

    last_inform: datetime | None
    signal: Signal | None
    wan_up: bool | None
    fresh: bool
    device: Device  # its document as read last

    def words(self, ctx: Context) -> dict[str, Any]:
        """The look as a template's variables (times in the ISP's zone)."""
        zone = ctx.coordinator.zone
        return {
            "last_inform": self.last_inform.astimezone(zone) if self.last_inform else None,
            "dbm": self.signal.dbm if self.signal else None,
            "level": self.signal.level if self.signal else "",
            "wan_up": self.wan_up, "fresh": self.fresh,
        }


async def look_at(ctx: Context, device: Device) -> Look:
    """Ask the device for its signal and WAN state now; what the ACS knows when it does not answer."""
    acs = acs_of(ctx)
    optical = device.optical_path()
    paths = [*([optical.path] if optical else []), device.wan_status_path]
    outcome = await acs.refresh(device.id, paths)
    fresh = outcome is TaskOutcome.APPLIED
    if fresh:
        try:
            device = await acs.device(device.id)
        except AcsUnavailable:  # the turn's time ran out reading it back: what the ACS knew before
            fresh = False
    return Look(device.last_inform, device.signal(), device.wan_up, fresh, device)


def device_label(device: Device) -> str:
    return " · ".join(p for p in (device.model, device.serial) if p)



# ---- the steps the Wi-Fi and router flows share ---------------------------------------------------
DEVICE = "device"  # the flow's data: the chosen device's id in the ACS
ACS_NEXT = "next"  # the step of a failure's or an outcome's buttons: a ticket, the menu


def offer_ticket(ctx: Context, key: str, description: str = "", **variables: Any) -> None:
    """Say what went wrong (``router.<key>``) with a ticket (carrying ``description``) and the menu."""
    if description:
        ctx.data["description"] = description
    ctx.reply.ask(ACS_NEXT, f"router.{key}", [Option("ticket", key="router.button_ticket"),
                                            Option("menu", key="router.button_menu")], **variables)


def tell_failure(ctx: Context, error: AcsError) -> None:
    """The ACS down or slow, the device gone, a task refused: said plainly, a ticket offered."""
    key = {AcsUnknownDevice: "device_gone", AcsRefused: "refused"}.get(type(error), "acs_down")
    offer_ticket(ctx, key)


async def find_device(ctx: Context, step: str) -> Device | None:
    """The chat's device, found now and kept in the flow's data; None when the chat was asked which
    one in ``step`` (several) or told there is none, or the ACS failed (said)."""
    contract = ctx.link.contract if ctx.link is not None else None
    try:
        devices = await devices_for(ctx, ctx.customer, contract)
    except AcsError as error:
        tell_failure(ctx, error)
        return None
    if not devices:
        offer_ticket(ctx, "no_device")
        return None
    if len(devices) > 1:
        ctx.reply.ask(step, "router.which", [Option(d.id, text=device_label(d)) for d in devices], count=len(devices))
        return None
    ctx.data[DEVICE] = devices[0].id
    return devices[0]


async def chosen_device(ctx: Context, event: StepEvent) -> Device | None:
    """The device picked at the "which" question (kept in the flow's data); None when the ACS failed (said)."""
    if not isinstance(event, Chosen) or not isinstance(event.value, str):
        raise Unexpected("router.pick_a_button")
    try:
        device = await acs_of(ctx).device(event.value)
    except AcsError as error:
        tell_failure(ctx, error)
        return None
    ctx.data[DEVICE] = device.id
    return device


async def current_device(ctx: Context) -> Device | None:
    """The flow's device read again (None when the ACS failed: said)."""
    try:
        return await acs_of(ctx).device(str(ctx.data[DEVICE]))
    except AcsError as error:
        tell_failure(ctx, error)
        return None


NEXT_LEADS = (Switch("new_ticket"), TO_MENU)  # where ``answer_next`` leads


async def answer_next(ctx: Context, event: StepEvent) -> None:
    match event:
        case Chosen(value="ticket") | Answer(value=True):
            description = ctx.data.get("description")
            ctx.switch("new_ticket", **({"description": description} if description else {}))
        case Chosen(value="menu") | Answer(value=False):
            ctx.to_menu()
        case _:
            raise Unexpected("router.pick_a_button")


async def look_first(ctx: Context) -> str | None:
    """What the technician sees of the chat's router before anything else (troubleshooting): said
    to the chat and returned as the words a ticket carries; None without an ACS, without exactly one
    device, or when the ACS fails or the turn's time for it runs out (the check goes on without it)."""
    if ctx.acs is None or ctx.link is None:
        return None
    try:
        devices = await devices_for(ctx, ctx.customer, ctx.link.contract)
        if len(devices) != 1:
            return None
        look = await look_at(ctx, devices[0])
    except AcsError:
        return None
    seen = plain_text(ctx.text("router.seen", **look.words(ctx)))
    ctx.reply.say("router.look", seen=seen)
    return seen


async def router_line(ctx: Context, customer: int, *, fresh: bool = False) -> str | None:
    """The customer's router as an order's card shows it to the technician (signal, when read, last
    contact, the WAN session): what the ACS last knew, or read from the router now when ``fresh``
    (the technician asked); None without an ACS."""
    if ctx.acs is None:
        return None
    try:
        devices = await devices_for(ctx, customer, None)
        if not devices:
            return ctx.text("router.technician_none")
        device = devices[0]
        answered = True
        if fresh:
            look = await look_at(ctx, device)
            answered, device = look.fresh, look.device
    except AcsError:
        return ctx.text("router.technician_down")
    zone = ctx.coordinator.zone
    signal = device.signal()
    read_at = signal.read_at.astimezone(zone) if signal and signal.read_at else None
    line = plain_text(ctx.text(
        "router.technician_line", model=device.model, dbm=signal.dbm if signal else None,
        level=signal.level if signal else "", read_at=read_at,
        last_inform=device.last_inform.astimezone(zone) if device.last_inform else None, wan_up=device.wan_up,
    ))
    return plain_text(ctx.text("router.technician_fresh", fresh=answered, line=line)) if fresh else line
