"""Suspending a contract for a while (``contract_suspend_temporary``), or calling off a scheduled
suspension (``contract_suspend_temporary_cancel``), each recorded on a ticket told by its number
(labelled a ticket: "protocol" is the contact's) and told to the staff desk (``ctx.staff.tell``).

- The contract (active or suspended ones, when several), then suspend or call off. A contract in
  effect suspended is told when it comes back; one not active cannot be suspended (said plainly).
- The days between the operator's ``suspend_min_days`` and ``suspend_max_days`` and a start from today
  up to ``suspend_start_within_days`` ahead: buttons, or said as people say them ("umas 6 semanas",
  "segunda que vem": ``flows.values``), also in the request itself ("suspender por três meses").
- The ISP's refusals in plain words: one already scheduled (20; calling it off is offered), none to
  call off (12), a contract not active (read fresh before the write; the ISP's 10 too).
- A lost answer is never a second suspension: the ISP refuses a second one (20), and a second
  call-off finds none (12); ``flows.writes.WriteGuarded`` asks to try again, and those answers then
  mean the first try landed.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from bot.isp import IspApiError
from bot.isp.errors import ErrorName

from flows.context import Context
from flows.flow import DATE_AHEAD, PERIOD, TO_MENU, YES_NO, Answer, Chosen, Flow, Option, StepEvent, Steps, Unexpected
from flows.subscriber.rights import ask_contract, contracts_in, fresh_contract, record_ticket, status
from flows.writes import WriteGuarded

ACTIVE, SUSPENDED = "A", "S"
HINTS = ("suspens", "cancel")  # the administrative topic suspensions are recorded on
SUSPEND, CALL_OFF = "suspend", "call_off"


class Suspend(Flow):
    name = "suspend"
    commands = ("suspender", "suspend", "suspension")
    steps = Steps(
        begin=("contract", "what", TO_MENU),
        contract=("what", TO_MENU),
        what=(PERIOD, "days", "start", "unsure", TO_MENU),
        days=(PERIOD, "start", TO_MENU),
        start=(DATE_AHEAD, "confirm", TO_MENU),
        confirm=(YES_NO, "what", "unsure", TO_MENU),
        unsure=("what", "unsure", TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        contracts = await contracts_in(ctx, (ACTIVE, SUSPENDED))
        handed = [c for c in contracts if c.Numero == ctx.data.get("contract")]  # from the contract's card
        contracts = handed or contracts
        if not contracts:
            ctx.reply.say("suspend.none_active")
            ctx.to_menu()
        elif len(contracts) > 1:
            ask_contract(ctx, "contract", "suspend.which_contract", contracts)
        else:
            self._what(ctx, contracts[0].Numero or 0, status(contracts[0]), contracts[0].Plano_Descricao or "")

    async def contract(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Chosen):
            raise Unexpected("suspend.pick_a_button")
        chosen = next((c for c in await contracts_in(ctx, (ACTIVE, SUSPENDED)) if c.Numero == event.value), None)
        if chosen is None:
            ctx.reply.say("suspend.none_active")
            ctx.to_menu()
            return
        self._what(ctx, chosen.Numero or 0, status(chosen), chosen.Plano_Descricao or "")

    async def what(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="suspend"):
                policy = ctx.policy
                low, high = policy.suspend_min_days, policy.suspend_max_days
                choices = sorted({low, *(d for d in (30, 60, 90, 120) if low < d < high), high})
                options = [Option(d, key="suspend.days_button", vars={"days": d}) for d in choices]
                ctx.reply.ask("days", "suspend.days", options, columns=2, low=low, high=high)
            case Answer(value=int()):  # a length said already ("suspender por três meses"): suspending
                await self.days(ctx, event)
            case Chosen(value="call_off"):
                await self._call_off(ctx)
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("suspend.pick_a_button")

    async def days(self, ctx: Context, event: StepEvent) -> None:
        low, high = ctx.policy.suspend_min_days, ctx.policy.suspend_max_days
        match event:
            case Chosen(value=int(days)) | Answer(value=int(days)):
                pass
            case _:
                raise Unexpected("suspend.days_hint", low=low, high=high)
        if not low <= days <= high:
            raise Unexpected("suspend.days_too_short" if days < low else "suspend.days_too_long",
                             days=days, low=low, high=high)
        ctx.data["days"] = days
        today = ctx.coordinator.now().date()
        within = ctx.policy.suspend_start_within_days
        offsets = sorted({0, *(d for d in (1, 7, 15, 30) if d <= within)})
        options = [Option((today + timedelta(days=d)).isoformat(), key="suspend.start_button",
                          vars={"day": today + timedelta(days=d), "today": d == 0}) for d in offsets]
        ctx.reply.ask("start", "suspend.start", options, columns=2, last=today + timedelta(days=within))

    async def start(self, ctx: Context, event: StepEvent) -> None:
        today = ctx.coordinator.now().date()
        last = today + timedelta(days=ctx.policy.suspend_start_within_days)
        match event:
            case Chosen(value=str(day)):
                start = date.fromisoformat(day)
            case Answer(value=date() as start):
                pass
            case _:
                raise Unexpected("suspend.start_hint", last=last)
        if not today <= start <= last:
            raise Unexpected("suspend.start_out_of_range", day=start, today=today, last=last)
        ctx.data["start"] = start.isoformat()
        options = [Option("yes", key="suspend.button_confirm"), Option("no", key="suspend.button_drop")]
        ctx.reply.ask("confirm", "suspend.terms", options, **self._terms(ctx))

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="yes") | Answer(value=True):
                await self._suspend(ctx)
            case Chosen(value="no") | Answer(value=False):
                ctx.reply.say("suspend.dropped")
                ctx.to_menu()
            case _:
                raise Unexpected("suspend.pick_a_button")

    async def unsure(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="retry") if ctx.data.get("tried") == SUSPEND:
                await self._suspend(ctx)
            case Chosen(value="retry"):
                await self._call_off(ctx)
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("suspend.pick_a_button")

    # ---- helpers ---------------------------------------------------------------------------------------
    def _what(self, ctx: Context, number: int, state: str, plan: str) -> None:
        ctx.data.update(contract=number, plan=plan)
        if state == SUSPENDED:
            ctx.reply.say("suspend.suspended_now", number=number)
            ctx.to_menu()
            return
        options = [Option(SUSPEND, key="suspend.button_suspend"), Option(CALL_OFF, key="suspend.button_call_off"),
                   Option("menu", key="suspend.button_menu")]
        low, high = ctx.policy.suspend_min_days, ctx.policy.suspend_max_days
        ctx.reply.ask("what", "suspend.what", options, number=number, plan=plan, low=low, high=high)

    def _terms(self, ctx: Context) -> dict[str, Any]:
        start = date.fromisoformat(ctx.data["start"])
        days = int(ctx.data["days"])
        return {"number": ctx.data["contract"], "plan": ctx.data["plan"], "days": days, "start": start,
                "end": start + timedelta(days=days), "today": start == ctx.coordinator.now().date()}

    def _write(self, ctx: Context, which: str) -> WriteGuarded:
        def ask(key: str) -> None:
            ctx.data["tried"] = which
            ctx.reply.ask("unsure", key, [Option("retry", key="suspend.button_retry"),
                                          Option("menu", key="suspend.button_menu")])

        repeated = ErrorName.SUSPENSION_ALREADY_SCHEDULED if which == SUSPEND else ErrorName.NO_SUSPENSION_FOUND
        return WriteGuarded(ctx.data, which, repeated=repeated, ask=ask, unsure="suspend.unsure")

    async def _suspend(self, ctx: Context) -> None:
        number = int(ctx.data["contract"])
        write = self._write(ctx, SUSPEND)
        contract = await fresh_contract(ctx, number)
        state = status(contract) if contract is not None else ""
        terms = self._terms(ctx)
        if write.tried and state == SUSPENDED and terms["today"]:  # the lost try landed and took effect
            write.forget()
            await self._done(ctx, "suspend.done", terms)
            return
        if state != ACTIVE:
            ctx.reply.say("suspend.not_active", number=number, state=state)
            ctx.to_menu()
            return
        try:
            sent = await write.send(lambda: ctx.coordinator.suspend_contract(
                customer=ctx.customer, contract=number, days=int(ctx.data["days"]),
                start=date.fromisoformat(ctx.data["start"]), user=ctx.policy.isp_user,
            ))
        except IspApiError as exc:
            if exc.known is ErrorName.SUSPENSION_ALREADY_SCHEDULED:
                options = [Option(CALL_OFF, key="suspend.button_call_off"), Option("menu", key="suspend.button_menu")]
                ctx.reply.ask("what", "suspend.already_scheduled", options, number=number)
            elif exc.code == 10:  # not documented for this operation, but what a state refusal answers
                ctx.reply.say("suspend.not_active", number=number, state="")
                ctx.to_menu()
            else:
                raise
            return
        if sent is not None:
            await self._done(ctx, "suspend.done", terms)

    async def _call_off(self, ctx: Context) -> None:
        number = int(ctx.data["contract"])
        try:
            sent = await self._write(ctx, CALL_OFF).send(lambda: ctx.coordinator.cancel_suspension(
                customer=ctx.customer, contract=number, user=ctx.policy.isp_user))
        except IspApiError as exc:
            if exc.known is not ErrorName.NO_SUSPENSION_FOUND:
                raise
            ctx.reply.say("suspend.none_scheduled", number=number)
            ctx.to_menu()
            return
        if sent is not None:
            await self._done(ctx, "suspend.called_off", {"number": number, "plan": ctx.data["plan"]})

    async def _done(self, ctx: Context, key: str, terms: dict[str, Any]) -> None:
        number = terms["number"]
        if key == "suspend.done":
            text = ctx.isp_text("suspend.isp_note", number=number, days=terms["days"], start=terms["start"])
            subject = ctx.isp_text("suspend.isp_subject")
        else:
            text = ctx.isp_text("suspend.isp_undone_note", number=number)
            subject = ctx.isp_text("suspend.isp_undone_subject")
        ticket, protocol = await record_ticket(ctx, hints=HINTS, contract=int(number), subject=subject, text=text)
        outcome = "suspended" if key == "suspend.done" else "suspension_cancelled"  # flows.contacts' outcomes
        await ctx.records.record(self.name, outcome, ticket=ticket, reference=str(protocol) if protocol else None)
        notice = "suspend.staff_notice" if key == "suspend.done" else "suspend.staff_notice_called_off"
        ctx.staff.tell(notice, customer=ctx.customer, ticket=ticket, **terms)
        ctx.reply.say(key, ticket=ticket, **terms)  # by its number, labelled a ticket: "protocol" is the contact's
        ctx.to_menu()

