"""Connection: the contract's standing first, then a known outage, online or not, and the NAS.

- The customer's NAS are those ``ConsultaClienteOnline`` names, else those its PPPoE logins are set
  on; one missing from ``ConsultaStatusNAS`` is up, one down without a failover event our problem.
- The contract's standing first (``standing.tell_standing``): one cancelled, suspended, blocked or
  awaiting installation is said with what the person can do, even during an outage (who just
  cancelled must not hear the outage notice); in a surge the contracts of everybody on the failed
  NAS are read together. Then an open failover event affecting the customer, with "tell me when it
  ends" (``look_at_network``, ``offer_outage``, ``answer_outage``: shared with the ticket flow).
- With the ISP's ACS, the router is looked at (``flows.acs.look_first``) and what is seen said and
  carried by a ticket opened from here.
- Online, a restart (``restart``) is offered; the contract's equipment is told (``equipment``).
- A trust unblock of the last ``standing.PROMISE_REMEMBERED`` is remembered: while its release time
  runs, a connection still down hears that promise and when it ends (not a checklist nor the
  block); after it, the checklist says the promised time passed and the ticket is offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.isp.models.v1_records import FailoverEvent, YesNo

from flows.acs import look_first
from flows.context import Context
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.subscriber.menu import carried_greeting
from flows.subscriber.standing import STANDING_LEADS, answer_standing, tell_standing, trust_promise


@dataclass(frozen=True, slots=True)
class Network:
    online: bool | None  # None: not asked, an outage on record already answers
    hosts: frozenset[str]  # internal IPs of the customer's NAS (empty when not asked)
    outage: FailoverEvent | None


async def look_at_network(ctx: Context) -> Network:
    customer = ctx.customer
    known = await ctx.coordinator.outage_on_record(customer)
    if known is not None:  # what the customer's own reads would add does not change the answer
        return Network(None, frozenset(), known)
    status = await ctx.coordinator.online(customer)
    online = status is not None and status.Online is YesNo.YES
    hosts = frozenset(h.strip() for h in ((status.NasConectados or "") if status else "").split(",") if h.strip())
    if not hosts:
        hosts = frozenset(
            a.NAS.strip() for a in await ctx.coordinator.authentications(customer) if a.NAS and a.NAS.strip()
        )
    return Network(online, hosts, await ctx.coordinator.outage_for(customer, hosts))


def offer_outage(ctx: Context, step: str, outage: FailoverEvent, *, ticket_anyway: bool) -> None:
    """Tell the outage and offer to be told when it ends (and, from the ticket flow, to go on)."""
    ctx.data["event"] = outage.Id
    options = [Option("watch", key="outages.button_watch")]
    if ticket_anyway:
        options.append(Option("ticket", key="outages.button_ticket_anyway"))
    options.append(Option("menu", key="outages.button_menu"))
    ctx.reply.ask(step, "outages.affected", options, since=outage.DownTime)


OUTAGE_LEADS = (TO_MENU,)  # where ``answer_outage`` leads


async def answer_outage(ctx: Context, event: StepEvent) -> None:
    match event:
        case Chosen(value="watch"):
            first = await ctx.records.watch_outage(int(ctx.data["event"]))
            ctx.reply.say("outages.watching" if first else "outages.already_watching")
            ctx.switch("menu", **carried_greeting(ctx))  # the greeting it showed: no read in a surge
        case Chosen(value="menu"):
            ctx.switch("menu", **carried_greeting(ctx))
        case _:
            raise Unexpected("outages.pick_a_button")


class Connection(Flow):
    name = "connection"
    commands = ("conexao", "connection", "conexion")
    steps = Steps(
        begin=("standing", "outage", "next"),
        standing=STANDING_LEADS,
        outage=OUTAGE_LEADS,
        next=(Switch("new_ticket"), Switch("restart"), "next", TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        promise = await trust_promise(ctx)
        if not (promise and promise["pending"]) and await tell_standing(ctx, "standing"):
            return
        network = await look_at_network(ctx)
        if network.outage is not None:
            offer_outage(ctx, "outage", network.outage, ticket_anyway=False)
            return
        options = [Option("ticket", key="connection.button_ticket"), Option("menu", key="outages.button_menu")]
        if promise and not network.online:
            if promise["pending"]:  # the release is still on its way: that is the answer
                ctx.reply.ask("next", "connection.unblock_pending", options[::-1], **promise)
                return
            ctx.reply.say("connection.unblock_late", **promise)
        if (seen := await look_first(ctx)) is not None:  # the router first, as the technician looks
            ctx.data["seen"] = seen
        nas = await ctx.coordinator.nas_status()
        nas_down = any(nas.get(host) is False for host in network.hosts)
        key = "connection.online" if network.online else "connection.nas_down" if nas_down else "connection.offline"
        ctx.data["online"] = bool(network.online)
        ctx.reply.ask("next", key, _card(online=bool(network.online), equipment=True))

    async def outage(self, ctx: Context, event: StepEvent) -> None:
        await answer_outage(ctx, event)

    async def standing(self, ctx: Context, event: StepEvent) -> None:
        await answer_standing(ctx, event)

    async def next(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="ticket"):  # carrying what was seen of the router, if it was looked at
                ctx.switch("new_ticket", **({"description": ctx.data["seen"]} if ctx.data.get("seen") else {}))
            case Chosen(value="restart"):
                ctx.switch("restart")
            case Chosen(value="equipment"):
                items = await equipment(ctx)
                ctx.reply.say("connection.equipment" if items else "connection.no_equipment", items=items)
                ctx.reply.ask("next", "connection.what_else",
                              _card(online=bool(ctx.data.get("online")), equipment=False))
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("connection.pick_a_button")


def _card(*, online: bool, equipment: bool) -> list[Option]:
    """The connection card's buttons: restart only with a session to drop."""
    options = [Option("restart", key="connection.button_restart")] if online else []
    options.append(Option("ticket", key="connection.button_ticket"))
    if equipment:
        options.append(Option("equipment", key="connection.button_equipment"))
    return [*options, Option("menu", key="outages.button_menu")]


async def equipment(ctx: Context) -> list[dict[str, Any]]:
    """The equipment the ISP lists for the chat's contract (all the customer's without one), in words
    a person reads: its name (the stock catalog's, else the ISP's code), serial, since when, and
    whether it is lent (``comodato``: given back when the contract ends) or the customer's."""
    chosen = ctx.link.contract if ctx.link is not None else None
    found = []
    for item in await ctx.coordinator.equipment(ctx.customer):
        if chosen is not None and item.contract_id not in (chosen, None):
            continue
        code = (item.product_code or "").strip()
        product = ctx.policy.stock.product(int(code)) if code.isdecimal() else None
        source = (item.source or "").strip().casefold()
        found.append({
            "name": product.name if product else "", "code": code, "serial": item.serial or "",
            "since": item.activate_date, "lent": source.startswith("comodato") or source in ("lending", "loan"),
            "sold": source.startswith("vend") or source == "sale", "contract": item.contract_id,
        })
    return found
