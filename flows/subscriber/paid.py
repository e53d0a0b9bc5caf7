""""I have paid": which bill, when, the receipt, a confirmation, then ``send_payment_notification``.
It begins from a bill's card (the bill known, and the receipt if sent there), from words ("paguei")
or from a photo or PDF sent at the menu or the bill list: only what is missing is asked.

- Bills: ``get_unpaid_document``, oldest first; one open bill is taken without asking. The date is
  today, yesterday or said ("anteontem", "paguei ontem"), not future nor over ``OLDEST_DAYS`` ago.
- A receipt (photo or PDF of at most ``policy.receipt_max_bytes``) is never logged nor stored. It is
  read as it comes (``bot.receipts``, off the event loop): its amount picks the bill, its date the
  payment's, and a receipt saying both is sent at once, one message telling what was read; the same
  receipt again (end-to-end id or file, from the notes on the payment tickets) gets the first
  ticket's number; another payee goes to a person; what was read and any doubt is a note on the ticket.
- No ``ctx.write_once``: the ISP refuses a second notice for a bill (code 21), told plainly; a bill
  already told is said as soon as it is known (``_earlier_notice``), with when and its ticket.
- After the notice, a blocked contract is offered the unblock in trust when the policy allows it.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import PurePath
from typing import Any

from bot.isp import IspApiError, IspError
from bot.isp.errors import ErrorName
from bot.isp.models.v1_records import ContractStatus, Ticket
from bot.isp.pix import BrCode, parse_br_code
from bot.receipts.fields import end_to_end_key
from bot.receipts.matching import match_bill, payee_is
from bot.receipts.reading import Reading, Refused, read_receipt_async

from flows.contacts import PAYMENT_NOTICED, Deadline
from flows.context import Context
from flows.events import FileRef, Media
from flows.files import FileTooLarge, FileUnavailable
from flows.flow import (
    DATE_PAST,
    FILES,
    TO_MENU,
    YES_NO,
    Answer,
    Chosen,
    Flow,
    Option,
    StepEvent,
    Steps,
    Switch,
    Unexpected,
)

OLDEST_DAYS = 90
EARLIER_TICKETS = 6  # the customer's newest payment tickets looked at for the same receipt
RECEIPT_TYPES = ("application/pdf", "image/")
RECEIPT_SUFFIXES = (".pdf", ".jpg", ".jpeg", ".png")
_NOTICE = re.compile(r"pagamento|payment|pago", re.IGNORECASE)  # the subject of a notice's ticket


def receipt_of(event: Media) -> FileRef | None:
    """The file of a photo or of a PDF/image document, None for anything else."""
    file = event.file
    if file is None or event.kind not in ("photo", "document"):
        return None
    readable = (file.mime or "").startswith(RECEIPT_TYPES) or file.name.lower().endswith(RECEIPT_SUFFIXES)
    return file if event.kind == "photo" or readable else None


class Paid(Flow):
    name = "paid"
    commands = ("paguei", "comprovante", "paid")
    steps = Steps(
        begin=("bill", "when", "receipt", "after", Switch("human"), TO_MENU),
        bill=(FILES, "bill", "when", "receipt", "after", Switch("human"), TO_MENU),
        when=(DATE_PAST, FILES, "when", "receipt", "confirm", "after", Switch("human"), TO_MENU),
        receipt=(FILES, "when", "receipt", "confirm", "after", Switch("human"), TO_MENU),
        confirm=(YES_NO, FILES, "when", "confirm", "receipt", "after", Switch("human"), TO_MENU),
        after=(Switch("contracts"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        receipt = ctx.data.get("receipt")
        if receipt and (receipt.get("size") or 0) > ctx.policy.receipt_max_bytes:
            ctx.data.pop("receipt")
            ctx.reply.say("paid.too_large", limit=ctx.policy.receipt_max_bytes // (1024 * 1024))
        if ctx.data.get("receipt") and await self._read_and_use(ctx):
            return
        if ctx.data.get("document"):
            if not await self._told_before(ctx):
                self._ask_date(ctx, got_receipt=bool(ctx.data.get("receipt")))
            return
        bills = await _open_bills(ctx)
        if not bills:
            ctx.reply.say("paid.none_open")
            ctx.to_menu()
            return
        if len(bills) == 1:
            ctx.data["document"] = bills[0]
            if not await self._told_before(ctx):
                self._ask_date(ctx, got_receipt=bool(ctx.data.get("receipt")))
            return
        ctx.data["bills"] = bills[:6]
        self._ask_bill(ctx)

    async def bill(self, ctx: Context, event: StepEvent) -> None:
        if isinstance(event, Media) and (file := receipt_of(event)) is not None:  # the receipt before the bill
            self._keep(ctx, file)
            if not await self._read_and_use(ctx):
                self._ask_bill(ctx)
            return
        if not isinstance(event, Chosen):
            raise Unexpected("paid.pick_a_button")
        ctx.data["document"] = event.value
        if not await self._told_before(ctx):
            self._ask_date(ctx)

    async def when(self, ctx: Context, event: StepEvent) -> None:
        today = ctx.coordinator.now().date()
        match event:
            case Chosen(value=str(day)):
                paid_on = date.fromisoformat(day)
            case Answer(value=date() as paid_on):
                if paid_on > today or paid_on < today - timedelta(days=OLDEST_DAYS):
                    raise Unexpected("paid.date_out_of_range", days=OLDEST_DAYS)
            case Media() if (file := receipt_of(event)) is not None:  # the receipt before the date
                self._keep(ctx, file)
                if not await self._read_and_use(ctx):
                    self._ask_date(ctx, got_receipt=True)
                return
            case _:
                raise Unexpected("paid.date_not_understood")
        ctx.data["paid_on"] = paid_on.isoformat()
        if ctx.data.get("receipt"):
            self._ask_confirm(ctx)
        else:
            self._ask_receipt(ctx, "paid.send_receipt")

    async def receipt(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Media() if (file := receipt_of(event)) is not None:
                if file.size is not None and file.size > ctx.policy.receipt_max_bytes:
                    ctx.reply.say("paid.too_large", limit=ctx.policy.receipt_max_bytes // (1024 * 1024))
                    ctx.data["receipt_tries"] = int(ctx.data.get("receipt_tries", 0)) + 1
                    self._ask_receipt(ctx, "paid.send_receipt")  # asked again, a person offered beside
                    return
                self._keep(ctx, file)
                if not await self._read_and_use(ctx):
                    self._ask_confirm(ctx)
            case Chosen(value="cancel"):
                ctx.reply.say("paid.dropped")
                ctx.to_menu()
            case Chosen(value="person"):  # no photo nor PDF to send: a person checks the payment otherwise
                ctx.reply.say("paid.to_a_person")
                ctx.switch("human")
            case _:
                raise Unexpected("paid.receipt_kinds")

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Media() if (file := receipt_of(event)) is not None:  # another receipt: this one, then
                self._keep(ctx, file)
                self._ask_confirm(ctx)
            case Chosen(value="yes") | Answer(value=True):
                await self._send(ctx)
            case Chosen(value="no") | Answer(value=False):
                ctx.reply.say("paid.dropped")
                ctx.to_menu()
            case _:
                raise Unexpected("paid.pick_a_button")

    async def after(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="unblock"):
                ctx.switch("contracts", unblock=ctx.data["blocked"])
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("paid.pick_a_button")

    # ---- steps' helpers --------------------------------------------------------------------------
    def _keep(self, ctx: Context, file: FileRef) -> None:
        if file.size is not None and file.size > ctx.policy.receipt_max_bytes:
            raise Unexpected("paid.too_large", limit=ctx.policy.receipt_max_bytes // (1024 * 1024))
        ctx.data["receipt"] = kept(file)
        ctx.data.pop("read", None)

    async def _read_and_use(self, ctx: Context) -> bool:
        """Read the receipt just kept and take from it what it answers; True when that settled the turn
        (sent, refused, a duplicate, another payee), False to go on asking what is still missing."""
        reading = await self._read(ctx)
        if reading is None:
            return "receipt" not in ctx.data and self._refused(ctx)
        read = reading.receipt
        ctx.data["read"] = {
            "amount": str(read.amount) if read.amount is not None else None,
            "paid_at": read.paid_at.isoformat() if read.paid_at else None, "payee": read.payee_name,
            "payee_tax_id": read.payee_tax_id, "payer": read.payer_name, "bank": read.bank,
            "e2e": read.end_to_end, "line": read.digitable_line, "fingerprint": reading.fingerprint[:16],
        }
        if (earlier := await _receipt_sent_before(ctx, ctx.data["read"])) is not None:
            ctx.reply.say("paid.receipt_again", ticket=earlier)
            ctx.to_menu()
            return True
        if not read.is_receipt:
            return False  # a photo of something else: asked as before, the receipt kept for staff
        known = ctx.data.get("document")
        bill, closest = (known, None) if known else match_bill(read.amount, await _open_bills(ctx))
        pix = await _bill_pix(ctx, bill or closest)
        payee = payee_is(read.payee_name, read.payee_tax_id, company=ctx.policy.company,
                         company_tax_id=ctx.policy.company_tax_id, key=read.payee_key,
                         pix_names=[pix.merchant] if pix and pix.merchant else [],
                         pix_keys=[pix.key] if pix and pix.key else [])
        if payee == "other":
            ctx.reply.say("paid.other_payee", payee=read.payee_name or read.payee_tax_id, amount=read.amount)
            ctx.switch("human")
            return True
        ctx.data["read"]["payee_checked"] = payee
        if not known:
            if bill is None and closest is None:
                return False
            ctx.data["document"] = bill or closest
            ctx.data["read"]["doubt_amount"] = bill is None
        elif read.amount is not None:  # the bill came from its card: the amount must still be its own
            ctx.data["read"]["doubt_amount"] = match_bill(read.amount, [known])[0] is None
        if read.paid_at is not None and "paid_on" not in ctx.data:
            await self._take_read_date(ctx, read.paid_at.date())
        if "paid_on" not in ctx.data:
            self._ask_date(ctx, got_receipt=True)
            return True
        if await self._told_before(ctx):
            return True
        await self._send(ctx)
        return True

    async def _take_read_date(self, ctx: Context, paid_on: date) -> None:
        """The receipt's date becomes the payment's unless it cannot be: in the future or too old, it
        is said and the date asked; before the bill was issued, the notice goes with the doubt said to
        the person and noted on the ticket (a receipt of an earlier bill is the usual slip)."""
        today = ctx.coordinator.now().date()
        if paid_on > today:
            ctx.data["read"]["doubt_date"] = "future"
            ctx.reply.say("paid.read_date_future", paid_on=paid_on)
        elif paid_on < today - timedelta(days=OLDEST_DAYS):
            ctx.data["read"]["doubt_date"] = "old"
            ctx.reply.say("paid.read_date_out", paid_on=paid_on, days=OLDEST_DAYS)
        else:
            ctx.data["paid_on"] = paid_on.isoformat()
            if await _issued_after(ctx, ctx.data["document"], paid_on):
                ctx.data["read"]["doubt_date"] = "before_issue"

    async def _read(self, ctx: Context) -> Reading | None:
        """The receipt's reading; None when it cannot be fetched now (the send tries again) or was
        refused (``ctx.data["refused"]``, the receipt dropped)."""
        receipt = ctx.data["receipt"]
        try:
            content = await ctx.fetch_file(receipt["ref"], limit=ctx.policy.receipt_max_bytes)
            return await read_receipt_async(content, pdf=receipt["name"].endswith(".pdf"))
        except (FileTooLarge, FileUnavailable):
            return None
        except Refused as refused:
            ctx.data.pop("receipt")
            ctx.data["refused"] = refused.reason
            return None

    def _refused(self, ctx: Context) -> bool:
        reason = ctx.data.pop("refused", None)
        if reason is None:
            return False
        self._ask_receipt(ctx, f"paid.refused_{reason}")
        return True

    def _ask_receipt(self, ctx: Context, key: str) -> None:
        """Ask for the receipt (again); after a file that did not go (too large, lost, refused) a
        person is offered beside it, so no one loops on "mande de novo"."""
        tries = int(ctx.data.get("receipt_tries", 0)) + (key != "paid.send_receipt")
        ctx.data["receipt_tries"] = tries
        options = [Option("cancel", key="paid.button_cancel")]
        if tries >= 1:
            options.insert(0, Option("person", key="paid.button_person"))
        ctx.reply.ask("receipt", key, options, limit=ctx.policy.receipt_max_bytes // (1024 * 1024))

    def _ask_bill(self, ctx: Context) -> None:
        options = [Option(b, key="paid.button_bill", vars=_display(b)) for b in ctx.data["bills"]]
        ctx.reply.ask("bill", "paid.which_bill", options, got_receipt=bool(ctx.data.get("receipt")))

    def _ask_date(self, ctx: Context, *, got_receipt: bool = False) -> None:
        today = ctx.coordinator.now().date()
        options = [Option(today.isoformat(), key="paid.button_today"),
                   Option((today - timedelta(days=1)).isoformat(), key="paid.button_yesterday")]
        ctx.reply.ask("when", "paid.when", options, columns=2, got_receipt=got_receipt,
                      **_display(ctx.data["document"]))

    async def _told_before(self, ctx: Context) -> bool:
        """Say when this bill's payment was already told, and its ticket; False when it was not."""
        bill = ctx.data["document"]
        ticket = await _earlier_notice(ctx, bill)
        if ticket is None:
            return False
        ctx.reply.say("paid.told_before", at=ticket.Abertura_DataHora, ticket=ticket.Numero,
                      closed=ticket.Encerramento_DataHora is not None, **_display(bill))
        ctx.to_menu()
        return True

    def _ask_confirm(self, ctx: Context) -> None:
        options = [Option("yes", key="paid.button_send"), Option("no", key="paid.button_cancel")]
        ctx.reply.ask("confirm", "paid.confirm", options, columns=2, paid_on=date.fromisoformat(ctx.data["paid_on"]),
                      file=ctx.data["receipt"]["name"], **_display(ctx.data["document"]))

    async def _send(self, ctx: Context) -> None:
        receipt = ctx.data["receipt"]
        try:
            content = await ctx.fetch_file(receipt["ref"], limit=ctx.policy.receipt_max_bytes)
        except FileTooLarge:
            ctx.data.pop("receipt")
            self._ask_receipt(ctx, "paid.too_large_again")
            return
        except FileUnavailable:
            ctx.data.pop("receipt")
            self._ask_receipt(ctx, "paid.receipt_lost")
            return
        document = ctx.data["document"]
        try:
            ticket = await ctx.coordinator.notify_payment(
                customer=ctx.customer, document=int(document["id"]), paid_on=date.fromisoformat(ctx.data["paid_on"]),
                name=receipt["name"], content=content,
            )
        except IspApiError as exc:
            if exc.known is not ErrorName.PAYMENT_ALREADY_INFORMED:
                raise
            if not await self._told_before(ctx):
                ctx.reply.say("paid.already_informed", **_display(document))
                ctx.to_menu()
            return
        # The person is told the ticket by its own number, labelled a ticket ("protocol" is the
        # contact's); the ISP ticket's protocol stays on the record for staff to search by.
        protocol = await ctx.coordinator.protocol(ctx.customer, ticket) if ticket else None
        # The ISP confirms the payment later: a request, with its term.
        await ctx.records.record(self.name, PAYMENT_NOTICED, ticket=ticket or None,
                                 reference=str(protocol or ticket or ""), deadline=Deadline.REQUEST)
        read = ctx.data.get("read")
        if read and read.get("amount"):
            if ticket:
                await _note_for_staff(ctx, ticket, read, document)
            paid_at = datetime.fromisoformat(read["paid_at"]) if read.get("paid_at") else None
            if read.get("doubt_date") in ("future", "old"):  # the date the person gave, not the receipt's
                paid_at = datetime.combine(date.fromisoformat(ctx.data["paid_on"]), time(0, 0))
            ctx.reply.say("paid.sent_read", ticket=ticket, amount=Decimal(read["amount"]),
                          paid_on=paid_at.date() if paid_at else None,
                          paid_time=paid_at if paid_at and paid_at.time() != time(0, 0) else None,
                          payee=read.get("payee"), doubt_amount=read.get("doubt_amount", False),
                          doubt_date=read.get("doubt_date"), **_display(document))
        else:
            ctx.reply.say("paid.sent", ticket=ticket, **_display(document))
        await self._offer_unblock(ctx)

    async def _offer_unblock(self, ctx: Context) -> None:
        """After the notice nothing may fail: without the contracts the offer is simply left out."""
        try:
            contracts = await ctx.coordinator.contracts(ctx.customer)
        except IspError:
            contracts = []
        blocked = [c.Numero for c in contracts if c.Situacao_Codigo is ContractStatus.BLOCKED and c.Numero is not None]
        if not blocked or not ctx.policy.unblock_enabled:
            ctx.to_menu()
            return
        ctx.data["blocked"] = blocked[0]
        options = [Option("unblock", key="paid.button_unblock"), Option("menu", key="paid.button_menu")]
        ctx.reply.ask("after", "paid.offer_unblock", options, number=blocked[0])


