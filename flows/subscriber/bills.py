"""Bills: the customer's open documents and the digitable line of the one they pick.

Choices where the spec is silent:
- At most ``MAX_SHOWN`` (6) documents are offered, newest due date first: six buttons still fit a
  phone screen; when there are more, the person is told how many were left out and pointed to a person.
- The line is sent as digits only inside ``<code>`` (Telegram copies it with one tap; every bank app
  accepts the 47 digits without dots or spaces).
- A document is overdue when its due date is before today in the ISP's time zone. Its line is sent with
  the original due date and the line with the updated due date (``BoletoAtualizado = S``) is offered.
- The button keeps what the line query needs (document, account, due date, value), so choosing a
  document costs one ISP call, not two. When the ISP no longer finds it (paid in between), the person
  is told so and gets the fresh list.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from bot.isp.models import v1_records as r

from flows.context import Context
from flows.flow import Chosen, Flow, Option, StepEvent, Unexpected

MAX_SHOWN = 6
UPDATED, OTHERS, MENU = "updated", "others", "menu"


class Bills(Flow):
    name = "bills"
    commands = ("boleto", "segundavia", "bills", "factura")
    menu_order = 10

    async def begin(self, ctx: Context) -> None:
        documents = await ctx.isp.open_documents(ctx.customer)
        if not documents:
            ctx.say("bills.none_open")
            ctx.to_menu()
            return
        today = ctx.isp.now().date()
        newest = sorted(documents, key=lambda d: d.Vencimento or date.min, reverse=True)[:MAX_SHOWN]
        shown = [_summary(d, today) for d in newest]
        options = [Option(item, key="bills.button", vars=_display(item)) for item in shown]
        ctx.ask("choose", "bills.choose", options, documents=[_display(i) for i in shown],
                hidden=len(documents) - len(shown))

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Chosen):
            raise Unexpected("bills.pick_a_button")
        item: dict[str, Any] = event.value
        overdue = _display(item)["overdue"]
        line = await self._line(ctx, item, updated=False)
        if line is None:
            return
        ctx.say("bills.line", line=line, **_display(item))
        if not overdue:
            ctx.to_menu()
            return
        ctx.data["document"] = item
        options = [Option(UPDATED, key="bills.button_updated"), Option(OTHERS, key="bills.button_others"),
                   Option(MENU, key="bills.button_menu")]
        ctx.ask("after_overdue", "bills.offer_updated", options, **_display(item))

    async def after_overdue(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="updated"):
                item = ctx.data["document"]
                line = await self._line(ctx, item, updated=True)
                if line is not None:
                    ctx.say("bills.updated_line", line=line, today=ctx.isp.now().date(), **_display(item))
                    ctx.to_menu()
            case Chosen(value="others"):
                await self.begin(ctx)
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("bills.pick_a_button")

    async def _line(self, ctx: Context, item: dict[str, Any], *, updated: bool) -> str | None:
        """The line, or None after telling the person the document is gone and listing the rest."""
        document = r.OpenDocument(Documento=item["document"], Conta=item["account"])
        line = await ctx.isp.digitable_line(ctx.customer, document, updated=updated)
        if line is None:
            ctx.isp.forget(ctx.customer)  # the cached list still holds the paid document
            ctx.say("bills.gone", **_display(item))
            await self.begin(ctx)
        return line


def _summary(document: r.OpenDocument, today: date) -> dict[str, Any]:
    """What a button keeps in the chat's state (JSON values only)."""
    due = document.Vencimento
    return {
        "document": document.Documento, "account": document.Conta,
        "due": due.isoformat() if due else None, "value": str(document.Valor or 0),
        "overdue": bool(due and due < today),
    }


def _display(item: dict[str, Any]) -> dict[str, Any]:
    due = item.get("due")
    return {"value": Decimal(item["value"]), "due": date.fromisoformat(due) if due else None,
            "overdue": bool(item.get("overdue"))}
