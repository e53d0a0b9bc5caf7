"""The generation-2.0 finance group (third document): open bills, slips as PDF, digitable line, PIX,
"I have paid", fiscal and service invoices, and the back-office writes.

Consistent with generation 1.0: a document is a ``documents`` record (``id``/``banking_billet_id`` is
its ``Sequencia``), open while it has no ``DataBaixa`` and was not reversed. What is due today
(``value_up``) is the original amount plus a fine (``Settings.fine_percent``) once past due and interest
(``Settings.interest_percent_per_month``, by the day), less a punctuality discount until the due date.
PIX codes carry that amount; a bank whose ``pix`` flag is off issues none (code 16). Temporary links
(``<base URL>temp/<token>.pdf``) are served while the sandbox's clock is within ``*_available`` minutes
of the answer. Where the document is silent: unknown documents answer 5 (16 for PIX, 7 for a customer);
``invoices_issued`` reads ``issue`` as "issued on or after" and needs none of its fields; an
``invoices_issued_pdf`` request with any item in error answers status 0, error_code 0 and the items (the
vendor's example); a receipt over ``Settings.receipt_max_bytes`` or not base 64 answers 10;
document_insert answers the new ids; document_delete marks the document reversed (the 1.0 queries stop
listing it); get_banking_billet with a ``due_date`` marks the document updated (a second one answers 7).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from bot.sandbox import paperwork
from bot.sandbox.brazil import moved_line, printed_line
from bot.sandbox.clock import stamp
from bot.sandbox.errors import Refusal
from bot.sandbox.params import Params
from bot.sandbox.registry import Context, Handler, Settings, need, operation
from bot.sandbox.rules.contracts import set_state
from bot.sandbox.rules.tickets import create_ticket
from bot.sandbox.seed import document_record
from bot.sandbox.store import Record, Store

MISSING, INVALID = 3, 10
NO_OPEN_DOCUMENT, NOT_FOUND, NO_PIX, ALREADY_INFORMED = 5, 7, 16, 21
LINK_MINUTES = 15
SOURCES = {"FAT": "Billing", "SER": "Service", "ADE": "Adhesion", "VEN": "Sale", "OUT": "Other"}
PRINTABLE_INVOICE = ("typed", "authorised", "issued")


def finance(name: str, **options: Any) -> Callable[[Handler], Handler]:
    """Register a finance-group operation: its own codes for a missing (3) and an invalid (10) field."""
    return operation(name, missing_code=MISSING, invalid_code=INVALID, **options)


# ---- documents and what is due ------------------------------------------------------------------
@dataclass(frozen=True)
class Due:
    original: float
    interest: float
    fine: float
    discount: float

    @property
    def total(self) -> float:
        return round(self.original + self.interest + self.fine - self.discount, 2)


def due_on(doc: Record, day: date, settings: Settings) -> Due:
    """What paying ``doc`` on ``day`` costs."""
    original = float(doc["ValorOriginal"])
    late = (day - date.fromisoformat(doc["DataVencimento"])).days
    if late <= 0:
        return Due(original, 0.0, 0.0, float(doc.get("desconto_pontualidade") or 0.0))
    interest = round(original * settings.interest_percent_per_month / 100 / 30 * late, 2)
    return Due(original, interest, round(original * settings.fine_percent / 100, 2), 0.0)


def is_open(doc: Record) -> bool:
    return doc.get("Tipo") == "C" and not doc.get("DataBaixa") and not doc.get("estornado")


def open_document(ctx: Context, number: int, code: int = NO_OPEN_DOCUMENT) -> Record:
    doc = ctx.store.find("documents", Sequencia=number)
    if doc is None or not is_open(doc):
        raise Refusal(code, f"Nenhum documento em aberto com o código {number}")
    return doc


def has_pix(store: Store, doc: Record) -> bool:
    bank = store.find("banks", code=doc["Banco"])
    return bank is None or bool(bank.get("pix", True))


def pix_of(ctx: Context, doc: Record) -> str:
    if not has_pix(ctx.store, doc):
        raise Refusal(NO_PIX, "O boleto não possui informações de PIX copia e cola")
    return paperwork.pix_code(due_on(doc, ctx.today, ctx.settings).total, f"BOLETO{doc['NossoNumero']}")


# ---- temporary links -----------------------------------------------------------------------------
def temporary_link(ctx: Context, kind: str, ref: int) -> str:
    for link in [row for row in ctx.store.rows("temporary_links") if row["expires"] <= ctx.stamp]:
        ctx.store.delete("temporary_links", link)
    token = secrets.token_urlsafe(16)
    expires = stamp(ctx.now + timedelta(minutes=LINK_MINUTES))
    ctx.store.insert("temporary_links", {"token": token, "kind": kind, "ref": ref, "expires": expires})
    return f"{ctx.base_url.rstrip('/')}/temp/{token}.pdf"


def serve_link(store: Store, now: datetime, settings: Settings, token: str) -> bytes | None:
    """The PDF behind a temporary link, or None when it is unknown or expired."""
    link = store.find("temporary_links", token=token)
    if link is None or link["expires"] <= stamp(now):
        return None
    if link["kind"] == "billet":
        doc = store.find("documents", Sequencia=link["ref"])
        return None if doc is None else bill_pdf(store, doc, now.date(), settings)
    if link["kind"] == "invoice":
        invoice = store.find("fiscal_invoices", id=link["ref"])
        return None if invoice is None else fiscal_pdf(invoice)
    service = store.find("service_invoices", id=link["ref"])
    return None if service is None else service_pdf(service)


def bill_pdf(store: Store, doc: Record, today: date, settings: Settings, due_date: date | None = None) -> bytes:
    due = due_on(doc, due_date or today, settings)
    line = doc["linha_digitavel"]
    if due_date is not None:
        line = moved_line(line, due_date, round(due.total * 100))
    pix = None
    if has_pix(store, doc):
        pix = paperwork.pix_code(due_on(doc, today, settings).total, f"BOLETO{doc['NossoNumero']}")
    return paperwork.bill_pdf(
        customer=doc["NomePessoa"],
        document=doc["Documento"],
        due_date=(due_date or date.fromisoformat(doc["DataVencimento"])).strftime("%d/%m/%Y"),
        amounts=[
            ("Valor do documento", due.original),
            ("Juros", due.interest),
            ("Multa", due.fine),
            ("Desconto", due.discount),
            ("Total a pagar", due.total),
        ],
        digitable_line=printed_line(line),
        pix=pix,
    )


def fiscal_pdf(invoice: Record) -> bytes:
    return paperwork.invoice_pdf(
        title=f"Nota fiscal modelo {invoice['model']} nº {invoice['number']} série {invoice['serial']}",
        rows=[
            ("Emissão", invoice["issue"]),
            ("Natureza", invoice["nature_of_operation"]),
            ("Chave de acesso", invoice["access_key"]),
            ("Valor total", f"R$ {invoice['value'].replace('.', ',')}"),
        ],
        items=[(item["description"], float(item["net_value"])) for item in invoice["items"]],
    )


def service_pdf(service: Record) -> bytes:
    return paperwork.invoice_pdf(
        title=f"Nota fiscal de serviço nº {service['number']}",
        rows=[("Emissão", service["issue"])],
        items=[(service["description"], float(service["value"]))],
    )


# ---- queries a subscriber-facing bot uses --------------------------------------------------------
def _address(customer: Record) -> dict[str, str]:
    return {
        "street": customer.get("Endereco", ""),
        "number": str(customer.get("Numero", "")),
        "complement": customer.get("Complemento", ""),
        "neighborhood": customer.get("Bairro", ""),
        "city": customer.get("Cidade", ""),
        "state": customer.get("UF", ""),
        "district": customer.get("Distrito", ""),
        "zipcode": customer.get("CEP", ""),
        "country": "Brasil",
    }


@finance("get_unpaid_document", writes=False, failure_result=[])
def get_unpaid_document(ctx: Context, p: Params) -> list[dict[str, Any]]:
    customer_id = p.id("customer_id")
    accounts = [p.child({"account": a}, "account_list").id("account") for a in p.entries("account_list")]
    single = p.integer("account_number", minimum=1)
    if single is not None:
        accounts.append(single)
    customer = need(ctx.store.find("customers", Codigo=customer_id), NOT_FOUND, "Cliente não encontrado")
    docs = [
        doc
        for doc in ctx.store.where("documents", CodigoPessoa=customer_id)
        if is_open(doc) and (not accounts or doc["Conta"] in accounts)
    ]
    docs.sort(key=lambda doc: (doc["DataVencimento"], doc["Sequencia"]))
    out = []
    for doc in docs:
        due = due_on(doc, ctx.today, ctx.settings)
        out.append(
            {
                "id": doc["Sequencia"],
                "account_number": doc["Conta"],
                "due_date": doc["DataVencimento"],
                "document_number": str(doc["Documento"]),
                "bank_number": doc["NossoNumero"],
                "charge_type": "with registry" if doc.get("Cobranca") == "R" else "without registry",
                "historic": doc["Historico"],
                "comments": doc["Complemento"],
                "source": SOURCES.get(doc["Origem"], "Other"),
                "bank": doc["Banco"],
                "value_init": due.original,
                "value_interest": due.interest,
                "value_fine": due.fine,
                "value_discount": due.discount,
                "value_up": due.total,
                "address": _address(customer),
                "contracts": list(doc.get("contratos", [])),
            }
        )
    return out


@finance("get_banking_billet", writes=False, slow=True)
def get_banking_billet(ctx: Context, p: Params) -> dict[str, Any]:
    number = p.id("document_id")
    new_due = p.day("due_date")
    doc = open_document(ctx, number)
    if new_due is not None:
        if new_due < ctx.today:
            raise Refusal(NOT_FOUND, "due_date não pode ser anterior a hoje")
        if doc.get("boleto_atualizado"):
            raise Refusal(NOT_FOUND, "O documento já foi atualizado; emita o boleto sem due_date")
        doc["boleto_atualizado"] = new_due.isoformat()
    pdf = bill_pdf(ctx.store, doc, ctx.today, ctx.settings, new_due)
    return {
        "banking_billet_link": temporary_link(ctx, "billet", number),
        "banking_billet_available": LINK_MINUTES,
        "banking_billet_base64": base64.b64encode(pdf).decode("ascii"),
    }


def _sms(ctx: Context, p: Params, flag: str, placeholder: str, value: str) -> None:
    """The ISP's own SMS of a code, when the request asks for it."""
    if not p.boolean(flag):
        return
    phone = p.digits("cell_phone_number", True, lengths=(10, 11))
    content = p.req_text("send_content")
    if placeholder not in content:
        raise p.invalid("send_content", f"o texto deve conter {placeholder}")
    ctx.store.insert("sms_outbox", {"phone": phone, "text": content.replace(placeholder, value), "sent": ctx.stamp})


