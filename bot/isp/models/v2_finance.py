"""Requests and results of the generation-2.0 finance group (third document).

The third document is less certain than the first two: its section 4 lists the variants real
installations answer in, and every result here reads all of them. A result that is a single value
(the digitable line, the PIX code, the QR image, the PDF link) arrives bare or inside an object
under one of several keys; ``pick`` reads the keys in the order public integrations do. Amounts may
be numbers or strings, a list may be one object, a base-64 image may carry a ``data:`` prefix.

Card numbers, security codes and card tokens are ``Secret``: hidden in ``repr``/``str`` (and so in
logs and error texts), revealed only when the request is serialised for the ISP. The receipt a
subscriber sends (``PaymentFile.data``) is secret the same way.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import date
from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import BeforeValidator, ConfigDict, Field, SecretStr, model_validator

from bot.isp.models.base import Record, Request
from bot.isp.models.v2_results import ListOf
from bot.isp.types import Date, DateStr, Dec, Int, Money, Password, PositiveInt, PositiveMoney, Text

Secret = Password
"""Hidden in ``repr``/``str``, sent as plain text."""

Phone = Annotated[str, BeforeValidator(lambda v: re.sub(r"[\s.\-/()]", "", v) if isinstance(v, str) else v),
                  Field(pattern=r"^\d{10,11}$")]
NonEmpty = Annotated[str, Field(min_length=1)]


# ---- reading the variants of section 4 -------------------------------------------------------------
def pick(raw: Any, keys: tuple[str, ...]) -> Any:
    """The value of a one-value result: bare, or under the first of ``keys`` an object has; a list
    of one such object reads as the object."""
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    if isinstance(raw, dict):
        for key in keys:
            if raw.get(key) not in (None, ""):
                return raw[key]
        return None
    return raw


def text_or_none(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value).strip()
    return text or None


def decode_base64(value: Any) -> bytes | None:
    """Bytes of a base-64 text, with or without a ``data:...;base64,`` prefix; None when unreadable."""
    text = text_or_none(value)
    if text is None:
        return None
    if text.startswith("data:"):
        text = text.partition(",")[2]
    text = re.sub(r"\s", "", text)
    try:
        data = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return data or None


LINK_KEYS = ("banking_billet_link", "link", "url")
PDF_KEYS = ("banking_billet_base64", "pdf_base64", "base64")
AVAILABLE_KEYS = ("banking_billet_available", "available")
LINE_KEYS = ("barcode", "line", "digitable_line", "linha_digitavel")
PIX_KEYS = ("pix_copia_cola", "copia_cola", "emv", "payload")
QR_KEYS = ("pix_qrcode", "qrcode", "qr_code", "image", "base64")


# ---- 1.1 get_unpaid_document -----------------------------------------------------------------------
class GetUnpaidDocument(Request):
    """get_unpaid_document."""

    customer_id: PositiveInt
    account_list: list[PositiveInt] | None = None


class DocumentAddress(Record):
    street: Text = None
    number: Text = None
    complement: Text = None
    neighborhood: Text = None
    city: Text = None
    state: Text = None
    district: Text = None
    zipcode: Text = None
    country: Text = None


class UnpaidDocument(Record):
    """One open bill: ``id`` is the document's internal code (``Sequencia`` in generation 1.0)."""

    id: Int = None
    account_number: Int = None
    due_date: Date = None
    document_number: Text = None
    bank_number: Text = None
    charge_type: Text = None
    historic: Text = None
    comments: Text = None
    source: Text = None
    bank: Text = None
    value_init: Dec = None
    value_interest: Dec = None
    value_fine: Dec = None
    value_discount: Dec = None
    value_up: Dec = None  # due today: original + interest + fine - discount
    address: DocumentAddress | None = None
    contracts: ListOf[Int]

    @model_validator(mode="before")
    @classmethod
    def _address_may_be_blank(cls, data: Any) -> Any:
        if isinstance(data, dict) and not isinstance(data.get("address"), dict | None):
            data = {**data, "address": None}  # "" or [] where an object belongs
        return data


