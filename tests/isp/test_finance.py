"""The finance group (third document): every answer variant of its section 4, the per-item errors
of invoices_issued_pdf, the kinds, the error codes, card data kept secret, and the PIX checker."""

from __future__ import annotations

import base64
import logging
from datetime import date
from decimal import Decimal
from typing import Any

import httpx
import pytest
from bot.isp import ErrorName, IspApiError, IspClient, IspTimeout
from bot.isp.catalog import OPERATIONS, Kind
from bot.isp.catalog import v2_finance as catalog
from bot.isp.models import v2_finance as f
from bot.isp.pix import crc16_ccitt, parse_br_code, with_crc
from pydantic import ValidationError

from tests.isp.samples_finance import CARD, CVV, LINE, PDF, PIX, PNG, SAMPLES
from tests.isp.standin import StandIn, v2_fail, v2_ok


# ---- section 4: result keys, prefixes, numbers or strings, one object or a list ------------------------
@pytest.mark.parametrize("raw", [LINE, f"  {LINE}\n", {"barcode": LINE}, {"line": LINE},
                                 {"digitable_line": LINE}, {"linha_digitavel": LINE}, [{"barcode": LINE}]])
def test_the_digitable_line_reads_in_every_variant(raw: Any) -> None:
    assert catalog.get_barcode.parse(raw) == LINE


@pytest.mark.parametrize("raw", [PIX, f" {PIX} \n", {"pix_copia_cola": PIX}, {"copia_cola": PIX},
                                 {"emv": PIX}, {"payload": PIX}, [PIX]])
def test_the_pix_code_reads_in_every_variant(raw: Any) -> None:
    assert catalog.get_pix_copia_cola.parse(raw) == PIX


@pytest.mark.parametrize("raw", ["", [], {}, None, {"pix_copia_cola": ""}])
def test_an_empty_pix_answer_reads_as_none(raw: Any) -> None:
    assert catalog.get_pix_copia_cola.parse(raw) is None


@pytest.mark.parametrize("prefix", ["", "data:image/png;base64,"])
def test_the_qr_image_reads_with_or_without_a_data_prefix(prefix: str) -> None:
    encoded = base64.b64encode(PNG).decode()
    assert catalog.get_pix_qrcode.parse(prefix + encoded) == PNG
    assert catalog.get_pix_qrcode.parse({"qrcode": prefix + encoded}) == PNG
    assert catalog.get_pix_qrcode.parse("not base 64 at all!") is None


@pytest.mark.parametrize(("link_key", "pdf_key"), [("banking_billet_link", "banking_billet_base64"),
                                                   ("link", "pdf_base64"), ("url", "base64")])
def test_the_bill_pdf_reads_under_every_key(link_key: str, pdf_key: str) -> None:
    billet = catalog.get_banking_billet.parse({link_key: "https://isp.example/b.pdf", pdf_key:
                                               "data:application/pdf;base64," + base64.b64encode(PDF).decode(),
                                               "banking_billet_available": "15"})
    assert billet.link == "https://isp.example/b.pdf" and billet.pdf == PDF and billet.available == 15
    assert "%PDF" not in repr(billet)


def test_a_bill_pdf_without_link_or_minutes_still_reads() -> None:
    billet = catalog.get_banking_billet.parse({"banking_billet_base64": base64.b64encode(PDF).decode()})
    assert billet.link is None and billet.available is None and billet.pdf == PDF
    assert catalog.get_banking_billet.parse("https://isp.example/b.pdf").link == "https://isp.example/b.pdf"


def test_unpaid_amounts_read_as_numbers_or_strings_and_odd_shapes_are_tolerated() -> None:
    (numbers,) = catalog.get_unpaid_document.parse([{"id": 1, "value_init": 99.9, "value_up": 0,
                                                     "address": "", "contracts": 881}])
    (strings,) = catalog.get_unpaid_document.parse({"id": "1", "value_init": "99.90", "value_up": "101.5",
                                                    "contracts": {"0": "881"}})
    assert numbers.value_init == Decimal("99.9") and numbers.value_up == Decimal(0) and numbers.address is None
    assert strings.value_init == Decimal("99.90") and strings.value_up == Decimal("101.5")
    assert strings.contracts == [881]


def test_invoice_numbers_arrive_as_strings_and_lists_as_one_object() -> None:
    (invoice,) = catalog.invoices_issued.parse({"id": "9", "value": "10.50", "items": {"item": "1",
                                                                                        "net_value": "10.50"}})
    assert invoice.value == Decimal("10.50") and invoice.items[0].net_value == Decimal("10.50")


