"""Bills: the customer's open documents, and for the one they pick every way to pay it: the
digitable line, PIX copy-and-paste, the PIX QR code, the bill as a PDF, and "I have paid".

- A contract not active is said first, in one line (``standing.say_standing``). At most
  ``MAX_SHOWN`` documents, oldest due first, the rest counted; a bill contested in the chat or with
  a receipt sent says so (``contest.marks``, ``paid.receipts_sent``) in the list and its card.
- The line is sent as digits only inside ``<code>`` (one tap copies it). An overdue document is also
  offered the line with the updated due date (``BoletoAtualizado = S``), asked once per card.
- One amount: the amount due today (``value_up``) is shown beside the original and is what the PIX
  code and the updated line carry, each saying it, with a plain note where that is less (``_later``).
- At the card a typed button name or "I have paid" works (``_typed``); a photo or PDF at the list
  or the card is the receipt of the bill in view. A way to pay named at the list ("pix") is done
  once the bill is known. A bill paid in between is told, with the list.
- The PIX code is shown only as a well-formed BR Code with a right CRC; the QR is the ISP's, else
  drawn from the checked code. The PDF is fetched each time, never kept (its link lives minutes).
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import segno
from bot.isp import IspApiError
from bot.isp.models import v1_records
from bot.isp.pix import parse_br_code
from markupsafe import Markup

from flows.chat import CHOICES
from flows.context import Context
from flows.events import Media, Text, Told
from flows.flow import (
    ASKED_BY_NOTICE,
    FILES,
    TO_MENU,
    Chosen,
    Flow,
    Option,
    StepEvent,
    Steps,
    Switch,
    Takes,
    Unexpected,
)
from flows.intents import default_intents
from flows.subscriber.contest import marks
from flows.subscriber.paid import kept, receipt_of, receipts_sent
from flows.subscriber.standing import say_standing
from flows.words import plain_words

# "Já paguei" (in any words) at a bill is about that bill: the step takes it, with the bill in view.
KEEPS_PAID = Takes("i have paid", but=frozenset({"paid"}))

MAX_SHOWN = 6
PIX, QR, PDF, PAID = "pix", "qr", "pdf", "paid"
UPDATED, OTHERS, MENU, CONTEST = "updated", "others", "menu", "contest"


class Bills(Flow):
    name = "bills"
    commands = ("boleto", "segundavia", "bills", "factura", "pix")
    steps = Steps(
        begin=("choose", TO_MENU),
        choose=(FILES, KEEPS_PAID, "act", Switch("paid"), TO_MENU),
        act=(FILES, KEEPS_PAID, "choose", Switch("paid"), Switch("contest"), TO_MENU),
        reminded=("act",),  # a bill's reminder or overdue notice, brought by ``flows.notices`` (``Told``)
    )

    async def begin(self, ctx: Context) -> None:
        if not ctx.data.get("standing_said"):  # once: not again when the list is shown anew
            ctx.data["standing_said"] = True
            await say_standing(ctx)
        documents = await ctx.coordinator.open_documents(ctx.customer)
        if not documents:
            ctx.reply.say("bills.none_open")
            ctx.to_menu()
            return
        today = ctx.coordinator.now().date()
        due_today = await _due_today(ctx)
        oldest = sorted(documents, key=lambda d: (d.Vencimento or date.max, d.Sequencia or 0))[:MAX_SHOWN]
        contested = await marks(ctx, [d.Documento for d in oldest])
        shown = [_summary(d, today, due_today, contested.get(d.Documento or 0)) for d in oldest]
        sent = await receipts_sent(ctx, [item["document"] for item in shown])
        for item in shown:
            if (receipt := sent.get(str(item["document"] or "").strip())) is not None:
                item["receipt"] = receipt
        options = [Option(item, key="bills.button", vars=_display(item)) for item in shown]
        wanted = ctx.data.get("wanted")
        if wanted and len(shown) == 1:  # "pix" with one bill open: no question to ask
            await self._chosen(ctx, shown[0])
            return
        total = sum((Decimal(i["value_up"] or i["value"]) for i in shown), Decimal(0))
        ctx.reply.ask("choose", "bills.choose", options, documents=[_display(i) for i in shown], total=total,
                      hidden=len(documents) - len(shown), wanted=ctx.text(f"bills.button_{wanted}") if wanted else None)

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        if isinstance(event, Media) and (file := receipt_of(event)) is not None:  # which bill: asked there
            ctx.switch("paid", receipt=kept(file))
            return
        if isinstance(event, Text) and default_intents().plainly(ctx.language, event.text) == "paid":
            ctx.switch("paid")  # "já paguei" at the list: which bill is asked there
            return
        if isinstance(event, Text) and (wanted := _way_named(ctx, event.text)):
            ctx.data["wanted"] = wanted  # done once the bill is known
            await self.begin(ctx)
            return
        if not isinstance(event, Chosen):
            raise Unexpected("bills.pick_a_button")
        await self._chosen(ctx, event.value)

    async def _chosen(self, ctx: Context, item: dict[str, Any]) -> None:
        """The bill's card: its line, or the way to pay already asked for, then what else it offers."""
        wanted = ctx.data.pop("wanted", None)
        ctx.data.update(document=item, update_asked=False, updated_sent=False)
        if wanted in self._ways():
            if await self._ways()[wanted](ctx, item):
                self._offer(ctx, item)
            return
        line = await self._line(ctx, item, updated=False)
        if line is None:
            return
        ctx.reply.say("bills.line", line=line, **_display(item))
        self._offer(ctx, item)

    def _ways(self) -> dict[str, Callable[[Context, dict[str, Any]], Awaitable[bool]]]:
        return {PIX: self._pix, QR: self._qr, PDF: self._pdf, UPDATED: self._updated}

    async def act(self, ctx: Context, event: StepEvent) -> None:
        item: dict[str, Any] = ctx.data["document"]
        actions = self._ways()
        if isinstance(event, Text):
            event = _typed(ctx, event.text)
        match event:
            case Media() if (file := receipt_of(event)) is not None:  # the receipt of the bill in view
                ctx.switch("paid", receipt=kept(file), **_paid_bill(item))
            case Chosen(value="paid"):
                ctx.switch("paid", **_paid_bill(item))
            case Chosen(value="contest"):
                ctx.switch("contest", document={"number": item["document"], "due": item["due"], "value": item["value"]})
            case Chosen(value="others"):
                await self.begin(ctx)
            case Chosen(value="menu"):
                ctx.to_menu()
            case Chosen(value=str(action)) if action in actions:
                if await actions[action](ctx, item):
                    self._offer(ctx, item)
            case _:
                raise Unexpected("bills.card_hint")

    async def reminded(self, ctx: Context, event: StepEvent) -> None:
        """A bill's reminder (due soon) or overdue notice: the amount, the due date, the PIX code and
        the bill one tap away, and for an overdue bill of a blocked contract what unblocks it."""
        if not isinstance(event, Told):
            raise Unexpected("bills.card_hint")
        item: dict[str, Any] = event.data["document"]
        ctx.data.update(document=item, update_asked=True, updated_sent=False, **{ASKED_BY_NOTICE: True})
        options = [Option(PIX, key="bills.button_pix"), Option(PDF, key="bills.button_pdf"),
                   Option(PAID, key="bills.button_paid"), Option(MENU, key="bills.button_menu")]
        key = "bills.notice_overdue" if item.get("overdue") else "bills.notice_due"
        blocked = ", ".join(str(number) for number in event.data.get("blocked") or [])
        ctx.reply.ask("act", key, options, columns=2, blocked=blocked, **_display(item))

    async def _pix(self, ctx: Context, item: dict[str, Any]) -> bool:
        code = parse_br_code(await ctx.coordinator.pix_code(item["id"])) if item.get("id") else None
        if code is None:
            ctx.reply.say("bills.no_pix")
        else:
            shown = _display(item)
            ctx.reply.say("bills.pix", code=code.code, amount=code.amount, later=_later(code.amount, shown), **shown)
        return True

    async def _qr(self, ctx: Context, item: dict[str, Any]) -> bool:
        image = await _qr_image(ctx, item)
        if image is None:
            ctx.reply.say("bills.no_pix")
        else:
            ctx.reply.upload("photo", image, "pix.png", "bills.qr_caption", **_display(item))
        return True

    async def _updated(self, ctx: Context, item: dict[str, Any]) -> bool:
        line = await self._line(ctx, item, updated=True)
        if line is not None:
            shown = _display(item)
            amount = line_amount(line)
            ctx.reply.say("bills.updated_line", line=line, today=ctx.coordinator.now().date(), amount=amount,
                          later=_later(amount, shown), **shown)
            ctx.data["updated_sent"] = True
        return line is not None

    def _offer(self, ctx: Context, item: dict[str, Any]) -> None:
        shown = _display(item)
        options = [Option(PIX, key="bills.button_pix"), Option(QR, key="bills.button_qr"),
                   Option(PDF, key="bills.button_pdf"), Option(PAID, key="bills.button_paid")]
        offer_update = shown["overdue"] and not ctx.data.get("updated_sent")
        if offer_update:
            options.append(Option(UPDATED, key="bills.button_updated"))
        options += [Option(CONTEST, key="bills.button_contest"), Option(OTHERS, key="bills.button_others"),
                    Option(MENU, key="bills.button_menu")]
        ask_update = offer_update and not ctx.data.get("update_asked")  # once: not after every action
        ctx.data["update_asked"] = bool(ctx.data.get("update_asked") or ask_update)
        ctx.reply.ask("act", "bills.offer_updated" if ask_update else "bills.offer", options, columns=2, **shown)

    async def _pdf(self, ctx: Context, item: dict[str, Any]) -> bool:
        """Send the bill's PDF; False after telling the person the document is gone."""
        billet = await ctx.coordinator.bill_pdf(item["id"]) if item.get("id") else None
        shown = _display(item)
        if billet is None and item.get("id"):  # no longer open
            ctx.coordinator.forget(ctx.customer)
            ctx.reply.say("bills.gone", **shown)
            await self.begin(ctx)
            return False
        name = f"boleto-{shown['due'].isoformat() if shown['due'] else item['id']}.pdf"
        if billet is not None and billet.pdf is not None:
            ctx.reply.upload("document", billet.pdf, name, "bills.pdf_caption", **shown)
        elif billet is not None and billet.link is not None:  # Telegram fetches it now; nothing keeps it
            ctx.reply.document(billet.link, "bills.pdf_caption", **shown)
        else:
            ctx.reply.say("bills.no_pdf")
        return True

    async def _line(self, ctx: Context, item: dict[str, Any], *, updated: bool) -> str | None:
        """The line, or None after telling the person the document is gone and listing the rest."""
        document = v1_records.OpenDocument(Documento=item["document"], Conta=item["account"])
        line = await ctx.coordinator.digitable_line(ctx.customer, document, updated=updated)
        if line is None:
            ctx.coordinator.forget(ctx.customer)  # the cached list still holds the paid document
            ctx.reply.say("bills.gone", **_display(item))
            await self.begin(ctx)
        return line


