""""Quero cancelar": the subscriber cancels a contract in the chat, without an attendant (Decreto
11.034/2022), or, when the operator turns that off (``self_cancel``) or has not set the ISP ids a
cancel needs (``cancel_terms``), is asked once and handed to a person with the cancellation topic.

- The contract (when several can be cancelled: states E, I, A, B, S), the reason from the ISP's list
  (one typed in the person's words is kept for the ticket, and the closest of the list asked for),
  optionally the competitor ("I'd rather not say" first), the operator's one retention offer if any
  (declined in one tap; taking it opens a ticket for staff), then what happens next and a last "yes".
- Right before ``contract_cancel`` the contract is read again; it sets a state (``ctx.write_state``):
  after a lost answer the contract is read back, one shown cancelled goes on as done, and when even
  that read fails the person is asked to let the bot check again (never a blind second cancel).
- Done: a ticket on the cancellation topic records it for staff (its number is told, the contact's
  protocol is the receipt's), the staff desk hears of it, and a receipt PDF (``papers``) is sent. The ISP's refusal
  (code 38) is said plainly.
"""

from __future__ import annotations

from bot.i18n import plain_text
from bot.isp import IspApiError
from bot.isp.errors import ErrorName

from flows.context import Context
from flows.events import Text
from flows.flow import TO_MENU, WORDS, YES_NO, Answer, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.subscriber.papers import paper
from flows.subscriber.rights import ask_contract, contracts_in, fresh_contract, record_ticket, status
from flows.writes import WriteState

CANCEL_HINT = "cancel"  # the administrative topic of cancellations ("Cancelamento"), where there is one
CANCELLABLE = ("E", "I", "A", "B", "S")  # contract_cancel's states (second document, 3.1)
CANCELLED = "C"
REASON_KEPT = 500  # characters of a reason typed in the person's words, kept for the ticket
CANCELLED_OUTCOME, RETAINED = "cancelled", "retention_accepted"  # what the contact came to (flows.contacts)