@finance("get_barcode", writes=False)
def get_barcode(ctx: Context, p: Params) -> str:
    number = p.id("banking_billet_id")
    new_due = p.day("banking_billet_due_date")
    doc = open_document(ctx, number)
    line = doc["linha_digitavel"]
    if new_due is not None:
        if new_due < ctx.today:
            raise Refusal(6, "banking_billet_due_date não pode ser uma data vencida")
        line = moved_line(line, new_due, round(due_on(doc, new_due, ctx.settings).total * 100))
    printed = printed_line(line)
    _sms(ctx, p, "send_barcode", "|BARCODE|", printed)
    return printed


@finance("get_pix_copia_cola", writes=False)
def get_pix_copia_cola(ctx: Context, p: Params) -> str:
    code = pix_of(ctx, open_document(ctx, p.id("banking_billet_id"), NO_PIX))
    _sms(ctx, p, "send_pix_copia_cola", "|PIX_COPIA_E_COLA|", code)
    return code


@finance("get_pix_qrcode", writes=False, slow=True)
def get_pix_qrcode(ctx: Context, p: Params) -> str:
    code = pix_of(ctx, open_document(ctx, p.id("banking_billet_id"), NO_PIX))
    return base64.b64encode(paperwork.qr_png(code)).decode("ascii")


