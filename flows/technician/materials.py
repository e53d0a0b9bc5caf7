"""Materials used or lent on the ticket in hand: a stock product consumed (consumption) or lent to the
customer (lending) with ``ticket_item_insert``.

- Which product. The web service lists product models, not products or stock locations, and the
  insert wants the product's internal id: with the operator's catalog (``flows.stock``) the
  technician types the code on the label (or part of the name: matches come as buttons), resolved
  at once; without one, the internal id, and a word lists the ISP's matching models to help.
- A serial-controlled item moves one at a time (quantity 1, no location); other products take a
  quantity (checked against Decimal(15.2) before sending) and a stock location. Without a catalog
  the bot asks for the serial first, with a "no serial" button. An ISP refusal (no stock, a serial
  not available) is shown and the answer it is about asked again.
- Lending needs the contract: the customer's only one, or the one the technician picks.
- Written with ``ctx.write_once`` without a read-back (no operation reads a ticket's items): an
  unknown outcome is never sent again; the technician is asked to look in the ISP system first.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from bot.isp import IspApiError
from bot.isp.models import v2_requests

from flows.context import Context
from flows.events import Text
from flows.flow import COUNT, TO_MENU, WORDS, Answer, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.technician.tickets import back_to_ticket, in_hand_or_refuse
from flows.technician.work import MAX_QUANTITY, parse_code, parse_quantity

MAX_SERIAL = 60
MAX_MODELS = 8


class Materials(Flow):
    name = "materials"
    steps = Steps(
        begin=("operation", Switch("ticket"), TO_MENU),
        operation=("contract", "item", Switch("ticket")),
        contract=("item",),
        item=(WORDS, "serial", "quantity", Switch("ticket")),
        serial=(WORDS, "quantity", "confirm"),
        quantity=(COUNT, "location"),
        location=("confirm",),
        confirm=("quantity", "serial", Switch("ticket"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        ticket = await in_hand_or_refuse(ctx)
        if ticket is None:
            return
        if ticket.CodigoCliente is None:
            ctx.reply.say("technician_work.materials_no_customer")
            back_to_ticket(ctx)
            return
        ctx.data.update(ticket=ticket.Numero, customer=ticket.CodigoCliente)
        options = [Option(v2_requests.ItemOperation.CONSUMPTION.value, key="technician_work.materials_consumption"),
                   Option(v2_requests.ItemOperation.LENDING.value, key="technician_work.materials_lending"),
                   Option("back", key="technician_work.button_back")]
        ctx.reply.ask("operation", "technician_work.materials_operation", options, number=ticket.Numero)

    async def operation(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case Chosen(value=v2_requests.ItemOperation.CONSUMPTION.value):
                ctx.data["operation"] = v2_requests.ItemOperation.CONSUMPTION.value
                self._ask_item(ctx)
            case Chosen(value=v2_requests.ItemOperation.LENDING.value):
                ctx.data["operation"] = v2_requests.ItemOperation.LENDING.value
                contracts = [c.Numero for c in await ctx.coordinator.contracts(int(ctx.data["customer"])) if c.Numero]
                if not contracts:
                    raise Unexpected("technician_work.materials_no_contract")
                if len(contracts) == 1:
                    ctx.data["contract"] = contracts[0]
                    self._ask_item(ctx)
                    return
                options = [Option(c, text=f"#{c}") for c in contracts]
                ctx.reply.ask("contract", "technician_work.materials_contract", options, columns=2)
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
            case Chosen(value=int(picked)):
                self._pick(ctx, picked)
            case Text(text=text) if (code := parse_code(text)) is not None:
                self._pick(ctx, code)
            case Text(text=text) if text.strip():
                await self._search(ctx, text.strip()[:60])
            case _:
                raise Unexpected("technician_work.materials_item_hint")

    async def serial(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="none") if ctx.data.get("serial_known") is None:
                ctx.data.update(serial=None)
                ctx.reply.ask("quantity", "technician_work.materials_quantity")
            case Text(text=text) if text.strip() and len(text.strip()) <= MAX_SERIAL:
                ctx.data.update(serial=text.strip(), quantity="1", location=None)
                self._ask_confirm(ctx)
            case _:
                raise Unexpected("technician_work.materials_serial_hint", optional=ctx.data.get("serial_known") is None)

    async def quantity(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Answer(value=int(count)) if 0 < count <= MAX_QUANTITY:  # "duas", "meia dúzia"
                ctx.data["quantity"] = str(count)
                self._ask_location(ctx)
            case Text(text=text) | Answer(text=text) if (amount := parse_quantity(text)) is not None:
                ctx.data["quantity"] = str(amount)
                self._ask_location(ctx)
            case _:
                raise Unexpected("technician_work.materials_quantity_invalid")

    async def location(self, ctx: Context, event: StepEvent) -> None:
        stock = ctx.policy.stock
        match event:
            case Chosen(value=int(picked)):
                self._located(ctx, picked)
            case Text(text=text) if (code := parse_code(text)) is not None and \
                    (not stock.locations or stock.location(code) is not None):
                self._located(ctx, code)
            case _ if stock.locations:
                raise Unexpected("technician_work.materials_location_pick_hint")
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

        def unsure(key: str) -> None:  # no operation reads a ticket's items back: never sent again
            ctx.reply.say(key, number=ticket.Numero)
            back_to_ticket(ctx)

        write = ctx.write_once("item", ask=unsure, unsure="technician_work.materials_unsure")
        try:
            sent = await write.send(lambda: ctx.coordinator.add_ticket_item(
                ticket=int(ticket.Numero or 0),
                customer=int(data["customer"]),
                operation=v2_requests.ItemOperation(data["operation"]),
                item=int(data["item"]),
                contract=data.get("contract"),
                serial=data.get("serial"),
                location=data.get("location"),
                quantity=Decimal(data["quantity"]),
            ))
        except IspApiError as exc:
            stock = data.get("serial_known") is False  # no stock there, most likely: the amount or another place
            ctx.reply.say("technician_work.materials_refused", reason=exc.description or "", stock=stock)
            if stock:
                ctx.reply.ask("quantity", "technician_work.materials_quantity")
            else:
                self._ask_serial(ctx)
            return
        if sent is not None:
            ctx.reply.say("technician_work.materials_recorded", **self._summary(ctx))
            back_to_ticket(ctx)

    # ---- internals -----------------------------------------------------------------------------
    def _pick(self, ctx: Context, code: int) -> None:
        """The product whose label shows ``code`` (with a catalog), else ``code`` as the internal id."""
        stock = ctx.policy.stock
        if not stock.products:
            ctx.data.update(item=code, code=code, item_name="", serial_known=None)
            self._ask_serial(ctx)
            return
        product = stock.product(code)
        if product is None:
            raise Unexpected("technician_work.materials_unknown_code", code=code)
        ctx.data.update(item=product.id, code=product.code, item_name=product.name, serial_known=product.serial)
        if product.serial:
            self._ask_serial(ctx)
        else:
            ctx.data.update(serial=None)
            ctx.reply.ask("quantity", "technician_work.materials_quantity", **self._product(ctx))

    async def _search(self, ctx: Context, words: str) -> None:
        """Products of the catalog whose name has the words, as buttons with their codes; without a
        match there, the ISP's product models (names only) to help tell them apart."""
        found = ctx.policy.stock.search(words)
        if found:
            options = [Option(p.code, text=f"{p.code} · {p.name}"[:60]) for p in found[:MAX_MODELS]]
            options.append(Option("back", key="technician_work.button_back"))
            ctx.reply.ask("item", "technician_work.materials_products", options, more=len(found) - MAX_MODELS)
            return
        models = await ctx.coordinator.product_models(words)
        if not models:
            raise Unexpected("technician_work.materials_no_model")
        lines = [" · ".join(p for p in (m.Descricao, m.Marca, m.Tipo_Descricao) if p) for m in models]
        ctx.reply.say("technician_work.materials_models", models=lines[:MAX_MODELS])
        self._ask_item(ctx)

    def _located(self, ctx: Context, code: int) -> None:
        place = ctx.policy.stock.location(code)
        ctx.data.update(location=code, location_name=place.name if place else "")
        self._ask_confirm(ctx)

    def _ask_item(self, ctx: Context) -> None:
        ctx.reply.ask("item", "technician_work.materials_item", [Option("back", key="technician_work.button_back")])

    def _ask_serial(self, ctx: Context) -> None:
        optional = ctx.data.get("serial_known") is None  # no catalog: the technician knows whether it has one
        options = [Option("none", key="technician_work.materials_no_serial")] if optional else []
        ctx.reply.ask("serial", "technician_work.materials_serial", options, optional=optional, **self._product(ctx))

    def _ask_location(self, ctx: Context) -> None:
        places = ctx.policy.stock.locations
        if not places:
            ctx.reply.ask("location", "technician_work.materials_location")
            return
        options = [Option(x.id, text=x.name[:60]) for x in places]
        ctx.reply.ask("location", "technician_work.materials_location_pick", options, columns=2)

    def _ask_confirm(self, ctx: Context) -> None:
        options = [Option("send", key="technician_work.button_record"),
                   Option("back", key="technician_work.button_cancel")]
        ctx.reply.ask("confirm", "technician_work.materials_confirm", options, columns=2, **self._summary(ctx))

    def _product(self, ctx: Context) -> dict[str, Any]:
        return {"code": ctx.data["code"], "name": ctx.data.get("item_name") or ""}

    def _summary(self, ctx: Context) -> dict[str, Any]:
        data = ctx.data
        return {
            **self._product(ctx), "operation": data["operation"], "serial": data.get("serial") or "",
            "quantity": Decimal(data["quantity"]), "location": data.get("location_name") or data.get("location") or "",
            "contract": data.get("contract") or "",
        }
