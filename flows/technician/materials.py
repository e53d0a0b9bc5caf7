"""Materials used or lent on the ticket in hand: a stock product consumed (consumption) or lent to the
customer (lending) with ``ticket_item_insert``.

Choices where the spec is silent or short:

- Which product. The web service lists product models (``ConsultaModelosProduto``), types and units,
  but no operation lists the products themselves with the code ``ticket_item_insert`` wants, whether
  they are serial-controlled, or the stock locations. So the technician types the product's code
  (as on its label and in the ISP system) and the stock location's code; a word instead of a code
  lists the product models that match (searched with ``F``, never raw text in a ``Filtro``) to help
  tell models apart.
- Serial numbers. Serial-controlled items need one and move one at a time: the bot asks for the
  serial first; with one the quantity is 1 (the spec's rule) and no location is sent; "no serial"
  asks the quantity (> 0, at most two decimals, within Decimal(15.2): checked before sending) and the
  location. When the ISP refuses (a serial item sent without serial, no stock, an unknown code) its
  reason is shown and the serial is asked again.
- Lending needs the contract: the customer's only one, or the one the technician picks.
- A timed-out insert (outcome unknown) cannot be checked: no operation reads a ticket's items back.
  The bot never sends it again: it says so and asks the technician to look in the ISP system first.
  Any other failure to reach the ISP is the engine's: the confirmation is asked again (one tap).
"""

from __future__ import annotations

from decimal import Decimal

from bot.isp import IspApiError, IspTransportError
from bot.isp.models import v2_requests as q

from flows.context import Context
from flows.events import Text
from flows.flow import Chosen, Flow, Option, StepEvent, Unexpected
from flows.technician.tickets import back_to_ticket, in_hand_or_refuse
from flows.technician.work import add_item, parse_code, parse_quantity, search_models

MAX_SERIAL = 60
MAX_MODELS = 8


class Materials(Flow):
    name = "materials"

    async def begin(self, ctx: Context) -> None:
        ticket = await in_hand_or_refuse(ctx)
        if ticket is None:
            return
        if ticket.CodigoCliente is None:
            ctx.say("technician_work.materials_no_customer")
            back_to_ticket(ctx)
            return
        ctx.data.update(ticket=ticket.Numero, customer=ticket.CodigoCliente)
        options = [Option(q.ItemOperation.CONSUMPTION.value, key="technician_work.materials_consumption"),
                   Option(q.ItemOperation.LENDING.value, key="technician_work.materials_lending"),
                   Option("back", key="technician_work.button_back")]
        ctx.ask("operation", "technician_work.materials_operation", options, number=ticket.Numero)

    async def operation(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case Chosen(value=q.ItemOperation.CONSUMPTION.value):
                ctx.data["operation"] = q.ItemOperation.CONSUMPTION.value
                self._ask_item(ctx)
            case Chosen(value=q.ItemOperation.LENDING.value):
                ctx.data["operation"] = q.ItemOperation.LENDING.value
                contracts = [c.Numero for c in await ctx.isp.contracts(int(ctx.data["customer"])) if c.Numero]
                if not contracts:
                    raise Unexpected("technician_work.materials_no_contract")
                if len(contracts) == 1:
                    ctx.data["contract"] = contracts[0]
                    self._ask_item(ctx)
                    return
                options = [Option(c, text=f"#{c}") for c in contracts]
                ctx.ask("contract", "technician_work.materials_contract", options, columns=2)
            case _:
                raise Unexpected("technician.pick_a_button")

    async def contract(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=int(contract)):
                ctx.data["contract"] = contract
                self._ask_item(ctx)
            case _:
                raise Unexpected("technician.pick_a_button")

    async def item(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case Text(text=text) if (code := parse_code(text)) is not None:
                ctx.data["item"] = code
                self._ask_serial(ctx)
            case Text(text=text) if text.strip():
                models = await search_models(ctx, text.strip()[:60])
                if not models:
                    raise Unexpected("technician_work.materials_no_model")
                lines = [" · ".join(p for p in (m.Descricao, m.Marca, m.Tipo_Descricao) if p) for m in models]
                ctx.say("technician_work.materials_models", models=lines[:MAX_MODELS])
                self._ask_item(ctx)
            case _:
                raise Unexpected("technician_work.materials_item_hint")

    async def serial(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="none"):
                ctx.data.update(serial=None)
                ctx.ask("quantity", "technician_work.materials_quantity")
            case Text(text=text) if text.strip() and len(text.strip()) <= MAX_SERIAL:
                ctx.data.update(serial=text.strip(), quantity="1", location=None)
                self._ask_confirm(ctx)
            case _:
                raise Unexpected("technician_work.materials_serial_hint")

    async def quantity(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Text(text=text) if (amount := parse_quantity(text)) is not None:
                ctx.data["quantity"] = str(amount)
                ctx.ask("location", "technician_work.materials_location")
            case _:
                raise Unexpected("technician_work.materials_quantity_invalid")

    async def location(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Text(text=text) if (code := parse_code(text)) is not None:
                ctx.data["location"] = code
                self._ask_confirm(ctx)
            case _:
                raise Unexpected("technician_work.materials_location_hint")

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="send"):
                await self._send(ctx)
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case _:
                raise Unexpected("technician.pick_a_button")

    async def _send(self, ctx: Context) -> None:
        ticket = await in_hand_or_refuse(ctx)
        if ticket is None:
            return
        data = ctx.data
        try:
            await add_item(
                ctx, ticket=int(ticket.Numero or 0), customer=int(data["customer"]),
                operation=q.ItemOperation(data["operation"]), item=int(data["item"]), contract=data.get("contract"),
                serial=data.get("serial"), location=data.get("location"), quantity=Decimal(data["quantity"]),
            )
        except IspApiError as exc:
            ctx.say("technician_work.materials_refused", reason=exc.description or "")
            self._ask_serial(ctx)
            return
        except IspTransportError as exc:
            if not exc.outcome_unknown:
                raise
            ctx.say("technician_work.materials_unsure", number=ticket.Numero)
            back_to_ticket(ctx)
            return
        ctx.say("technician_work.materials_recorded", **self._summary(ctx))
        back_to_ticket(ctx)

    def _ask_item(self, ctx: Context) -> None:
        ctx.ask("item", "technician_work.materials_item", [Option("back", key="technician_work.button_back")])

    def _ask_serial(self, ctx: Context) -> None:
        ctx.ask("serial", "technician_work.materials_serial",
                [Option("none", key="technician_work.materials_no_serial")], item=ctx.data["item"])

    def _ask_confirm(self, ctx: Context) -> None:
        options = [Option("send", key="technician_work.button_record"),
                   Option("back", key="technician_work.button_cancel")]
        ctx.ask("confirm", "technician_work.materials_confirm", options, columns=2, **self._summary(ctx))

    def _summary(self, ctx: Context) -> dict[str, object]:
        data = ctx.data
        return {
            "operation": data["operation"], "item": data["item"], "serial": data.get("serial") or "",
            "quantity": data["quantity"], "location": data.get("location") or "",
            "contract": data.get("contract") or "",
        }