def _receipt(p: Params, limit: int) -> tuple[str, bytes]:
    file = p.req_group("file")
    name = file.req_text("name", max_len=255)
    data = file.req_text("data")
    try:
        content = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise file.invalid("data", "base 64 inválido") from None
    if not content:
        raise file.missing("data")
    if len(content) > limit:
        raise file.invalid("data", f"arquivo maior que {limit // (1024 * 1024)} MB")
    return name, content


@finance("send_payment_notification")
def send_payment_notification(ctx: Context, p: Params) -> dict[str, str]:
    number = p.id("document_id")
    customer = p.id("customer_id")
    paid_on = p.req_date("payment_date")
    name, content = _receipt(p, ctx.settings.receipt_max_bytes)
    if paid_on > ctx.today:
        raise p.invalid("payment_date", "data futura")
    doc = ctx.store.find("documents", Sequencia=number, CodigoPessoa=customer)
    if doc is None or doc.get("estornado"):
        raise Refusal(NO_OPEN_DOCUMENT, f"Documento {number} não encontrado para o cliente {customer}")
    if ctx.store.find("payment_notifications", document_id=number) is not None:
        raise Refusal(ALREADY_INFORMED, "Notificação de pagamento já informada para este documento")
    contracts = doc.get("contratos") or [None]
    ticket = create_ticket(
        ctx,
        customer=customer,
        kind="A",
        topic=None,
        subject=f"Informe de pagamento do documento {doc['Documento']}",
        user=ctx.user_name(None),
        opened=ctx.now,
        contract=contracts[0],
        occurrence=(
            f"Cliente informou o pagamento em {paid_on:%d/%m/%Y} do documento {doc['Documento']} "
            f"(vencimento {date.fromisoformat(doc['DataVencimento']):%d/%m/%Y}); comprovante: {name}"
        ),
    )
    ctx.store.insert(
        "payment_notifications",
        {
            "id": None,
            "document_id": number,
            "customer_id": customer,
            "payment_date": paid_on.isoformat(),
            "file_name": name,
            "file_size": len(content),
            "file_sha256": hashlib.sha256(content).hexdigest(),
            "ticket": ticket["Numero"],
            "received": ctx.stamp,
        },
        "id",
    )
    return {"message": "Notificação de pagamento registrada", "ticket_id": str(ticket["Numero"])}