# ---- 1.2 get_banking_billet ------------------------------------------------------------------------
class GetBankingBillet(Request):
    """get_banking_billet. ``due_date`` is left out by default (code 7 on an updated document)."""

    document_id: PositiveInt
    due_date: DateStr | None = None


class BankingBillet(Record):
    """The bill as a PDF: a temporary ``link`` (valid ``available`` minutes) and/or the PDF itself."""

    link: str | None = None
    available: int | None = None
    pdf: bytes | None = Field(default=None, repr=False)


def banking_billet(raw: Any) -> BankingBillet:
    if isinstance(raw, str):  # a bare link or a bare base-64 PDF
        raw = {"link": raw} if raw.strip().startswith("http") else {"base64": raw}
    link = text_or_none(pick(raw, LINK_KEYS))
    minutes = text_or_none(pick(raw, AVAILABLE_KEYS))
    return BankingBillet(link=link if link and link.startswith("http") else None,
                         available=int(float(minutes)) if minutes and _number(minutes) else None,
                         pdf=decode_base64(pick(raw, PDF_KEYS)))


def _number(text: str) -> bool:
    return re.fullmatch(r"\d+(\.\d+)?", text) is not None


# ---- 1.3 get_barcode, 1.4 get_pix_copia_cola, 1.5 get_pix_qrcode ------------------------------------
class _SmsOption(Request):
    cell_phone_number: Phone | None = None
    send_content: NonEmpty | None = None

    def _check_sms(self, flag: bool | None, name: str) -> None:
        if flag and (self.cell_phone_number is None or self.send_content is None):
            raise ValueError(f"cell_phone_number and send_content are required when {name} is true")


class GetBarcode(_SmsOption):
    """get_barcode."""

    banking_billet_id: PositiveInt
    banking_billet_due_date: DateStr | None = None
    send_barcode: bool | None = None

    @model_validator(mode="after")
    def _sms(self) -> Self:
        self._check_sms(self.send_barcode, "send_barcode")
        return self


class GetPixCopiaCola(_SmsOption):
    """get_pix_copia_cola."""

    banking_billet_id: PositiveInt
    send_pix_copia_cola: bool | None = None

    @model_validator(mode="after")
    def _sms(self) -> Self:
        self._check_sms(self.send_pix_copia_cola, "send_pix_copia_cola")
        return self


class GetPixQrcode(Request):
    """get_pix_qrcode."""

    banking_billet_id: PositiveInt


def barcode(raw: Any) -> str | None:
    """The digitable line as printed, or None when the answer holds none."""
    return text_or_none(pick(raw, LINE_KEYS))


def pix_code(raw: Any) -> str | None:
    """The PIX BR Code without surrounding whitespace (not checked here: see ``bot.isp.pix``)."""
    return text_or_none(pick(raw, PIX_KEYS))


def pix_qrcode(raw: Any) -> bytes | None:
    """The QR image's bytes (a PNG), or None when the answer holds no readable image."""
    return decode_base64(pick(raw, QR_KEYS))


# ---- 1.6 send_payment_notification -----------------------------------------------------------------
class PaymentFile(Request):
    model_config = ConfigDict(hide_input_in_errors=True)

    name: NonEmpty
    data: Secret  # the receipt in base 64: never shown, never logged


class SendPaymentNotification(Request):
    """send_payment_notification: not idempotent (code 21 on a second notice)."""

    document_id: PositiveInt
    customer_id: PositiveInt
    payment_date: DateStr
    file: PaymentFile

    @classmethod
    def with_receipt(cls, *, document_id: int, customer_id: int, payment_date: date, name: str,
                     content: bytes) -> SendPaymentNotification:
        data = SecretStr(base64.b64encode(content).decode("ascii"))
        return cls(document_id=document_id, customer_id=customer_id, payment_date=payment_date,
                   file=PaymentFile(name=name, data=data))


class PaymentNotice(Record):
    message: Text = None
    ticket_id: Int = None


# ---- 1.7 send_banking_billet -----------------------------------------------------------------------
class SendBankingBillet(Request):
    """send_banking_billet: e-mails the slip (a write: never resent blindly)."""

    document_id: PositiveInt
    due_date: DateStr
    customer_id: PositiveInt
    customer_email: Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
    email_subject: NonEmpty
    email_body: NonEmpty
    email_gateway_id: PositiveInt