async def _open_bills(ctx: Context) -> list[dict[str, Any]]:
    """The open bills as the chat's state keeps them, oldest first."""
    unpaid = [d for d in await ctx.coordinator.unpaid_documents(ctx.customer) if d.id is not None]
    return [{"id": d.id, "number": d.document_number, "due": d.due_date.isoformat() if d.due_date else None,
             "value": str(d.value_init or d.value_up or 0),
             "value_up": str(d.value_up) if d.value_up is not None else None}
            for d in sorted(unpaid, key=lambda d: (d.due_date or date.max, d.id or 0))]


async def _bill_pix(ctx: Context, bill: dict[str, Any] | None) -> BrCode | None:
    """The bill's own PIX code (its payee's registered name and key), None when it has none or the
    ISP cannot say now: the payee is then checked by the company's name and CNPJ alone."""
    if bill is None:
        return None
    try:
        return parse_br_code(await ctx.coordinator.pix_code(int(bill["id"])))
    except IspError:
        return None


async def _issued_after(ctx: Context, bill: dict[str, Any], paid_on: date) -> bool:
    """Whether the bill was issued after ``paid_on``; asked only for a payment before its due date
    (a bill is issued before it is due), False when the ISP cannot say now."""
    due = bill.get("due")
    if due and paid_on >= date.fromisoformat(due):
        return False
    try:
        return await ctx.coordinator.issued_after(ctx.customer, int(bill["id"]), paid_on)
    except IspError:
        return False