@finance("send_banking_billet")
def send_banking_billet(ctx: Context, p: Params) -> str:
    number = p.id("document_id")
    due = p.req_date("due_date")
    customer = p.id("customer_id")
    email = p.email("customer_email")
    if email is None:
        raise p.missing("customer_email")
    subject = p.req_text("email_subject")
    body = p.req_text("email_body")
    gateway = p.id("email_gateway_id")
    if due < ctx.today:
        raise Refusal(25, "due_date deve ser maior ou igual a hoje")
    doc = open_document(ctx, number)
    if doc["CodigoPessoa"] != customer:
        raise Refusal(NO_OPEN_DOCUMENT, f"Documento {number} não pertence ao cliente {customer}")
    need(ctx.store.find("email_gateways", id=gateway), NOT_FOUND, "Gateway de e-mail não encontrado")
    ctx.store.insert(
        "email_outbox",
        {"to": email, "subject": subject, "body": body, "document_id": number, "due_date": due.isoformat()},
    )
    return f"Boleto enviado para {email}"


@finance("invoices_issued", writes=False, failure_result=[])
def invoices_issued(ctx: Context, p: Params) -> list[Record]:
    model = p.text("model", max_len=2)
    issued = p.day("issue")
    customer = p.integer("customer_id", minimum=1)
    return [
        deepcopy(invoice)
        for invoice in ctx.store.rows("fiscal_invoices")
        if (model is None or invoice["model"] == model)
        and (issued is None or invoice["issue"] >= issued.isoformat())
        and (customer is None or invoice["customer_id"] == customer)
    ]


@finance("invoices_issued_pdf", writes=False, failure_result=[])
def invoices_issued_pdf(ctx: Context, p: Params) -> list[dict[str, Any]]:
    raw = p.raw("id", True)
    ids = raw if isinstance(raw, list) else [raw]
    items = []
    for index, value in enumerate(ids):
        number = p.child({"id": value}, f"id[{index}]").id("id")
        invoice = ctx.store.find("fiscal_invoices", id=number)
        if invoice is None or invoice["status"] not in PRINTABLE_INVOICE:
            items.append(
                {
                    "id": number,
                    "url": "",
                    "error_code": 9,
                    "error_description": "Nota fiscal não existe ou não está digitada, autorizada ou emitida",
                }
            )
        else:
            url = temporary_link(ctx, "invoice", number)
            items.append({"id": number, "url": url, "error_code": 0, "error_description": ""})
    if any(item["error_code"] for item in items):
        raise Refusal(0, "", result=items)  # the vendor's example: status 0, error_code 0, read each item
    return items


@finance("get_service_invoice", writes=False)
def get_service_invoice(ctx: Context, p: Params) -> dict[str, Any]:
    number = p.id("service_invoice_id")
    document = p.integer("document_id", minimum=1)
    service = ctx.store.find("service_invoices", id=number)
    if service is None or (document is not None and service["document_id"] != document):
        raise Refusal(NOT_FOUND, "Nota fiscal de serviço não encontrada")
    return {
        "service_invoice_link": temporary_link(ctx, "service_invoice", number),
        "service_invoice_available": LINK_MINUTES,
    }