# ---- 1.8 fiscal invoices ---------------------------------------------------------------------------
class InvoicesIssued(Request):
    """invoices_issued."""

    model: NonEmpty
    issue: DateStr
    customer_id: PositiveInt


class InvoiceItem(Record):
    item: Int = None
    code: Text = None
    description: Text = None
    cfop: Text = None
    unit: Text = None
    quantity: Dec = None
    unit_value: Dec = None
    gross_value: Dec = None
    discount: Dec = None
    other_expenses: Dec = None
    net_value: Dec = None


class InvoiceDocument(Record):
    document_number: Text = None
    due_date: Date = None
    document_value: Dec = None
    document_status: Text = None


class Invoice(Record):
    """One fiscal invoice; numbers arrive as strings here."""

    id: Int = None
    model: Text = None
    serial: Text = None
    number: Text = None
    access_key: Text = None
    issue: Date = None
    customer_id: Int = None
    nature_of_operation: Text = None
    value: Dec = None
    status: Text = None
    items: ListOf[InvoiceItem]
    document: ListOf[InvoiceDocument]

    @model_validator(mode="before")
    @classmethod
    def _lists_may_be_one_object(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for key in ("items", "document"):
                value = data.get(key)
                if isinstance(value, dict) and not all(str(k).isdecimal() for k in value):
                    data[key] = [value]
        return data


class InvoicesIssuedPdf(Request):
    """invoices_issued_pdf."""

    id: Annotated[list[PositiveInt], Field(min_length=1)]


class InvoicePdf(Record):
    """One invoice's PDF link, or this item's own error (the top level may say success)."""

    id: Int = None
    url: Text = None
    error_code: Int = None
    error_description: Text = None

    @property
    def ok(self) -> bool:
        return not self.error_code and bool(self.url)


class GetServiceInvoice(Request):
    """get_service_invoice."""

    service_invoice_id: PositiveInt
    document_id: PositiveInt | None = None


class ServiceInvoice(Record):
    link: str | None = None
    available: int | None = None


def service_invoice(raw: Any) -> ServiceInvoice:
    if isinstance(raw, str):
        raw = {"link": raw}
    link = text_or_none(pick(raw, ("service_invoice_link", "link", "url")))
    minutes = text_or_none(pick(raw, ("service_invoice_available", "available")))
    return ServiceInvoice(link=link, available=int(float(minutes)) if minutes and _number(minutes) else None)


# ---- 2. back-office writes -------------------------------------------------------------------------
class DiscountKind(StrEnum):
    VALUE = "value"
    PERCENTAGE = "percentage"


class PunctualityDiscount(Request):
    discount_type: DiscountKind
    discount_value: Annotated[Money, Field(ge=0)]


class InstallmentItem(Request):
    description: NonEmpty
    value: PositiveMoney


class Installment(Request):
    complement: str | None = None
    due_date: DateStr
    punctuality_discount: PunctualityDiscount | None = None
    items: Annotated[list[InstallmentItem], Field(min_length=1)]


class DocumentInsert(Request):
    """document_insert: new receivables for a customer, in instalments."""

    type: NonEmpty
    id: PositiveInt
    account_id: PositiveInt
    historic_id: PositiveInt
    origin: NonEmpty | None = None
    bank: PositiveInt | None = None
    bank_agreement: PositiveInt | None = None
    billing_type: NonEmpty | None = None
    days_of_protest: Annotated[int, Field(ge=0)] | None = None
    classifier: PositiveInt | None = None
    contract_id: list[PositiveInt] | None = None
    installments: Annotated[list[Installment], Field(min_length=1)]


class LinkedInvoiceAction(StrEnum):
    CANCEL = "cancel"
    DELETE = "delete"


class DocumentDelete(Request):
    """document_delete: reverses an open document (code 29 when already reversed)."""

    document_id: PositiveInt
    reason_id: PositiveInt
    comments: str | None = None
    user: NonEmpty
    invoices_typed: LinkedInvoiceAction | None = None
    invoices_issued: LinkedInvoiceAction | None = None
    invoices_pre_typed: LinkedInvoiceAction | None = None
    service_invoice_generated: LinkedInvoiceAction | None = None
    service_invoice_issued: LinkedInvoiceAction | None = None


def texts(raw: Any) -> list[str]:
    """A list of texts (document_delete); one text reads as a list of one."""
    if raw in (None, "", {}):
        return []
    items = raw if isinstance(raw, list) else list(raw.values()) if isinstance(raw, dict) else [raw]
    return [str(item) for item in items if item not in (None, "")]


class AmountKind(StrEnum):
    VALUE = "V"
    PERCENT = "P"


class DocumentPayment(Request):
    """document_payment: settles a document."""

    payment_type: NonEmpty
    document_id: PositiveInt
    document_historic_id: PositiveInt | None = None
    payment_account_id: PositiveInt
    payment_historic_id: PositiveInt | None = None
    payment_date: DateStr
    payment_credit_date: DateStr | None = None
    discount_type: AmountKind | None = None
    discount_amount: Annotated[Money, Field(ge=0)] | None = None
    interest_type: AmountKind | None = None
    interest_amount: Annotated[Money, Field(ge=0)] | None = None
    fine_type: AmountKind | None = None
    fine_amount: Annotated[Money, Field(ge=0)] | None = None
    rate_type: AmountKind | None = None
    rate_amount: Annotated[Money, Field(ge=0)] | None = None
    payment_comment: str | None = None
    unblock_customer: bool | None = None


class PaymentOutcome(Record):
    """document_payment: the vendor shows request-shaped bodies; whatever arrives is kept."""

    message: Text = None


def payment_outcome(raw: Any) -> PaymentOutcome:
    if isinstance(raw, dict):
        return PaymentOutcome.model_validate(raw)
    return PaymentOutcome(message=text_or_none(raw))


class DocumentPaymentReversal(Request):
    """document_payment_reversal (code 15 when the document is unpaid)."""

    document_id: PositiveInt
    reason_id: PositiveInt
    user: NonEmpty
    comments: str | None = None


class CardKind(StrEnum):
    CREDIT = "credit"
    DEBIT = "debit"


class CardPerson(Request):
    type: NonEmpty
    id: PositiveInt


def _card_digits(value: Any) -> Any:
    if isinstance(value, str):
        return re.sub(r"[\s\-]", "", value)
    return value


class PaymentCard(Request):
    """A card: ``number`` and ``security_code`` are secret (see the module docstring), also in the
    texts of validation errors."""

    model_config = ConfigDict(hide_input_in_errors=True)

    number: Annotated[Secret, BeforeValidator(_card_digits)]
    holder: NonEmpty
    expiration_date: Annotated[str, Field(pattern=r"^(0[1-9]|1[0-2])/\d{4}$")]
    brand: NonEmpty
    type: CardKind
    default: bool | None = None
    generate_token: bool | None = None
    security_code: Secret | None = None

    @model_validator(mode="after")
    def _card_shapes(self) -> Self:
        if not re.fullmatch(r"\d{12,19}", self.number.get_secret_value()):
            raise ValueError("number must be 12 to 19 digits")
        code = self.security_code.get_secret_value() if self.security_code else None
        if code is not None and not re.fullmatch(r"\d{3,4}", code):
            raise ValueError("security_code must be 3 or 4 digits")
        return self


class PaymentCardInsert(Request):
    """payment_card_insert (back office only: a chat bot never asks for card data)."""

    model_config = ConfigDict(hide_input_in_errors=True)

    person: CardPerson
    card: PaymentCard


class StoredCard(Record):
    card_id: Int = None
    generated_token: SecretStr | None = None


class PreBillingInsert(Request):
    """pre_billing_insert: an amount on a contract's next bill."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    period: Annotated[str, Field(pattern=r"^\d{4}(0[1-9]|1[0-2])$")]
    type: NonEmpty
    description: NonEmpty
    value: PositiveMoney


class PreBilling(Record):
    id: Int = None
    comments: Text = None
