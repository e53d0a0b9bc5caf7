"""Contracts: plan, status and value of each; the contract the chat speaks for; unblock in trust.

- At most ``MAX_SHOWN`` contracts, the live ones first; a single contract is shown straight away.
- Unblock in trust follows the operator's policy, checked in this order, each refusal said plainly:
  switched off; already used for this contract within ``unblock_every`` (measured on the bot's UTC
  clock; the date it is possible again is told); more than ``unblock_max_overdue`` overdue documents
  linked to this contract or to none (the bills flow is offered).
- Right before ``contract_unblock`` the contract is read again, uncached: the write is only sent for
  a contract the ISP still shows blocked. It sets a state (``ctx.write_state``): after a failure the
  contract is read back at once, and one it shows active goes on as unblocked; otherwise the failure
  is told and the confirmation asked again (the next attempt reads first, so it is never repeated).
- The card leads to suspending an active contract (``suspend``) and cancelling one (``cancel_plan``).
- Then the fact is written for the ISP's staff, in Portuguese, on the chat's current ticket or a new
  administrative ticket (``_note``) that stays open: staff follow the promise to pay. If that note
  fails the unblock still stands. The bot's own record (``record_trust_unblock``) is written last.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from bot.isp import IspApiError, IspError
from bot.isp.errors import ErrorName
from bot.isp.models import v1_records
from markupsafe import Markup

from flows.contacts import UNBLOCKED
from flows.context import Context
from flows.flow import TO_MENU, YES_NO, Answer, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.subscriber.standing import overdue_total

log = logging.getLogger(__name__)

MAX_SHOWN = 8
BLOCKED, ACTIVE = "B", "A"
CANCELLABLE = ("E", "I", "A", "B", "S")  # contract_cancel's states
TOPIC_HINTS = ("desbloq", "negocia")


class Contracts(Flow):
    name = "contracts"
    commands = ("contratos", "contrato", "contracts")
    steps = Steps(
        begin=("choose", "act", "confirm", "refused", TO_MENU),
        choose=("act", TO_MENU),
        act=("choose", "confirm", "refused", Switch("suspend"), Switch("cancel_plan"), TO_MENU),
        confirm=(YES_NO, "refused", TO_MENU),
        refused=(Switch("bills"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        if "unblock" in ctx.data:  # offered elsewhere (a blocked subscriber, a payment just told)
            ctx.data["contract"] = int(ctx.data.pop("unblock"))
            await self.act(ctx, Chosen("unblock", ""))
            return
        contracts = await ctx.coordinator.contracts(ctx.customer)
        if not contracts:
            ctx.reply.say("contracts.none")
            ctx.to_menu()
            return
        if len(contracts) == 1:
            await self._show(ctx, contracts[0], several=False)
            return
        live_first = sorted(contracts, key=lambda c: (_status(c) in ("C", "T"), c.Numero or 0))
        shown = [self._view(ctx, c) for c in live_first[:MAX_SHOWN]]
        options = [Option(v["number"], key="contracts.button", vars=v) for v in shown]
        ctx.reply.ask("choose", "contracts.choose", options, contracts=shown, hidden=len(contracts) - len(shown))

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Chosen):
            raise Unexpected("contracts.pick_a_button")
        contracts = await ctx.coordinator.contracts(ctx.customer)
        contract = next((c for c in contracts if c.Numero == event.value), None)
        if contract is None:
            ctx.reply.say("contracts.gone")
            await self.begin(ctx)
            return
        await self._show(ctx, contract, several=len(contracts) > 1)

    async def act(self, ctx: Context, event: StepEvent) -> None:
        number = int(ctx.data["contract"])
        match event:
            case Chosen(value="use"):
                await ctx.identity.choose_contract(number)
                ctx.reply.say("contracts.now_using", number=number)
                ctx.to_menu()
            case Chosen(value="unblock"):
                if await self._refused(ctx, number):
                    return
                every = ctx.policy.unblock_every
                ctx.reply.ask("confirm", "contracts.unblock_terms",
                              [Option("yes", key="contracts.button_confirm"),
                               Option("no", key="contracts.button_cancel")],
                              number=number, minutes=ctx.policy.unblock_release_minutes,
                              days=every.days, hours=every.seconds // 3600)
            case Chosen(value="suspend"):
                ctx.switch("suspend", contract=number)
            case Chosen(value="cancel"):
                ctx.switch("cancel_plan", contract=number)
            case Chosen(value="others"):
                await self.begin(ctx)
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("contracts.pick_a_button")

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="yes") | Answer(value=True):
                await self._unblock(ctx, int(ctx.data["contract"]))
            case Chosen(value="no") | Answer(value=False):
                ctx.reply.say("contracts.unblock_dropped")
                ctx.to_menu()
            case _:
                raise Unexpected("contracts.pick_a_button")

    async def refused(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="bills"):
                ctx.switch("bills")
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("contracts.pick_a_button")

    # ---- unblock in trust ------------------------------------------------------------------------
    async def _unblock(self, ctx: Context, number: int) -> None:
        contract = await self._fresh(ctx, number)
        if contract is None or _status(contract) != BLOCKED:
            ctx.reply.say("contracts.not_blocked", number=number)
            ctx.to_menu()
            return
        if await self._refused(ctx, number):
            return

        async def status_now() -> str:
            fresh = await self._fresh(ctx, number)
            return _status(fresh) if fresh is not None else ""

        # An answer lost on an unblock that landed goes on as answered; any other failure is the engine's.
        active = v1_records.ContractStatus.ACTIVE.value
        write = ctx.write_state(read_back=status_now, landed=lambda status: status == active)
        try:
            await write.send(lambda: ctx.coordinator.unblock_contract(ctx.customer, number))
        except IspApiError as exc:
            if exc.known is not ErrorName.INVALID_CONTRACT_STATUS:
                raise
            ctx.reply.say("contracts.not_blocked", number=number)
            ctx.to_menu()
            return
        ticket = await self._note(ctx, contract)
        await ctx.records.record_trust_unblock(number)
        # The person is told the ticket by its number ("protocol" is the contact's); staff search by its protocol.
        protocol = ticket and (await ctx.coordinator.protocol(ctx.customer, ticket) or ticket)
        await ctx.records.record(self.name, UNBLOCKED, ticket=ticket or None,
                                 reference=str(protocol) if protocol else None)
        ctx.reply.say("contracts.unblocked", number=number, minutes=ctx.policy.unblock_release_minutes,
                      ticket=ticket or None)
        ctx.to_menu()

    async def _fresh(self, ctx: Context, number: int) -> v1_records.Contract | None:
        """The contract as the ISP shows it now: a write must rest on that, not on a cache."""
        ctx.coordinator.forget(ctx.customer)
        return next((c for c in await ctx.coordinator.contracts(ctx.customer) if c.Numero == number), None)

    async def _refused(self, ctx: Context, number: int) -> bool:
        """Say why the policy refuses an unblock now, and move on; False when it allows one."""
        policy = ctx.policy
        if not policy.unblock_enabled:
            ctx.reply.say("contracts.refused_disabled")
            ctx.to_menu()
            return True
        last = await ctx.records.last_trust_unblock(number)
        if last is not None and last + policy.unblock_every > datetime.now(UTC):
            again = (last + policy.unblock_every).astimezone(ctx.coordinator.zone)
            ctx.reply.say("contracts.refused_too_soon", last=last.astimezone(ctx.coordinator.zone), again=again)
            ctx.to_menu()
            return True
        overdue = _overdue(await ctx.coordinator.open_documents(ctx.customer), number, ctx.coordinator.now().date())
        if overdue > policy.unblock_max_overdue:
            options = [Option("bills", key="contracts.button_bills"), Option("menu", key="contracts.button_menu")]
            ctx.reply.ask("refused", "contracts.refused_overdue", options, overdue=overdue,
                          limit=policy.unblock_max_overdue)
            return True
        return False

    async def _note(self, ctx: Context, contract: v1_records.Contract) -> int | None:
        """Tell the ISP's staff (in Portuguese) on a ticket; the ticket's number, or None if it failed.
        A new ticket is the staff's record, not a conversation: it does not become the chat's current one."""
        minutes = ctx.policy.unblock_release_minutes
        text = ctx.isp_text("contracts.isp_unblock_note", number=contract.Numero, plan=contract.Plano_Descricao,
                            minutes=minutes)
        try:
            if ctx.current_ticket is not None:
                await ctx.coordinator.add_occurrence(ctx.current_ticket, text, ctx.policy.isp_user)
                return ctx.current_ticket
            topic = _topic(await ctx.coordinator.administrative_topics())
            if topic is None:
                log.warning("no active administrative topic: trust unblock of contract %s not noted", contract.Numero)
                return None
            return await ctx.coordinator.open_ticket(
                customer=ctx.customer, contract=contract.Numero, topic=topic,
                subject=ctx.isp_text("contracts.isp_unblock_subject"), description=text,
                mode=ctx.policy.ticket_mode, user=ctx.policy.isp_user,
            )
        except IspError as exc:  # the unblock stands; a lost note must not undo it or repeat it
            log.warning("trust unblock of contract %s not noted on a ticket: %s", contract.Numero, type(exc).__name__)
            return None

    # ---- showing ---------------------------------------------------------------------------------
    async def _show(self, ctx: Context, contract: v1_records.Contract, *, several: bool) -> None:
        view = self._view(ctx, contract)
        current = ctx.link is not None and ctx.link.contract == contract.Numero
        options = []
        if several and not current:
            options.append(Option("use", key="contracts.button_use"))
        if _status(contract) == BLOCKED:
            options.append(Option("unblock", key="contracts.button_unblock"))
        if _status(contract) == ACTIVE:
            options.append(Option("suspend", key="contracts.button_suspend"))
        if _status(contract) in CANCELLABLE:
            options.append(Option("cancel", key="contracts.button_cancel_contract"))
        if several:
            options.append(Option("others", key="contracts.button_others"))
        options.append(Option("menu", key="contracts.button_menu"))
        ctx.data["contract"] = contract.Numero
        owed = await _owed(ctx, view)
        ctx.reply.ask("act", "contracts.detail", options, current=current and several, owed=owed, **view)

    def _view(self, ctx: Context, contract: v1_records.Contract) -> dict[str, Any]:
        status = _status(contract)
        words = Markup(ctx.text(f"contracts.status_{status}")) if status else ""  # noqa: S704 - our own rendered template
        return {
            "number": contract.Numero, "plan": contract.Plano_Descricao or "", "status": words,
            "value": contract.ValorLiquido, "due_day": contract.CicloFaturamento_Vencimento,
            "blocked": status == BLOCKED,
        }


async def _owed(ctx: Context, view: dict[str, Any]) -> Decimal | None:
    """What paying unblocks a blocked contract (the overdue total due today, as the menu and the bills
    say it); None for another contract, or when the ISP cannot say now (the card still shows)."""
    if not view["blocked"]:
        return None
    try:
        owed, overdue = await overdue_total(ctx)
    except IspError:
        return None
    return owed if overdue else None


def _status(contract: v1_records.Contract) -> str:
    return contract.Situacao_Codigo.value if contract.Situacao_Codigo else ""


def _overdue(documents: list[v1_records.OpenDocument], contract: int, today: date) -> int:
    """Overdue documents of this contract; a document linked to no contract counts for all of them."""

    def linked(document: v1_records.OpenDocument) -> bool:
        links = {part.strip() for part in (document.ContratosVinculados or "").split(",") if part.strip()}
        return not links or str(contract) in links

    return sum(1 for d in documents if d.Vencimento is not None and d.Vencimento < today and linked(d))


def _topic(topics: list[v1_records.TicketTopic]) -> v1_records.TicketTopic | None:
    for hint in TOPIC_HINTS:
        found = next((t for t in topics if hint in (t.Nome or "").casefold()), None)
        if found is not None:
            return found
    return topics[0] if topics else None