# ---- back-office writes (for the client's completeness; a chat bot must not expose them) --------
@finance("document_insert", failure_result=[])
def document_insert(ctx: Context, p: Params) -> list[int]:
    p.text("type")
    customer = p.id("id")
    account = p.id("account_id")
    p.id("historic_id")
    origin = p.text("origin") or "OUT"
    bank = p.integer("bank", minimum=1) or 1
    contracts = [p.child({"c": c}, "contract_id").id("c") for c in p.entries("contract_id")]
    installments = p.groups("installments", True)
    person = need(ctx.store.find("customers", Codigo=customer), NOT_FOUND, "Cliente não encontrado")
    if ctx.store.find("banks", code=bank) is None:
        raise p.invalid("bank", "banco não cadastrado")
    if ctx.store.find("accounts", id=account) is None:
        raise p.invalid("account_id", "conta não cadastrada")
    for number in contracts:
        if ctx.store.find("contracts", Numero=number, Cliente_Codigo=customer) is None:
            raise p.invalid("contract_id", f"contrato {number} não pertence ao cliente")
    planned = []
    for installment in installments:
        due = installment.req_date("due_date")
        items = installment.groups("items", True)
        total = sum(item.decimal("value", True, positive=True) or 0.0 for item in items)
        for item in items:
            item.req_text("description")
        discount = 0.0
        punctuality = installment.group("punctuality_discount")
        if punctuality is not None:
            kind = punctuality.req_choice("discount_type", ("value", "percentage"))
            amount = punctuality.decimal("discount_value", True, minimum=0) or 0.0
            discount = amount if kind == "value" else round(total * amount / 100, 2)
        planned.append((due, round(total, 2), discount, installment.text("complement") or ""))
    ids = []
    for due, total, discount, complement in planned:
        number = ctx.store.next_id("documents", "Sequencia")
        record = document_record(number, person, contracts, due, total, paid_on=None, bank=bank)
        record.update(
            Conta=account,
            Origem=origin if origin in SOURCES else "OUT",
            Complemento=complement or record["Complemento"],
            DataLancamento=ctx.today.isoformat(),
            desconto_pontualidade=discount,
        )
        ids.append(ctx.store.insert("documents", record)["Sequencia"])
    return ids


@finance("document_delete", failure_result=[])
def document_delete(ctx: Context, p: Params) -> list[str]:
    number = p.id("document_id")
    p.id("reason_id")
    comments = p.text("comments") or ""
    user = p.text("user")
    for linked in ("invoices_typed", "invoices_issued", "invoices_pre_typed"):
        p.choice(linked, ("cancel", "delete"))
    for linked in ("service_invoice_generated", "service_invoice_issued"):
        p.choice(linked, ("cancel", "delete"))
    doc = need(ctx.store.find("documents", Sequencia=number), NO_OPEN_DOCUMENT, f"Documento {number} não encontrado")
    if doc.get("estornado"):
        raise Refusal(29, f"Documento {number} já estornado")
    if doc.get("DataBaixa"):
        raise Refusal(NO_OPEN_DOCUMENT, f"Documento {number} está baixado; estorne a baixa primeiro")
    doc["estornado"] = {"quando": ctx.stamp, "usuario": ctx.user_name(user), "observacao": comments}
    return [f"Documento {number} estornado com sucesso"]


@finance("document_payment")
def document_payment(ctx: Context, p: Params) -> str:
    p.text("payment_type")
    number = p.id("document_id")
    paid_on = p.day("payment_date") or ctx.today
    p.day("payment_credit_date")
    extras = {
        part: (p.choice(f"{part}_type", ("V", "P")), p.decimal(f"{part}_amount", minimum=0))
        for part in ("discount", "interest", "fine")
    }
    unblock = p.boolean("unblock_customer")
    comment = p.text("payment_comment") or ""
    doc = open_document(ctx, number)
    due = due_on(doc, paid_on, ctx.settings)

    def settled(part: str, computed: float) -> float:
        kind, value = extras[part]
        if value is None:
            return computed
        return round(due.original * value / 100, 2) if kind == "P" else value

    doc.update(
        DataBaixa=paid_on.isoformat(),
        Motivo="PAGTO",
        FormaPagto="N",
        HistoricoBaixa=comment or "Pagamento",
        ValorJuros=settled("interest", due.interest),
        ValorMulta=settled("fine", due.fine),
        ValorDesconto=settled("discount", due.discount),
        UsuarioBaixa=ctx.user_name(None),
        DataHoraExecucaoBaixa=ctx.stamp,
    )
    if unblock:
        _unblock_paid_up(ctx, doc)
    return f"Documento {number} baixado com sucesso"


