"""Paid bills and the yearly discharge statement ("declaração anual de quitação de débitos", Lei
12.007/2009).

- ``paid_bills``: the bills paid in the last twelve months (``ConsultaDocumentosBaixados`` settled
  by payment), newest first, with the way to the statement.
- ``statement``: the year asked (a button for the last two years, or typed), then a PDF the bot makes
  (``papers``) naming every bill due that year and paid, with the sentence the law asks for (art. 4).
  A year not over yet, one with a bill due in it still open (those are listed, with the bills flow),
  and one without any paid bill get no statement, each said plainly.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from bot.i18n import plain_text
from bot.isp.models import v1_records

from flows.context import Context
from flows.flow import TO_MENU, YEAR, Answer, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.subscriber.papers import paper

YEARS_BACK = 5  # the years a statement may be asked for: the ISP's records of older ones may be gone
MAX_LISTED = 12


class PaidBills(Flow):
    name = "paid_bills"
    commands = ("pagos", "paidbills", "pagados")
    steps = Steps(begin=("next", TO_MENU), next=(Switch("statement"), TO_MENU))

    async def begin(self, ctx: Context) -> None:
        today = ctx.coordinator.now().date()
        paid = await ctx.coordinator.paid_documents(ctx.customer, today - timedelta(days=365), today)
        options = [Option("statement", key="statement.button_statement"), Option("menu", key="statement.button_menu")]
        await ctx.records.record(self.name, "paid_bills_sent")
        shown = [_view(d) for d in reversed(paid)][:MAX_LISTED]
        ctx.reply.ask("next", "statement.paid_bills", options, bills=shown, hidden=max(0, len(paid) - MAX_LISTED))

    async def next(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="statement"):
                ctx.switch("statement")
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("statement.pick_a_button")


class Statement(Flow):
    name = "statement"
    commands = ("quitacao", "statement", "declaracion")
    steps = Steps(begin=("year",), year=(YEAR, "year", Switch("bills"), TO_MENU))

    async def begin(self, ctx: Context) -> None:
        last = ctx.coordinator.now().year - 1
        options = [Option(y, key="statement.year_button", vars={"year": y}) for y in (last, last - 1)]
        ctx.reply.ask("year", "statement.which_year", options, first=last - YEARS_BACK + 1, last=last)

    async def year(self, ctx: Context, event: StepEvent) -> None:
        now = ctx.coordinator.now()
        match event:
            case Chosen(value="bills"):
                ctx.switch("bills")
                return
            case Chosen(value="menu"):
                ctx.to_menu()
                return
            case Chosen(value=int(year)) | Answer(value=int(year)):
                pass
            case _:
                raise Unexpected("statement.year_hint")
        if year >= now.year:
            raise Unexpected("statement.not_over", year=year)
        if year < now.year - YEARS_BACK:
            raise Unexpected("statement.too_old", first=now.year - YEARS_BACK)
        await self._issue(ctx, year)

    async def _issue(self, ctx: Context, year: int) -> None:
        first, last = date(year, 1, 1), date(year, 12, 31)
        still_open = [d for d in await ctx.coordinator.open_documents(ctx.customer)
                      if d.Vencimento is not None and first <= d.Vencimento <= last]
        if still_open:
            options = [Option("bills", key="statement.button_bills"), Option("menu", key="statement.button_menu")]
            ctx.reply.ask("year", "statement.open_bills", options, year=year,
                          bills=[{"due": d.Vencimento, "value": d.Valor} for d in still_open])
            return
        paid = await ctx.coordinator.paid_documents(ctx.customer, first, last)
        if not paid:
            ctx.reply.say("statement.nothing", year=year)
            ctx.to_menu()
            return
        customer = await ctx.coordinator.customer(ctx.customer)
        variables: dict[str, Any] = {
            "year": year, "name": customer.Nome if customer else "", "tax_id": customer.CNPJ_CNPF if customer else "",
            "code": ctx.customer, "company": ctx.policy.company, "when": ctx.coordinator.now(),
            "bills": [_view(d) for d in paid], "total": sum((d.ValorBaixado or d.ValorOriginal or 0) for d in paid),
        }
        pdf = paper(
            plain_text(ctx.text("statement.title", **variables)),
            plain_text(ctx.text("statement.body", **variables)).split("\n"),
            issuer=ctx.policy.company, footer=plain_text(ctx.text("statement.footer", **variables)),
        )
        await ctx.records.record(self.name, "statement_sent", reference=str(year))
        ctx.reply.upload("document", pdf, f"quitacao-{year}.pdf", "statement.caption", **variables)
        ctx.to_menu()


def _view(document: v1_records.SettledDocument) -> dict[str, Any]:
    return {"number": document.Documento, "due": document.DataVencimento, "paid_on": document.DataBaixa,
            "value": document.ValorBaixado if document.ValorBaixado is not None else document.ValorOriginal}