def _marks(ctx: Context, read: dict[str, Any]) -> list[str]:
    """What tells this receipt again in a ticket's note: its end-to-end id (as OCR-proof key) and
    its file's fingerprint."""
    marks = [ctx.isp_text("paid.isp_mark_file", fingerprint=read["fingerprint"])]
    if read.get("e2e"):
        marks.append(ctx.isp_text("paid.isp_mark_e2e", key=end_to_end_key(read["e2e"])))
    return marks


async def _note_for_staff(ctx: Context, ticket: int, read: dict[str, Any], bill: dict[str, Any]) -> None:
    """The fields read, the match and the doubts, on the ticket: staff check it at a glance. A note
    that fails leaves the notice sent (the file is on the ticket)."""
    note = ctx.isp_text(
        "paid.staff_note", amount=Decimal(read["amount"]),
        paid_at=datetime.fromisoformat(read["paid_at"]) if read.get("paid_at") else None,
        payee=read.get("payee"), payee_tax_id=read.get("payee_tax_id"), payer=read.get("payer"),
        bank=read.get("bank"), e2e=read.get("e2e"), line=read.get("line"),
        payee_checked=read.get("payee_checked", "unknown"), doubt_amount=read.get("doubt_amount", False),
        doubt_date=read.get("doubt_date"), paid_on=date.fromisoformat(ctx.data["paid_on"]),
        marks=" · ".join(_marks(ctx, read)), **_display(bill),
    )
    try:
        await ctx.coordinator.add_occurrence(ticket, note, ctx.policy.isp_user)
    except IspError:
        return