class CancelPlan(Flow):
    name = "cancel_plan"
    commands = ("cancelarplano", "cancelplan", "cancelarplan")  # "cancelar" is the engine's: leave a question
    steps = Steps(
        begin=("sure", "contract", "reason", Switch("human"), TO_MENU),
        sure=(YES_NO, Switch("human"), TO_MENU),
        contract=("reason", Switch("human"), TO_MENU),
        reason=(WORDS, "reason", "competitor", "retain", "confirm", TO_MENU),
        competitor=("retain", "confirm", TO_MENU),
        retain=("confirm", TO_MENU),
        confirm=(YES_NO, "unsure", "confirm", TO_MENU),
        unsure=("unsure", "confirm", TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        if not (ctx.policy.self_cancel and ctx.policy.cancel_terms.complete):
            options = [Option(True, key="cancel_plan.button_yes"), Option(False, key="cancel_plan.button_no")]
            ctx.reply.ask("sure", "cancel_plan.sure", options)
            return
        contracts = await contracts_in(ctx, CANCELLABLE)
        handed = [c for c in contracts if c.Numero == ctx.data.get("contract")]  # from the contract's card
        contracts = handed or contracts
        if not contracts:
            ctx.reply.say("cancel_plan.nothing_to_cancel")
            ctx.to_menu()
            return
        if len(contracts) > 1:
            ask_contract(ctx, "contract", "cancel_plan.which_contract", contracts)
            return
        ctx.data.update(contract=contracts[0].Numero, plan=contracts[0].Plano_Descricao or "")
        await self._ask_reason(ctx)

    async def sure(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=True) | Answer(value=True):
                ctx.reply.say("human.cancel_plan")
                ctx.switch("human", topic_hints=[CANCEL_HINT])
            case Chosen(value=False) | Answer(value=False):
                ctx.reply.say("cancel_plan.kept")
                ctx.to_menu()
            case _:
                raise Unexpected("cancel_plan.yes_or_no")

    async def contract(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Chosen):
            raise Unexpected("cancel_plan.pick_a_button")
        chosen = next((c for c in await contracts_in(ctx, CANCELLABLE) if c.Numero == event.value), None)
        if chosen is None:
            ctx.reply.say("cancel_plan.nothing_to_cancel")
            ctx.to_menu()
            return
        ctx.data.update(contract=chosen.Numero, plan=chosen.Plano_Descricao or "")
        await self._ask_reason(ctx)

    async def reason(self, ctx: Context, event: StepEvent) -> None:
        if isinstance(event, Text) and event.text.strip():
            # The reason in the person's own words ("a internet cai toda hora") is kept for the ticket;
            # the ISP's list still needs one of its reasons.
            ctx.data["reason_words"] = event.text.strip()[:REASON_KEPT]
            await self._ask_reason(ctx, noted=True)
            return
        if not isinstance(event, Chosen):
            raise Unexpected("cancel_plan.pick_a_reason")
        ctx.data["reason"] = {"id": event.value, "name": event.label}
        competitors = [c for c in await ctx.coordinator.competitors() if c.id and c.Nome]
        if not competitors:
            self._retain_or_confirm(ctx)
            return
        options = [Option(None, key="cancel_plan.button_rather_not")]
        options += [Option(c.id, text=c.Nome) for c in competitors]
        ctx.reply.ask("competitor", "cancel_plan.competitor", options, columns=2)

    async def competitor(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Chosen):
            raise Unexpected("cancel_plan.pick_a_button")
        ctx.data["competitor"] = None if event.value is None else {"id": event.value, "name": event.label}
        self._retain_or_confirm(ctx)

    async def retain(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="decline"):
                self._confirm(ctx)
            case Chosen(value="accept"):
                text = ctx.isp_text("cancel_plan.isp_retention_note", number=ctx.data["contract"],
                                    offer=ctx.policy.retention_offer, reason=ctx.data["reason"]["name"])
                ticket, protocol = await record_ticket(ctx, hints=(CANCEL_HINT,), contract=ctx.data["contract"],
                                                       subject=ctx.isp_text("cancel_plan.isp_retention_subject"),
                                                       text=text)
                await ctx.records.record(self.name, RETAINED, ticket=ticket,
                                         reference=str(protocol) if protocol else None)
                ctx.reply.say("cancel_plan.offer_taken", ticket=ticket)
                ctx.to_menu()
            case _:
                raise Unexpected("cancel_plan.pick_a_button")

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="cancel") | Answer(value=True):
                await self._cancel(ctx)
            case Chosen(value="keep") | Answer(value=False):
                ctx.reply.say("cancel_plan.kept")
                ctx.to_menu()
            case _:
                raise Unexpected("cancel_plan.yes_or_no")

    async def unsure(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="check"):
                found = await self._write(ctx).recall()
                if found is not None:
                    await self._done(ctx)
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("cancel_plan.pick_a_button")

    # ---- the steps' questions ----------------------------------------------------------------------
    async def _ask_reason(self, ctx: Context, *, noted: bool = False) -> None:
        reasons = [r for r in await ctx.coordinator.cancel_reasons() if r.id and r.Nome]
        if not reasons:  # contract_cancel needs one: without the ISP's list a person takes it
            ctx.reply.say("cancel_plan.no_reasons")
            ctx.switch("human", topic_hints=[CANCEL_HINT])
            return
        options = [Option(r.id, text=r.Nome) for r in reasons]
        ctx.reply.ask("reason", "cancel_plan.reason_noted" if noted else "cancel_plan.reason", options,
                      number=ctx.data["contract"], plan=ctx.data["plan"])

    def _retain_or_confirm(self, ctx: Context) -> None:
        offer = ctx.policy.retention_offer
        if not offer:
            self._confirm(ctx)
            return
        options = [Option("decline", key="cancel_plan.button_decline"),
                   Option("accept", key="cancel_plan.button_accept")]
        ctx.reply.ask("retain", "cancel_plan.offer", options, offer=offer)

    def _confirm(self, ctx: Context) -> None:
        terms = ctx.policy.cancel_terms
        options = [Option("cancel", key="cancel_plan.button_cancel_now"), Option("keep", key="cancel_plan.button_keep")]
        ctx.reply.ask("confirm", "cancel_plan.next", options, number=ctx.data["contract"], plan=ctx.data["plan"],
                      reason=ctx.data["reason"]["name"], future=terms.future_billing,
                      withdrawal=bool(terms.withdrawal_topic))

    # ---- cancelling ----------------------------------------------------------------------------------
    def _write(self, ctx: Context) -> WriteState[str]:
        number = int(ctx.data["contract"])

        async def status_now() -> str:
            contract = await fresh_contract(ctx, number)
            return status(contract) if contract is not None else ""

        def missed(state: str) -> None:
            ctx.reply.say("cancel_plan.not_done", number=number)
            self._confirm(ctx)

        def ask(key: str) -> None:
            ctx.reply.ask("unsure", key, [Option("check", key="cancel_plan.button_check"),
                                          Option("menu", key="cancel_plan.button_menu")])

        return ctx.write_state(read_back=status_now, landed=lambda state: state == CANCELLED, missed=missed,
                               ask=ask, unsure="cancel_plan.unsure")

    async def _cancel(self, ctx: Context) -> None:
        number = int(ctx.data["contract"])
        contract = await fresh_contract(ctx, number)
        if contract is None or status(contract) not in CANCELLABLE:
            cancelled = contract is not None and status(contract) == CANCELLED
            ctx.reply.say("cancel_plan.refused", number=number, cancelled=cancelled)
            ctx.to_menu()
            return
        competitor = ctx.data.get("competitor")
        try:
            sent = await self._write(ctx).send(lambda: ctx.coordinator.cancel_contract(
                customer=ctx.customer, contract=number, reason=int(ctx.data["reason"]["id"]),
                competitor=int(competitor["id"]) if competitor else None, terms=ctx.policy.cancel_terms,
            ))
        except IspApiError as exc:
            if exc.known is not ErrorName.CONTRACT_CANNOT_BE_CANCELLED:
                raise
            ctx.reply.say("cancel_plan.refused", number=number, cancelled=False)
            ctx.to_menu()
            return
        if sent is not None:
            await self._done(ctx)

    async def _done(self, ctx: Context) -> None:
        number, plan = int(ctx.data["contract"]), ctx.data["plan"]
        when = ctx.coordinator.now()
        reason = ctx.data["reason"]["name"]
        competitor = (ctx.data.get("competitor") or {}).get("name")
        offered = bool(ctx.policy.retention_offer)
        words = ctx.data.get("reason_words")
        text = ctx.isp_text("cancel_plan.isp_cancel_note", number=number, plan=plan, when=when, reason=reason,
                            words=words, competitor=competitor, offered=offered)
        ticket, ticket_protocol = await record_ticket(ctx, hints=(CANCEL_HINT,), contract=number,
                                                      subject=ctx.isp_text("cancel_plan.isp_cancel_subject"), text=text)
        await ctx.records.record(self.name, CANCELLED_OUTCOME, ticket=ticket, reference=str(ticket_protocol or number))
        # The receipt's protocol is the contact's (RGC); the ticket is named as a ticket, by its number.
        protocol = ctx.records.contact.protocol if ctx.records.contact is not None else None
        ctx.staff.tell("cancel_plan.staff_notice", customer=ctx.customer, number=number, plan=plan, when=when,
                       reason=reason, competitor=competitor, protocol=protocol, ticket=ticket)
        customer = await ctx.coordinator.customer(ctx.customer)
        variables = {
            "number": number, "plan": plan, "reason": reason, "competitor": competitor, "when": when,
            "protocol": protocol, "ticket": ticket, "name": customer.Nome if customer else "",
            "tax_id": customer.CNPJ_CNPF if customer else "", "future": ctx.policy.cancel_terms.future_billing,
            "withdrawal": bool(ctx.policy.cancel_terms.withdrawal_topic), "company": ctx.policy.company,
        }
        receipt = paper(
            plain_text(ctx.text("cancel_plan.receipt_title", **variables)),
            plain_text(ctx.text("cancel_plan.receipt_body", **variables)).split("\n"),
            issuer=ctx.policy.company, footer=plain_text(ctx.text("cancel_plan.receipt_footer", **variables)),
        )
        ctx.reply.say("cancel_plan.done", **variables)
        ctx.reply.upload("document", receipt, f"cancelamento-{number}.pdf", "cancel_plan.receipt_caption", **variables)
        ctx.to_menu()