def _typed(ctx: Context, text: str) -> StepEvent:
    """What a text typed at the bill's card asks for: the button it names, else "I have paid" in the
    person's words; the text itself when it names neither (the step says what it takes)."""
    found = _named(text, [(value, label) for value, label in ctx.state.data.get(CHOICES, {}).values()])
    if found is not None:
        return Chosen(found, text)
    if default_intents().plainly(ctx.language, text) == "paid":
        return Chosen(PAID, text)
    return Text(text)


def _way_named(ctx: Context, text: str) -> str | None:
    """The way to pay (the card's PIX, QR or PDF button) a text typed at the list names, if one."""
    found = _named(text, [(way, ctx.text(f"bills.button_{way}")) for way in (PIX, QR, PDF)])
    return str(found) if found is not None else None


def _named(text: str, labels: list[tuple[Any, str]]) -> Any:
    """The value whose label the text names: a label starting with the words typed, else the one
    label holding every word typed."""
    words = plain_words(text)
    if not words:
        return None
    read = [(value, plain_words(label)) for value, label in labels]
    starting = [value for value, label in read if label[: len(words)] == words]
    holding = [value for value, label in read if set(words) <= set(label)]
    found = starting[:1] or (holding if len(holding) == 1 else [])
    return found[0] if found else None


