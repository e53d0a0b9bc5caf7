"""Stock: items in tickets, equipment lending and new products (second document, 4.1 and 4.7).

Serial-controlled products move one serial at a time (quantity exactly 1, serial_number required;
in a ticket a location_id beside it is accepted, as the vendor's own example sends one, and the
serial alone says which unit moves); other products leave a stock location (location_id required,
serial refused) and need enough balance there.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from bot.sandbox import codes
from bot.sandbox.errors import Refusal
from bot.sandbox.params import Params
from bot.sandbox.registry import Context, customer_contract, need, operation
from bot.sandbox.store import Record


def _take_stock(
    ctx: Context, p: Params, product: Record, quantity: float, *, serial_code: int, serial_location: bool = False,
) -> str | None:
    """Validate serial/location against the product kind and take the item out of stock
    (``serial_location``: a location_id beside a serial is accepted and not used)."""
    serial = p.text("serial_number")
    location = p.integer("location_id", minimum=1)
    if product["serial_controlled"]:
        if location is not None and not serial_location:
            raise p.invalid("location_id", "não enviar para item controlado por série")
        if serial is None:
            raise p.missing("serial_number")
        if quantity != 1:
            raise p.invalid("quantity", "deve ser 1 para item controlado por série")
        row = ctx.store.find("serials", product_id=product["id"], serial=serial)
        if row is None or not row["disponivel"]:
            raise Refusal(serial_code, f"Número de série {serial} sem saldo disponível")
        row["disponivel"] = False
        return serial
    if serial is not None:
        raise p.invalid("serial_number", "somente para item controlado por série")
    if location is None:
        raise p.missing("location_id")
    balance = product["saldo"].get(str(location), 0.0)
    if balance < quantity:
        raise Refusal(serial_code, "Sem saldo disponível no local de estoque")
    product["saldo"][str(location)] = round(balance - quantity, 2)
    return None


@operation("ticket_item_insert")
def ticket_item_insert(ctx: Context, p: Params) -> dict[str, int]:  # noqa: PLR0912, PLR0915 - a rule reads and checks each documented parameter in turn
    ticket_id = p.id("ticket_id")
    customer = p.id("customer_id")
    kind = p.req_choice("type", ("service", "product"))
    op = p.req_choice("operation", ("sale", "lending", "consumption"))
    contract = p.integer("contract_id", op != "consumption", minimum=1)
    item_id = p.id("item_id")
    quantity = p.decimal("quantity", True, positive=True)
    discount = p.decimal("discount_amount", positive=True)
    installments = p.integer("installments_quantity", op == "sale", minimum=1)
    details = p.entries("installments_detail", bool(installments and installments > 1))
    dealer = p.integer("dealer_id", minimum=1)
    assert quantity is not None  # noqa: S101
    if kind == "service" and op != "sale":
        raise p.invalid("operation", "itens de serviço aceitam somente sale")
    if discount is not None and op != "sale":
        raise p.invalid("discount_amount", "somente para sale")
    if installments is not None and op != "sale":
        raise p.invalid("installments_quantity", "somente para sale")
    ticket = need(ctx.store.find("tickets", Numero=ticket_id), 6, "ticket_id inválido")
    if ticket["CodigoCliente"] != customer:
        raise p.invalid("customer_id", "cliente diferente do cliente do atendimento")
    if contract is not None:
        customer_contract(ctx, customer, contract, codes.V2_INVALID_FIELD)
    item = (
        ctx.store.find("services", id=item_id)
        if kind == "service"
        else ctx.store.find("products", id=item_id)
    )
    if item is None:
        raise p.invalid("item_id", "produto ou serviço não encontrado")
    total = Decimal(str(quantity)) * Decimal(str(item["sale_price"]))
    if discount is not None:
        if Decimal(str(discount)) > total:
            raise p.invalid("discount_amount", "maior que quantidade x preço de venda")
        total -= Decimal(str(discount))
    plan = []
    if installments is not None and installments > 1:
        if len(details) != installments:
            raise p.invalid("installments_detail", f"informe {installments} parcelas")
        periods = set()
        amount_sum = Decimal(0)
        for index, raw in enumerate(details):
            entry = p.child(raw, f"installments_detail[{index}]")
            description = entry.req_text("description", max_len=50)
            amount = entry.decimal("amount", True, positive=True)
            period = entry.req_date("reference_period").replace(day=1)
            if period in periods:
                raise entry.invalid("reference_period", "período repetido")
            periods.add(period)
            amount_sum += Decimal(str(amount))
            plan.append(
                {"description": description, "amount": amount, "reference_period": period.isoformat()}
            )
        if amount_sum != total:
            raise p.invalid(
                "installments_detail", f"soma das parcelas ({amount_sum}) diferente do total ({total})"
            )
    serial = None
    if kind == "product":
        serial = _take_stock(ctx, p, item, quantity, serial_code=codes.V2_INVALID_FIELD, serial_location=True)
    elif p.has("serial_number") or p.has("location_id"):
        raise p.invalid(
            "serial_number" if p.has("serial_number") else "location_id", "não se aplica a serviços"
        )
    row = ctx.store.insert(
        "ticket_items",
        {
            "item_id": None,
            "ticket_id": ticket_id,
            "customer_id": customer,
            "contract_id": contract,
            "type": kind,
            "operation": op,
            "product_id": item_id,
            "serial_number": serial,
            "quantity": quantity,
            "discount_amount": discount,
            "total": float(total),
            "installments": plan or installments,
            "dealer_id": dealer,
        },
        "item_id",
    )
    return {"item_id": row["item_id"]}


@operation("equipment_lending")
def equipment_lending(ctx: Context, p: Params) -> dict[str, Any]:
    product_id = p.id("product_id")
    customer = p.id("customer_id")
    contract = p.id("contract_id")
    activation = p.req_date("activation_date")
    quantity = p.decimal("quantity", True, positive=True)
    assert quantity is not None  # noqa: S101
    for index, raw in enumerate(p.entries("complementary_fields")):
        entry = p.child(raw, f"complementary_fields[{index}]")
        entry.req_text("name")
        entry.req_text("value")
    provisioning = p.group("provisioning")
    if provisioning is not None:
        provisioning.id("controller_id")
        provisioning.id("controller_port_id")
        provisioning.entries("scripts", True)
    product = need(
        ctx.store.find("products", id=product_id), codes.V2_INVALID_FIELD, "Produto não encontrado"
    )
    owner = customer_contract(ctx, customer, contract, codes.V2_INVALID_FIELD)
    serial = _take_stock(ctx, p, product, quantity, serial_code=15)
    person = ctx.store.find("customers", Codigo=customer) or {}
    equipment = ctx.store.insert(
        "equipment",
        {
            "id": None,
            "customer_id": customer,
            "customer_name": person.get("Nome", ""),
            "contract_id": owner["Numero"],
            "source": "comodato",
            "serial": serial or "",
            "product_code": product["code"],
            "product_description": product["description"],
            "activate_date": activation.isoformat(),
            "deactivation_date": None,
            "deactivation_reason": "",
            "quantity": quantity,
            "unit_price": product["sale_price"],
            "total_price": round(quantity * product["sale_price"], 2),
            "controller_ip": "",
            "controller_port": "0/0/0",
            "status": "active",
            "additional_data": [],
        },
        "id",
    )
    movement = ctx.store.insert(
        "stock_movements",
        {"id": None, "product_id": product_id, "quantity": quantity, "equipment_id": equipment["id"]},
        "id",
    )
    return {"equipament_id": equipment["id"], "produt_movement_id": movement["id"]}


@operation("inventory_insert")
def inventory_insert(ctx: Context, p: Params) -> dict[str, int]:
    code = p.integer("code", True, minimum=1)
    description = p.req_text("description")
    model = p.integer("model_id", minimum=1)
    unit = p.integer("unit_id", minimum=1)
    serial = p.boolean("serial_controlled")
    price = p.decimal("sale_price", minimum=0)
    p.choice("status", ("A", "I"))
    p.group("invoice")
    if model is not None and ctx.store.find("product_models", Codigo=model) is None:
        raise p.invalid("model_id", "modelo não encontrado")
    if unit is not None and ctx.store.find("product_units", Codigo=unit) is None:
        raise p.invalid("unit_id", "unidade não encontrada")
    if ctx.store.find("products", code=code) is not None:
        raise Refusal(90, "Já existe um produto com esse código")
    row = ctx.store.insert(
        "products",
        {
            "id": None,
            "code": code,
            "description": description,
            "model_id": model,
            "serial_controlled": bool(serial),
            "unit_id": unit,
            "sale_price": price or 0.0,
            "status": p.text("status") or "A",
            "saldo": {},
        },
        "id",
    )
    return {"id": row["id"]}