def test_per_item_errors_of_invoice_pdfs_are_read_one_by_one() -> None:
    items = catalog.invoices_issued_pdf.parse({"id": "4", "url": "", "error_code": "9",
                                               "error_description": "invoice does not exist"})
    assert [(i.id, i.ok, i.error_code) for i in items] == [(4, False, 9)]


async def test_a_failed_item_comes_back_inside_a_successful_envelope(standin: StandIn, client: IspClient) -> None:
    standin.answer("invoices_issued_pdf", v2_ok([{"id": 7, "url": "https://isp.example/n.pdf", "error_code": ""},
                                                 {"id": 8, "url": "", "error_code": 9}], error_code="0"))
    good, bad = await client.invoices_issued_pdf(f.InvoicesIssuedPdf(id=[7, 8]))
    assert good.ok and not bad.ok and bad.error_code == 9


async def test_a_failed_envelope_with_items_is_read_item_by_item(standin: StandIn, client: IspClient) -> None:
    standin.answer("invoices_issued_pdf", {"status": 0, "error_code": 0, "error_description": "",
                                           "result": [{"id": 7, "url": "https://isp.example/n.pdf", "error_code": 0},
                                                      {"id": 8, "url": "", "error_code": 9}]})
    good, bad = await client.invoices_issued_pdf(f.InvoicesIssuedPdf(id=[7, 8]))
    assert good.ok and not bad.ok and bad.error_code == 9
    standin.answers["invoices_issued_pdf"].clear()
    standin.answer("invoices_issued_pdf", v2_fail(9, "invoice does not exist", []))
    with pytest.raises(IspApiError):
        await client.invoices_issued_pdf(f.InvoicesIssuedPdf(id=[8]))


@pytest.mark.parametrize("error_code", ["", 0, "0"])
async def test_success_reads_whatever_error_code_says_nothing(standin: StandIn, client: IspClient,
                                                             error_code: Any) -> None:
    standin.answer("get_pix_copia_cola", v2_ok({"emv": PIX}, error_code=error_code))
    assert await client.get_pix_copia_cola(f.GetPixCopiaCola(banking_billet_id=1)) == PIX


@pytest.mark.parametrize("result", ["", [], {}])
async def test_a_bank_without_pix_is_code_16_whatever_the_failure_result(standin: StandIn, client: IspClient,
                                                                        result: Any) -> None:
    standin.answer("get_pix_qrcode", v2_fail(16, "the banking billet has no PIX copy-and-paste information",
                                             result))
    with pytest.raises(IspApiError) as caught:
        await client.get_pix_qrcode(f.GetPixQrcode(banking_billet_id=1))
    assert caught.value.known is ErrorName.NO_PIX


async def test_a_second_payment_notice_is_code_21(standin: StandIn, client: IspClient) -> None:
    standin.answer("send_payment_notification", v2_fail("21", "payment notification already informed"))
    with pytest.raises(IspApiError) as caught:
        await client.send_payment_notification(SAMPLES["send_payment_notification"].request)
    assert caught.value.known is ErrorName.PAYMENT_ALREADY_INFORMED
    assert standin.calls("send_payment_notification") == 1


async def test_document_payment_takes_an_answer_without_envelope(standin: StandIn, client: IspClient) -> None:
    standin.answer("document_payment", {"payment_type": "cash", "document_id": 88123})
    outcome = await client.document_payment(SAMPLES["document_payment"].request)
    assert outcome.message is None and outcome.model_extra == {"payment_type": "cash", "document_id": 88123}


# ---- kinds and codes -------------------------------------------------------------------------------------
def test_sixteen_operations_queries_and_writes_told_apart() -> None:
    names = {op.name for op in catalog.FINANCE_OPERATIONS}
    assert len(catalog.FINANCE_OPERATIONS) == len(names) == 16 and names == set(SAMPLES)
    assert all(OPERATIONS[name] is getattr(catalog, name) for name in names)
    queries = {op.name for op in catalog.FINANCE_OPERATIONS if op.kind is Kind.QUERY}
    assert queries == {"get_unpaid_document", "get_banking_billet", "get_barcode", "get_pix_copia_cola",
                       "get_pix_qrcode", "invoices_issued", "invoices_issued_pdf", "get_service_invoice"}


def test_the_documented_codes_have_names() -> None:
    assert catalog.get_banking_billet.errors == {5: ErrorName.NO_OPEN_DOCUMENT, 7: ErrorName.DUE_DATE_REFUSED}
    assert catalog.get_barcode.errors == {6: ErrorName.DUE_DATE_IN_PAST}
    assert catalog.send_banking_billet.errors == {25: ErrorName.DUE_DATE_BEFORE_TODAY}
    assert catalog.document_delete.errors == {29: ErrorName.DOCUMENT_ALREADY_REVERSED}
    assert catalog.payment_card_insert.errors == {21: ErrorName.CARD_EXPIRED}


