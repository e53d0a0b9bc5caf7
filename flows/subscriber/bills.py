"""Bills: the customer's open documents, and for the one they pick every way to pay it: the
digitable line, PIX copy-and-paste, the PIX QR code, the bill as a PDF, and "I have paid".

- At most ``MAX_SHOWN`` documents (six buttons fit a phone), newest due date first; the rest counted.
- The line is sent as digits only inside ``<code>``: Telegram copies it with one tap, and bank apps
  take the 47 digits bare. An overdue document (due before today in the ISP's zone) is also offered
  the line with the updated due date (``BoletoAtualizado = S``).
- The amount due today (``value_up``) is shown next to the original when they differ; when that
  read fails the list is still shown, with the original amounts.
- The button keeps what the queries need, so choosing costs one ISP call; a bill the ISP no longer
  finds (paid in between) is told, with the fresh list.
- The PIX code is shown only when it is a well-formed BR Code with a right CRC. The QR image is the
  ISP's, else drawn here from the checked code. The PDF is fetched each time, never kept (its link
  lives minutes).
"""

from __future__ import annotations

import asyncio
import io
from datetime import date
from decimal import Decimal
from typing import Any

import segno
from bot.isp import IspApiError
from bot.isp.models import v1_records
from bot.isp.pix import parse_br_code

from flows.context import Context
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected

MAX_SHOWN = 6
PIX, QR, PDF, PAID = "pix", "qr", "pdf", "paid"
UPDATED, OTHERS, MENU = "updated", "others", "menu"


class Bills(Flow):
    name = "bills"
    commands = ("boleto", "segundavia", "bills", "factura", "pix")
    steps = Steps(
        begin=("choose", TO_MENU),
        choose=("act", TO_MENU),
        act=("choose", Switch("paid"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        documents = await ctx.coordinator.open_documents(ctx.customer)
        if not documents:
            ctx.say("bills.none_open")
            ctx.to_menu()
            return
        today = ctx.coordinator.now().date()
        due_today = await _due_today(ctx)
        newest = sorted(documents, key=lambda d: d.Vencimento or date.min, reverse=True)[:MAX_SHOWN]
        shown = [_summary(d, today, due_today) for d in newest]
        options = [Option(item, key="bills.button", vars=_display(item)) for item in shown]
        ctx.ask("choose", "bills.choose", options, documents=[_display(i) for i in shown],
                hidden=len(documents) - len(shown))

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Chosen):
            raise Unexpected("bills.pick_a_button")
        item: dict[str, Any] = event.value
        line = await self._line(ctx, item, updated=False)
        if line is None:
            return
        ctx.say("bills.line", line=line, **_display(item))
        ctx.data["document"] = item
        self._offer(ctx, item)

    async def act(self, ctx: Context, event: StepEvent) -> None:
        item: dict[str, Any] = ctx.data["document"]
        actions = {PIX: self._pix, QR: self._qr, PDF: self._pdf, UPDATED: self._updated}
        match event:
            case Chosen(value="paid"):
                ctx.switch("paid", **({"document": item} if item.get("id") else {}))  # no code: pick it there
            case Chosen(value="others"):
                await self.begin(ctx)
            case Chosen(value="menu"):
                ctx.to_menu()
            case Chosen(value=str(action)) if action in actions:
                if await actions[action](ctx, item):
                    self._offer(ctx, item)
            case _:
                raise Unexpected("bills.pick_a_button")

    async def _pix(self, ctx: Context, item: dict[str, Any]) -> bool:
        code = parse_br_code(await ctx.coordinator.pix_code(item["id"])) if item.get("id") else None
        if code is None:
            ctx.say("bills.no_pix")
        else:
            ctx.say("bills.pix", code=code.code, amount=code.amount, **_display(item))
        return True

    async def _qr(self, ctx: Context, item: dict[str, Any]) -> bool:
        image = await _qr_image(ctx, item)
        if image is None:
            ctx.say("bills.no_pix")
        else:
            ctx.upload("photo", image, "pix.png", "bills.qr_caption", **_display(item))
        return True

    async def _updated(self, ctx: Context, item: dict[str, Any]) -> bool:
        line = await self._line(ctx, item, updated=True)
        if line is not None:
            ctx.say("bills.updated_line", line=line, today=ctx.coordinator.now().date(), **_display(item))
        return line is not None

    def _offer(self, ctx: Context, item: dict[str, Any]) -> None:
        shown = _display(item)
        options = [Option(PIX, key="bills.button_pix"), Option(QR, key="bills.button_qr"),
                   Option(PDF, key="bills.button_pdf"), Option(PAID, key="bills.button_paid")]
        if shown["overdue"]:
            options.append(Option(UPDATED, key="bills.button_updated"))
        options += [Option(OTHERS, key="bills.button_others"), Option(MENU, key="bills.button_menu")]
        ctx.ask("act", "bills.offer_updated" if shown["overdue"] else "bills.offer", options, columns=2, **shown)

    async def _pdf(self, ctx: Context, item: dict[str, Any]) -> bool:
        """Send the bill's PDF; False after telling the person the document is gone."""
        billet = await ctx.coordinator.bill_pdf(item["id"]) if item.get("id") else None
        shown = _display(item)
        if billet is None and item.get("id"):  # no longer open
            ctx.coordinator.forget(ctx.customer)
            ctx.say("bills.gone", **shown)
            await self.begin(ctx)
            return False
        name = f"boleto-{shown['due'].isoformat() if shown['due'] else item['id']}.pdf"
        if billet is not None and billet.pdf is not None:
            ctx.upload("document", billet.pdf, name, "bills.pdf_caption", **shown)
        elif billet is not None and billet.link is not None:  # Telegram fetches it now; nothing keeps it
            ctx.document(billet.link, "bills.pdf_caption", **shown)
        else:
            ctx.say("bills.no_pdf")
        return True

    async def _line(self, ctx: Context, item: dict[str, Any], *, updated: bool) -> str | None:
        """The line, or None after telling the person the document is gone and listing the rest."""
        document = v1_records.OpenDocument(Documento=item["document"], Conta=item["account"])
        line = await ctx.coordinator.digitable_line(ctx.customer, document, updated=updated)
        if line is None:
            ctx.coordinator.forget(ctx.customer)  # the cached list still holds the paid document
            ctx.say("bills.gone", **_display(item))
            await self.begin(ctx)
        return line


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


def _summary(document: v1_records.OpenDocument, today: date, due_today: dict[int, Decimal]) -> dict[str, Any]:
    """What a button keeps in the chat's state (JSON values only)."""
    due = document.Vencimento
    now = due_today.get(document.Sequencia or 0)
    return {
        "document": document.Documento, "account": document.Conta, "id": document.Sequencia,
        "due": due.isoformat() if due else None, "value": str(document.Valor or 0),
        "value_up": str(now) if now is not None else None, "overdue": bool(due and due < today),
    }


def _display(item: dict[str, Any]) -> dict[str, Any]:
    due = item.get("due")
    value = Decimal(item["value"])
    now = Decimal(item["value_up"]) if item.get("value_up") else None
    return {"value": value, "due": date.fromisoformat(due) if due else None,
            "overdue": bool(item.get("overdue")), "value_up": now if now is not None and now != value else None}
