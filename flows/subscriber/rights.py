"""What the flows of the subscriber's rights share (cancel, suspend, contest a charge): a contract's
state, the contract read fresh before a write, the pick among several contracts, and the ticket that
records an act for the ISP's staff (in Portuguese), told to the person by its number (the ISP's
protocol of it is kept for staff: "protocol" is the contact's).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence

from bot.isp import IspError
from bot.isp.models import v1_records

from flows.context import Context
from flows.flow import Option

log = logging.getLogger(__name__)


def status(contract: v1_records.Contract) -> str:
    return contract.Situacao_Codigo.value if contract.Situacao_Codigo else ""


async def fresh_contract(ctx: Context, number: int) -> v1_records.Contract | None:
    """The contract as the ISP shows it now: a write rests on that, never on a cache."""
    ctx.coordinator.forget(ctx.customer)
    return next((c for c in await ctx.coordinator.contracts(ctx.customer) if c.Numero == number), None)


async def contracts_in(ctx: Context, states: Collection[str]) -> list[v1_records.Contract]:
    """The customer's contracts in one of ``states``, lowest number first."""
    found = [c for c in await ctx.coordinator.contracts(ctx.customer) if status(c) in states and c.Numero]
    return sorted(found, key=lambda c: c.Numero or 0)


def ask_contract(ctx: Context, step: str, key: str, contracts: Sequence[v1_records.Contract]) -> None:
    """Ask which contract (a button each: number and plan)."""
    options = [Option(c.Numero, key="rights.contract_button", vars=contract_view(c)) for c in contracts]
    ctx.reply.ask(step, key, options)


def contract_view(contract: v1_records.Contract) -> dict[str, object]:
    return {"number": contract.Numero, "plan": contract.Plano_Descricao or ""}


def topic_named(topics: Sequence[v1_records.TicketTopic], hints: Sequence[str]) -> v1_records.TicketTopic | None:
    """The first topic whose name holds one of ``hints`` (in their order), else the first topic."""
    for hint in hints:
        found = next((t for t in topics if hint.casefold() in (t.Nome or "").casefold()), None)
        if found is not None:
            return found
    return topics[0] if topics else None


async def record_ticket(
    ctx: Context, *, hints: Sequence[str], contract: int | None, subject: str, text: str,
) -> tuple[int | None, int | None]:
    """Open an administrative ticket recording an act for the ISP's staff; (ticket, protocol), both
    None when it could not be opened (the act itself stands: the failure is logged, not undone)."""
    try:
        topic = topic_named(await ctx.coordinator.administrative_topics(), hints)
        if topic is None:
            log.warning("no active administrative topic: %s not recorded on a ticket", subject)
            return None, None
        ticket = await ctx.coordinator.open_ticket(
            customer=ctx.customer, contract=contract, topic=topic, subject=subject, description=text,
            mode=ctx.policy.ticket_mode, user=ctx.policy.isp_user,
        )
    except IspError as exc:
        log.warning("%s not recorded on a ticket: %s", subject, type(exc).__name__)
        return None, None
    return ticket, await ctx.coordinator.protocol(ctx.customer, ticket) or ticket
