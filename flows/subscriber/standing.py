"""A contract that is not active is told first, in its own plain words, with what can be done.

The connection and ticket flows (and the "no internet" words) read the contract's state first
(second document, 3.1), before an outage on record: a blocked subscriber must hear that it is
blocked, not a router checklist, and one who just cancelled that the contract is cancelled. The
flows that list bills or tickets (``bills``, ``contest``, ``my_tickets``) say it in one line before
their list (``say_standing``), and the menu's greeting says it too.

Choices where the spec is silent:
- The contract is the chat's, else every contract of the customer: one active means nothing is said.
- Blocked with overdue bills is "blocked for non-payment": the overdue total due today is told
  (``overdue_total``), with pay, unblock in trust (when the policy has it), "I have paid" and a
  person. Otherwise (no overdue bills, suspended, cancelled...): their own words and a person.
- Still shown blocked while a trust unblock's release time runs: that promise and when it ends,
  not the block and a second unblock (``trust_promise``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from bot.isp import IspApiError
from bot.isp.models.v1_records import Contract, ContractStatus

from flows.context import Context
from flows.flow import TO_MENU, Chosen, Option, StepEvent, Switch, Unexpected

PROMISE_REMEMBERED = timedelta(hours=24)  # how long after a trust unblock the answers recall it

# When several contracts are all inactive, the one said is the one the person can act on first.
_ORDER = [ContractStatus.BLOCKED, ContractStatus.SUSPENDED, ContractStatus.IN_INSTALLATION,
          ContractStatus.WAITING_FOR_INSTALLATION, ContractStatus.CANCELLED, ContractStatus.TRANSFERRED]


async def inactive_contract(ctx: Context) -> Contract | None:
    """The contract whose standing is said: the chat's, else the customer's when none is active (the
    one the person can act on first); None when one is active or the customer has none. Read through
    the coordinator, whose copy the bot's own cancel, suspension and unblock drop at once."""
    contracts = await ctx.coordinator.standing_contracts(ctx.customer)
    return inactive_among(contracts, ctx.link.contract if ctx.link else None)


def inactive_among(contracts: list[Contract], chosen: int | None) -> Contract | None:
    """``inactive_contract`` of contracts already read (``chosen``: the chat's contract)."""
    relevant = [c for c in contracts if c.Numero == chosen] or contracts
    if not relevant or any(c.Situacao_Codigo in (ContractStatus.ACTIVE, None) for c in relevant):
        return None
    return min(relevant, key=_rank)


async def say_standing(ctx: Context) -> None:
    """One line before a list of bills or tickets: the contract's standing, when it is not active,
    with what the person can do (the list follows as usual)."""
    contract = await inactive_contract(ctx)
    if contract is not None:
        status = contract.Situacao_Codigo
        ctx.reply.say(f"standing.note_{status.value if status else 'other'}", number=contract.Numero,
                      plan=contract.Plano_Descricao or "")


async def tell_standing(ctx: Context, step: str, *, ticket_anyway: bool = False) -> bool:
    """Say why the contract does not work and ask in ``step``; False (nothing said) when it is active."""
    contract = await inactive_contract(ctx)
    if contract is None:
        return False
    status = contract.Situacao_Codigo
    ctx.data["standing_contract"] = contract.Numero
    promise = await trust_promise(ctx) if status is ContractStatus.BLOCKED else None
    if promise and promise["pending"] and promise["number"] == contract.Numero:
        kept = [Option("ticket", key="standing.button_ticket")] if ticket_anyway else []
        kept += [Option("human", key="standing.button_human"), Option("menu", key="standing.button_menu")]
        ctx.reply.ask(step, "connection.unblock_pending", kept, **promise)
        return True
    owed, overdue = await overdue_total(ctx) if status is ContractStatus.BLOCKED else (Decimal(0), 0)
    options = []
    if overdue:
        options.append(Option("pay", key="standing.button_pay"))
        if ctx.policy.unblock_enabled:
            options.append(Option("unblock", key="standing.button_unblock"))
        options.append(Option("paid", key="standing.button_paid"))
    if ticket_anyway:
        options.append(Option("ticket", key="standing.button_ticket"))
    options += [Option("human", key="standing.button_human"), Option("menu", key="standing.button_menu")]
    key = "standing.blocked_unpaid" if overdue else f"standing.status_{status.value if status else 'other'}"
    ctx.reply.ask(step, key, options, number=contract.Numero, plan=contract.Plano_Descricao or "", owed=owed,
                  overdue=overdue)
    return True


# Where ``answer_standing`` leads, for the steps of the flows that use it.
STANDING_LEADS = (Switch("bills"), Switch("contracts"), Switch("paid"), Switch("human"), TO_MENU)


async def answer_standing(ctx: Context, event: StepEvent) -> None:
    match event:
        case Chosen(value="pay"):
            ctx.switch("bills")
        case Chosen(value="unblock"):
            ctx.switch("contracts", unblock=ctx.data["standing_contract"])
        case Chosen(value="paid"):
            ctx.switch("paid")
        case Chosen(value="human"):
            ctx.switch("human")
        case Chosen(value="menu"):
            ctx.to_menu()
        case _:
            raise Unexpected("standing.pick_a_button")


async def trust_promise(ctx: Context) -> dict[str, Any] | None:
    """The newest trust unblock of the chat's contract (else of any of the customer's) within
    ``PROMISE_REMEMBERED``: its contract, when it was done, when the release is due, and whether that
    time is still to come. None when there is none."""
    contracts = await ctx.coordinator.standing_contracts(ctx.customer)
    chosen = ctx.link.contract if ctx.link else None
    numbers = [c.Numero for c in contracts if c.Numero is not None and c.Numero == chosen]
    numbers = numbers or [c.Numero for c in contracts if c.Numero is not None]
    now = datetime.now(UTC)
    done = [(at, number) for number in numbers if (at := await ctx.records.last_trust_unblock(number)) is not None]
    recent = [(at, number) for at, number in done if now - at < PROMISE_REMEMBERED]
    if not recent:
        return None
    at, number = max(recent)
    until = at + timedelta(minutes=ctx.policy.unblock_release_minutes)
    zone = ctx.coordinator.zone
    return {"number": number, "at": at.astimezone(zone), "until": until.astimezone(zone), "pending": now < until,
            "minutes": ctx.policy.unblock_release_minutes}


def _rank(contract: Contract) -> int:
    status = contract.Situacao_Codigo
    return _ORDER.index(status) if status in _ORDER else len(_ORDER)


async def overdue_total(ctx: Context) -> tuple[Decimal, int]:
    """The overdue total due today and how many bills it is: what paying unblocks a contract blocked
    for non-payment (the same amount the bills' cards and PIX codes carry)."""
    today = ctx.coordinator.now().date()
    try:
        unpaid = await ctx.coordinator.unpaid_documents(ctx.customer)
        late = [d.value_up if d.value_up is not None else d.value_init or Decimal(0)
                for d in unpaid if d.due_date is not None and d.due_date < today]
    except IspApiError:  # the generation-1.0 list still says what is late, at its original amounts
        documents = await ctx.coordinator.open_documents(ctx.customer)
        late = [d.Valor or Decimal(0) for d in documents if d.Vencimento is not None and d.Vencimento < today]
    return sum(late, Decimal(0)), len(late)
