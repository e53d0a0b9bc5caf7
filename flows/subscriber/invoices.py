"""Fiscal invoices (companies ask for them): the recent ones, and the PDF of the one picked.

Choices where the spec is silent:
- "Recent" is issued in the last ``DAYS`` (180) days, model 21 (communication services), newest first,
  at most ``MAX_SHOWN`` (6) buttons.
- The PDF is a temporary link (``invoices_issued_pdf``), asked for when the invoice is picked and sent
  as a document at once, never kept. Each item carries its own error: one that is not available
  (cancelled, not yet issued) is said plainly, whatever the envelope's status.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from flows.context import Context
from flows.flow import TO_MENU, Chosen, Flow, Option, StepEvent, Steps, Unexpected

DAYS = 180
MAX_SHOWN = 6


class Invoices(Flow):
    name = "invoices"
    commands = ("notas", "notafiscal", "invoices", "facturas")
    steps = Steps(begin=("choose", TO_MENU), choose=(TO_MENU,))

    async def begin(self, ctx: Context) -> None:
        since = ctx.coordinator.now().date() - timedelta(days=DAYS)
        invoices = sorted((i for i in await ctx.coordinator.invoices(ctx.customer, since) if i.id is not None),
                          key=lambda i: (i.issue or date.min, i.id or 0), reverse=True)
        if not invoices:
            ctx.reply.say("invoices.none", days=DAYS)
            ctx.to_menu()
            return
        shown = [{"id": i.id, "number": i.number or str(i.id), "issue": i.issue.isoformat() if i.issue else None,
                  "value": str(i.value or 0)} for i in invoices[:MAX_SHOWN]]
        options = [Option(item, key="invoices.button", vars=_display(item)) for item in shown]
        options.append(Option("menu", key="invoices.button_menu"))
        ctx.reply.ask("choose", "invoices.choose", options, invoices=[_display(i) for i in shown])

    async def choose(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="menu"):
                ctx.to_menu()
                return
            case Chosen(value=dict(item)):
                pass
            case _:
                raise Unexpected("invoices.pick_a_button")
        pdf = await ctx.coordinator.invoice_pdf(int(item["id"]))
        if pdf is not None and pdf.ok and pdf.url:
            ctx.reply.document(pdf.url, "invoices.pdf_caption", **_display(item))
        else:
            ctx.reply.say("invoices.not_available", **_display(item))
        await self.begin(ctx)


def _display(item: dict[str, Any]) -> dict[str, Any]:
    issue = item.get("issue")
    return {"number": item["number"], "issue": date.fromisoformat(issue) if issue else None,
            "value": Decimal(item["value"])}