async def test_a_write_that_timed_out_is_not_sent_again(standin: StandIn) -> None:
    standin.fail_with("send_payment_notification", httpx.ReadTimeout("slow"), times=5)
    async with standin.client(retries=3) as client:
        with pytest.raises(IspTimeout):
            await client.send_payment_notification(SAMPLES["send_payment_notification"].request)
    assert standin.calls("send_payment_notification") == 1


# ---- requests ---------------------------------------------------------------------------------------------
def test_sms_options_need_a_phone_and_a_text() -> None:
    with pytest.raises(ValidationError, match="cell_phone_number"):
        f.GetBarcode(banking_billet_id=1, send_barcode=True)
    request = f.GetPixCopiaCola(banking_billet_id=1, send_pix_copia_cola=True, cell_phone_number="(11) 98765-4321",
                                send_content="Seu PIX: |PIX_COPIA_E_COLA|")
    assert request.to_payload()["cell_phone_number"] == "11987654321"


def test_the_receipt_is_sent_in_base_64_but_never_shown() -> None:
    request = SAMPLES["send_payment_notification"].request
    payload = request.to_payload()
    assert payload["file"] == {"name": "comprovante.pdf", "data": base64.b64encode(PDF).decode()}
    assert payload["payment_date"] == "2024-05-09"
    assert base64.b64encode(PDF).decode() not in repr(request) + str(request)


def test_card_number_and_security_code_are_redacted_but_sent(caplog: pytest.LogCaptureFixture) -> None:
    request = SAMPLES["payment_card_insert"].request
    logging.getLogger("test").warning("request %r / %s", request, request)
    for shown in (repr(request), str(request), caplog.text):
        assert CARD not in shown and CVV not in shown
    card = request.to_payload()["card"]
    assert card["number"] == CARD and card["security_code"] == CVV


@pytest.mark.parametrize(("field", "value"), [("number", "4111"), ("security_code", "12"),
                                              ("expiration_date", "13/2030")])
def test_card_shapes_are_checked_without_echoing_the_value(field: str, value: str) -> None:
    data = {"number": CARD, "holder": "A", "expiration_date": "12/2030", "brand": "visa", "type": "credit",
            "security_code": CVV} | {field: value}
    with pytest.raises(ValidationError) as caught:
        f.PaymentCard.model_validate(data)
    assert CARD not in str(caught.value) and CVV not in str(caught.value)


def test_pre_billing_period_is_yyyymm() -> None:
    with pytest.raises(ValidationError, match="period"):
        f.PreBillingInsert(customer_id=1, contract_id=1, period="2024-06", type="increase", description="x",
                           value=Decimal("1"))


# ---- the PIX BR Code ----------------------------------------------------------------------------------------
def test_crc16_ccitt_matches_the_reference_check_value() -> None:
    assert crc16_ccitt(b"123456789") == 0x29B1


def test_a_well_formed_code_is_accepted_with_its_amount() -> None:
    parsed = parse_br_code(f"  {PIX}\n")
    assert parsed is not None and parsed.code == PIX and parsed.amount == Decimal("129.90")


def test_a_published_example_code_is_accepted() -> None:
    # The central bank's manual example (static key, no amount), CRC included as published.
    example = ("00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913"
               "Fulano de Tal6008BRASILIA62070503***63041D3D")
    parsed = parse_br_code(example)
    assert parsed is not None and parsed.amount is None


@pytest.mark.parametrize("broken", [
    PIX[:-1] + ("0" if PIX[-1] != "0" else "1"),                  # wrong CRC
    PIX.replace("5802BR", "5802US"),                               # not Brazil (CRC no longer right either)
    with_crc("000201" + "26180014br.gov.bcb.xyz" + "5802BR"),      # not a PIX account
    with_crc("000201" + "2630" + "0014br.gov.bcb.pix0136abc" + "5802BR"),  # a length that overruns
    with_crc("0002012630" + "0014br.gov.bcb.pix0108abcdefgh" + "54040.00" + "5802BR"),  # amount zero
    "", "hello", None,
])
def test_broken_codes_are_refused(broken: str | None) -> None:
    assert parse_br_code(broken) is None


def test_the_sample_document_date_is_kept() -> None:
    assert SAMPLES["get_unpaid_document"].request.to_payload() == {"customer_id": 1532}
    assert f.GetBankingBillet(document_id=1, due_date=date(2024, 5, 1)).to_payload()["due_date"] == "2024-05-01"