def _paid_bill(item: dict[str, Any]) -> dict[str, Any]:
    """The bill in view, as "I have paid" takes it (a document without an internal code: picked there)."""
    if not item.get("id"):
        return {}
    return {"document": {"id": item["id"], "number": item["document"], "due": item["due"], "value": item["value"],
                         "value_up": item.get("value_up")}}


def line_amount(line: str) -> Decimal | None:
    """The amount a bank slip's 47-digit line carries (its last ten digits, in cents), None when the
    line is not one or carries no amount (the payer types it)."""
    digits = "".join(ch for ch in line if ch.isdecimal())
    if len(digits) != 47 or not int(digits[-10:]):
        return None
    return Decimal(int(digits[-10:])) / 100


def _later(amount: Decimal | None, shown: dict[str, Any]) -> bool:
    """Whether a code or line carries less than the amount due today (the rest comes on a later bill)."""
    today = shown["value_up"] or shown["value"]
    return amount is not None and amount < today


async def _due_today(ctx: Context) -> dict[int, Decimal]:
    """Amount due today per internal code; empty when the ISP cannot say (the list still shows)."""
    try:
        unpaid = await ctx.coordinator.unpaid_documents(ctx.customer)
    except IspApiError:
        return {}
    return {d.id: d.value_up for d in unpaid if d.id is not None and d.value_up is not None}