async def _receipt_sent_before(ctx: Context, read: dict[str, Any]) -> str | None:
    """The ticket number of an earlier notice with this very receipt (the same end-to-end id or file),
    from the notes on the customer's payment tickets, the newest few; None when none or the ISP
    cannot say now."""
    marks = _marks(ctx, read)
    try:
        tickets = [t for t in await ctx.coordinator.tickets(ctx.customer) if t.Assunto and _NOTICE.search(t.Assunto)]
        for ticket in tickets[:EARLIER_TICKETS]:
            if ticket.Numero is None:
                continue
            notes = await ctx.coordinator.occurrences(ticket.Numero)
            if any(o.Descricao and any(mark in o.Descricao for mark in marks) for o in notes):
                return str(ticket.Numero)
    except IspError:
        return None
    return None


def kept(file: FileRef) -> dict[str, Any]:
    """What the chat's state keeps of a receipt until it is sent: where to fetch it, never its bytes.
    The ISP gets it named ``comprovante`` with the file's own extension (``.jpg`` for a photo)."""
    suffix = PurePath(file.name).suffix.lower() or ".jpg"
    return {"ref": file.ref, "name": f"comprovante{suffix}", "size": file.size}


async def _earlier_notice(ctx: Context, bill: dict[str, Any]) -> Ticket | None:
    """The ticket the ISP opened for an earlier notice of this bill, the newest; None when there is
    none or the ISP cannot say now (its refusal at the send, code 21, still tells, without the date).

    The ISP keeps a notice only as the ticket it opened "to check the payment" (third document, 1.6)
    and has no query of notices: that ticket is the customer's ticket whose subject names the bill's
    document number and a payment (``_NOTICE``: the ISP's own words, Portuguese or English)."""
    number = str(bill.get("number") or "").strip()
    if not number:
        return None
    try:
        tickets = await ctx.coordinator.tickets(ctx.customer)
    except IspError:
        return None
    names = re.compile(rf"(?<!\d){re.escape(number)}(?!\d)")
    found = [t for t in tickets if t.Assunto and names.search(t.Assunto) and _NOTICE.search(t.Assunto)]
    return max(found, key=lambda t: t.Numero or 0, default=None)