def _unblock_paid_up(ctx: Context, doc: Record) -> None:
    """Blocked contracts of the document go back to active when nothing of theirs is overdue."""
    today = ctx.today.isoformat()
    for number in doc.get("contratos", []):
        contract = ctx.store.find("contracts", Numero=number)
        overdue = any(
            is_open(other) and other["DataVencimento"] < today and number in other.get("contratos", [])
            for other in ctx.store.rows("documents")
        )
        if contract is not None and contract["Situacao_Codigo"] == "B" and not overdue:
            set_state(ctx, contract, "A")


@finance("document_payment_reversal")
def document_payment_reversal(ctx: Context, p: Params) -> str:
    number = p.id("document_id")
    p.id("reason_id")
    p.text("user")
    p.text("comments")
    doc = need(ctx.store.find("documents", Sequencia=number), NO_OPEN_DOCUMENT, f"Documento {number} não encontrado")
    if not doc.get("DataBaixa"):
        raise Refusal(15, f"Documento {number} não está pago")
    doc.update(
        DataBaixa=None,
        Motivo="",
        FormaPagto="",
        HistoricoBaixa="",
        ValorJuros=0.0,
        ValorMulta=0.0,
        ValorDesconto=0.0,
        UsuarioBaixa="",
        DataHoraExecucaoBaixa=None,
    )
    return f"Baixa do documento {number} estornada"


def _luhn(number: str) -> bool:
    total = 0
    for index, digit in enumerate(reversed(number)):
        value = int(digit) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


@finance("payment_card_insert")
def payment_card_insert(ctx: Context, p: Params) -> dict[str, Any]:
    person = p.req_group("person")
    kind = person.req_choice("type", ("C", "F", "M"))
    owner = person.id("id")
    card = p.req_group("card")
    number = card.digits("number", True, lengths=range(12, 20))
    card.req_text("holder")
    expiry = card.req_text("expiration_date")
    brand = card.req_text("brand")
    card_type = card.req_choice("type", ("credit", "debit"))
    default = bool(card.boolean("default"))
    token = bool(card.boolean("generate_token"))
    card.digits("security_code", True, lengths=(3, 4))
    assert number is not None  # noqa: S101
    if not _luhn(number):
        raise card.invalid("number", "número de cartão inválido")
    try:
        month, year = (int(part) for part in expiry.split("/"))
        if not 1 <= month <= 12 or len(expiry.split("/")[1]) != 4:
            raise ValueError(expiry)
    except ValueError:
        raise card.invalid("expiration_date", "MM/AAAA") from None
    if (year, month) < (ctx.today.year, ctx.today.month):
        raise Refusal(ALREADY_INFORMED, "Cartão vencido")
    table = {"C": "customers", "F": "suppliers", "M": "markets"}[kind]
    need(ctx.store.find(table, Codigo=owner), NOT_FOUND, "Pessoa não encontrada")
    # Only what ConsultaCartoesCadastrados shows is kept: never the number or the security code.
    stored = ctx.store.insert(
        "stored_cards",
        {
            "Id": None,
            "TipoPessoa": kind,
            "CodigoPessoa": owner,
            "UltimosDigitos": number[-4:],
            "Bandeira": brand,
            "TipoCartao": "C" if card_type == "credit" else "D",
            "CartaoPadrao": "S" if default else "N",
        },
        "Id",
    )
    return {"card_id": stored["Id"], "generated_token": secrets.token_hex(16) if token else ""}


@finance("pre_billing_insert")
def pre_billing_insert(ctx: Context, p: Params) -> dict[str, str]:
    customer = p.id("customer_id")
    contract = p.id("contract_id")
    period = p.digits("period", True, lengths=(6,))
    kind = p.req_text("type")
    description = p.req_text("description")
    value = p.decimal("value", True, positive=True)
    assert period is not None  # noqa: S101
    if not 1 <= int(period[4:]) <= 12:
        raise p.invalid("period", "AAAAMM")
    if ctx.store.find("contracts", Numero=contract, Cliente_Codigo=customer) is None:
        raise Refusal(16, "Cliente ou contrato não existe")
    row = ctx.store.insert(
        "pre_billings",
        {
            "id": None,
            "customer_id": customer,
            "contract_id": contract,
            "period": period,
            "type": kind,
            "description": description,
            "value": value,
        },
        "id",
    )
    return {"id": str(row["id"]), "comments": f"Valor incluído no faturamento de {period[4:]}/{period[:4]}"}