async def _qr_image(ctx: Context, item: dict[str, Any]) -> bytes | None:
    if not item.get("id"):
        return None
    image = await ctx.coordinator.pix_image(item["id"])
    if image is not None:
        return image
    code = parse_br_code(await ctx.coordinator.pix_code(item["id"]))
    if code is None:
        return None
    return await asyncio.to_thread(draw_qr, code.code)


def draw_qr(text: str) -> bytes:
    """A PNG of ``text`` as a QR code (medium error correction, as bank apps print PIX codes)."""
    out = io.BytesIO()
    segno.make(text, error="m", micro=False).save(out, kind="png", scale=8, border=4)
    return out.getvalue()


def _summary(
    document: v1_records.OpenDocument, today: date, due_today: dict[int, Decimal], contested: str | None,
) -> dict[str, Any]:
    """What a button keeps in the chat's state (JSON values only); ``contested``: the bill's
    "contested on ..." mark, when it was contested in the chat."""
    due = document.Vencimento
    now = due_today.get(document.Sequencia or 0)
    return {
        "document": document.Documento, "account": document.Conta, "id": document.Sequencia,
        "due": due.isoformat() if due else None, "value": str(document.Valor or 0),
        "value_up": str(now) if now is not None else None, "overdue": bool(due and due < today),
        "contested": contested,
    }


def _display(item: dict[str, Any]) -> dict[str, Any]:
    due = item.get("due")
    value = Decimal(item["value"])
    now = Decimal(item["value_up"]) if item.get("value_up") else None
    receipt = item.get("receipt") or {}
    return {"value": value, "due": date.fromisoformat(due) if due else None,
            "overdue": bool(item.get("overdue")), "value_up": now if now is not None and now != value else None,
            "contested": Markup(item["contested"]) if item.get("contested") else None,  # noqa: S704 - our own
            "receipt_at": datetime.fromisoformat(receipt["at"]) if receipt else None,
            "receipt_ticket": receipt.get("ticket")}