async def receipts_sent(ctx: Context, numbers: list[str]) -> dict[str, dict[str, str]]:
    """For each bill (by document number) whose payment was told with a receipt: when and the
    ticket's number, from the ISP's payment tickets (JSON values); nothing when the ISP cannot say now.
    Shown in every list and card until the ISP shows the bill paid (it then leaves the open bills)."""
    wanted = [n for n in (str(n or "").strip() for n in numbers) if n]
    if not wanted:
        return {}
    try:
        tickets = await ctx.coordinator.tickets(ctx.customer)
    except IspError:
        return {}
    found: dict[str, dict[str, str]] = {}
    for ticket in tickets:  # newest first: the first found per bill is its latest notice
        if not ticket.Assunto or not _NOTICE.search(ticket.Assunto) or ticket.Abertura_DataHora is None:
            continue
        for number in wanted:
            if number not in found and re.search(rf"(?<!\d){re.escape(number)}(?!\d)", ticket.Assunto):
                found[number] = {"at": ticket.Abertura_DataHora.isoformat(),
                                 "ticket": str(ticket.Numero or "")}
    return found


def _display(bill: dict[str, Any]) -> dict[str, Any]:
    """The bill as its card in the bills flow shows it: the original amount, and the amount due today
    (``value_up``) beside it where the ISP says it and it differs."""
    due = bill.get("due")
    value = Decimal(bill["value"])
    now = Decimal(bill["value_up"]) if bill.get("value_up") else None
    return {"value": value, "due": date.fromisoformat(due) if due else None,
            "value_up": now if now is not None and now != value else None}
