"""The generation-2.0 finance group (third document) over raw HTTP: bills, slips, PIX, receipts, invoices."""

from __future__ import annotations

import base64
import binascii
import io
import re
import threading
import zlib
from typing import Any

import httpx
import pytest
import segno
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import HOMOLOGATION_KEY, RESTRICTED_KEY, FixedClock, Sandbox, paperwork
from bot.sandbox.registry import OPERATIONS
from bot.sandbox.variants import FINANCE
from PIL import Image

from tests.sandbox.conftest import Api, fail2, ok2


def tlv(payload: str) -> dict[str, str]:
    """An EMV payload's top-level fields (tag -> value), read independently of the sandbox."""
    fields, at = {}, 0
    while at < len(payload):
        tag, size = payload[at : at + 2], int(payload[at + 2 : at + 4])
        fields[tag] = payload[at + 4 : at + 4 + size]
        at += 4 + size
    assert at == len(payload), payload
    return fields


def crc_ok(payload: str) -> bool:
    body, crc = payload[:-4], payload[-4:]
    return body.endswith("6304") and f"{binascii.crc_hqx(body.encode(), 0xFFFF):04X}" == crc


def pdf_text(pdf: bytes) -> str:
    """The PDF's content streams, inflated, as text (enough to find what the page prints)."""
    texts = []
    for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            texts.append(zlib.decompress(stream).decode("latin-1"))
        except zlib.error:
            texts.append(stream.decode("latin-1"))
    return "\n".join(texts)


async def bills(api: Api, customer: int) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = ok2(await api.v2("get_unpaid_document", {"customer_id": customer}))
    return result


async def no_pix_bill(api: Api) -> dict[str, Any]:
    return next(b for b in await bills(api, D.company) if D.no_pix_contract in b["contracts"])


def receipt(data: bytes = b"%PDF-1.4 comprovante") -> dict[str, str]:
    return {"name": "comprovante.pdf", "data": base64.b64encode(data).decode()}


# ---- open bills -----------------------------------------------------------------------------------
async def test_unpaid_documents_match_generation_one_and_add_what_is_due_today(api: Api, clock: FixedClock) -> None:
    listed = await bills(api, D.customer)
    opened = await api.rows("ConsultaDocumentosAbertos", f"CliFor = {D.customer}")
    assert sorted(b["id"] for b in listed) == sorted(int(row["Sequencia"]) for row in opened)
    for bill in listed:
        row = next(r for r in opened if int(r["Sequencia"]) == bill["id"])
        assert bill["due_date"] == row["Vencimento"] and bill["value_init"] == float(row["Valor"])
        assert bill["document_number"] == row["Documento"] and bill["contracts"] == [D.contract]
        assert bill["value_up"] == round(
            bill["value_init"] + bill["value_interest"] + bill["value_fine"] - bill["value_discount"], 2
        )
    overdue, upcoming = listed  # sorted by due date
    assert overdue["id"] == D.overdue_document and upcoming["id"] == D.open_document
    # 12 days late on R$ 99.90: a 2% fine and 1% a month by the day.
    assert (overdue["value_fine"], overdue["value_interest"], overdue["value_up"]) == (2.0, 0.4, 102.3)
    assert upcoming["value_up"] == upcoming["value_init"] == 99.9
    assert overdue["address"]["city"] and overdue["source"] == "Billing"
    clock.advance(days=18)
    later = await bills(api, D.customer)
    assert later[0]["value_interest"] == 1.0 and later[0]["value_up"] == 102.9


async def test_unpaid_documents_refusals_and_account_filter(api: Api) -> None:
    fail2(await api.v2("get_unpaid_document", {}), 3)
    fail2(await api.v2("get_unpaid_document", {"customer_id": 424242}), 7)
    assert await bills(api, D.customer)
    assert ok2(await api.v2("get_unpaid_document", {"customer_id": D.customer, "account_list": [3]})) == []
    company = ok2(await api.v2("get_unpaid_document", {"customer_id": D.company, "account_number": 3}))
    assert [b["bank"] for b in company] == [756]


# ---- PIX ------------------------------------------------------------------------------------------
async def test_pix_code_is_a_valid_br_code_for_the_amount_due_today(api: Api) -> None:
    code = ok2(await api.v2("get_pix_copia_cola", {"banking_billet_id": D.overdue_document}))
    assert code.startswith("000201") and crc_ok(code)
    fields = tlv(code)
    account = tlv(fields["26"])
    assert account["00"] == "br.gov.bcb.pix" and account["01"]
    assert fields["53"] == "986" and fields["58"] == "BR" and fields["52"] == "0000"
    assert fields["54"] == "102.30"  # value_up, not the original 99.90
    assert 0 < len(fields["59"]) <= 25 and 0 < len(fields["60"]) <= 15
    assert re.fullmatch(r"[A-Za-z0-9]{1,25}", tlv(fields["62"])["05"])
    tampered = code[:-10] + ("1" if code[-10] != "1" else "2") + code[-9:]
    assert not crc_ok(tampered)


async def test_pix_qr_png_holds_the_same_code(api: Api) -> None:
    code = ok2(await api.v2("get_pix_copia_cola", {"banking_billet_id": D.overdue_document}))
    png = base64.b64decode(ok2(await api.v2("get_pix_qrcode", {"banking_billet_id": D.overdue_document})))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    matrix = segno.make_qr(code, error="m").matrix
    image = Image.open(io.BytesIO(png)).convert("L")
    scale = image.width // (len(matrix) + 8)  # a 4-module quiet zone on each side
    assert image.width == image.height == scale * (len(matrix) + 8)
    read = [
        [image.getpixel(((4 + x) * scale + scale // 2, (4 + y) * scale + scale // 2)) < 128 for x in range(len(matrix))]
        for y in range(len(matrix))
    ]
    assert read == [[bool(dark) for dark in row] for row in matrix]


async def test_a_bank_without_pix_answers_16_but_still_has_line_and_slip(api: Api) -> None:
    bill = await no_pix_bill(api)
    fail2(await api.v2("get_pix_copia_cola", {"banking_billet_id": bill["id"]}), 16)
    fail2(await api.v2("get_pix_qrcode", {"banking_billet_id": bill["id"]}), 16)
    line = ok2(await api.v2("get_barcode", {"banking_billet_id": bill["id"]}))
    assert line.startswith("7569")
    slip = ok2(await api.v2("get_banking_billet", {"document_id": bill["id"]}))
    assert "Pague com PIX" not in pdf_text(base64.b64decode(slip["banking_billet_base64"]))
    fail2(await api.v2("get_pix_copia_cola", {"banking_billet_id": 999999}), 16)


async def test_pix_work_runs_off_the_event_loop(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[threading.Thread] = []
    real = paperwork.qr_png

    def spy(payload: str) -> bytes:
        threads.append(threading.current_thread())
        return real(payload)

    monkeypatch.setattr(paperwork, "qr_png", spy)
    ok2(await api.v2("get_pix_qrcode", {"banking_billet_id": D.overdue_document}))
    assert threads and threads[0] is not threading.current_thread()


# ---- digitable line and slip ------------------------------------------------------------------------
async def test_barcode_is_printed_in_groups_and_moves_to_a_new_due_date(api: Api, sb: Sandbox) -> None:
    printed = ok2(await api.v2("get_barcode", {"banking_billet_id": D.open_document}))
    assert re.fullmatch(r"\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}", printed)
    stored = sb.store.find("documents", Sequencia=D.open_document)
    assert stored is not None and re.sub(r"\D", "", printed) == stored["linha_digitavel"]
    late = {"banking_billet_id": D.overdue_document}
    fail2(await api.v2("get_barcode", {**late, "banking_billet_due_date": "2025-03-01"}), 6)
    moved = ok2(await api.v2("get_barcode", {**late, "banking_billet_due_date": "2025-03-15"}))
    assert moved.endswith("0000010247")  # 17 days late by then: 99.90 + 2.00 fine + 0.57 interest
    fail2(await api.v2("get_barcode", {"banking_billet_id": 999999}), 5)


async def test_barcode_by_sms_needs_phone_and_placeholder(api: Api, sb: Sandbox) -> None:
    ask = {"banking_billet_id": D.open_document, "send_barcode": True}
    fail2(await api.v2("get_barcode", ask), 3)
    fail2(await api.v2("get_barcode", {**ask, "cell_phone_number": "119", "send_content": "x |BARCODE|"}), 10)
    line = ok2(
        await api.v2("get_barcode", {**ask, "cell_phone_number": D.customer_mobile, "send_content": "Linha: |BARCODE|"})
    )
    assert sb.store.rows("sms_outbox")[-1] == {
        "phone": D.customer_mobile,
        "text": f"Linha: {line}",
        "sent": "2025-03-10 09:30:00",
    }


async def test_slip_pdf_names_the_amount_and_its_link_expires(
    api: Api, http: httpx.AsyncClient, clock: FixedClock, sb: Sandbox
) -> None:
    slip = ok2(await api.v2("get_banking_billet", {"document_id": D.overdue_document}))
    assert slip["banking_billet_available"] == 15
    pdf = base64.b64decode(slip["banking_billet_base64"])
    assert pdf.startswith(b"%PDF") and b"%%EOF" in pdf[-10:]
    text = pdf_text(pdf)
    assert "R$ 102,30" in text and "R$ 99,90" in text
    assert "100001" in text and "Maria Aparecida da Silva" in text
    link = httpx.URL(slip["banking_billet_link"])
    assert link.host == "sandbox" and link.path.startswith("/temp/")
    fetched = await http.get(link.path)
    assert fetched.status_code == 200 and fetched.headers["content-type"] == "application/pdf"
    assert "R$ 102,30" in pdf_text(fetched.content)
    clock.advance(minutes=14)
    assert (await http.get(link.path)).status_code == 200
    clock.advance(minutes=2)
    assert (await http.get(link.path)).status_code == 404
    assert (await http.get("/temp/not-a-token.pdf")).status_code == 404
    assert sb.call_count("temporary_file") == 4


async def test_slip_refusals_and_a_second_new_due_date(api: Api) -> None:
    fail2(await api.v2("get_banking_billet", {}), 3)
    fail2(await api.v2("get_banking_billet", {"document_id": 999999}), 5)
    fail2(await api.v2("get_banking_billet", {"document_id": D.overdue_document, "due_date": "2025-03-01"}), 7)
    moved = ok2(await api.v2("get_banking_billet", {"document_id": D.overdue_document, "due_date": "2025-03-12"}))
    assert "12/03/2025" in pdf_text(base64.b64decode(moved["banking_billet_base64"]))
    fail2(await api.v2("get_banking_billet", {"document_id": D.overdue_document, "due_date": "2025-03-13"}), 7)
    ok2(await api.v2("get_banking_billet", {"document_id": D.overdue_document}))  # without due_date it still works


# ---- "I have paid" ----------------------------------------------------------------------------------
async def test_payment_notification_opens_a_listed_ticket_and_refuses_a_second(api: Api, sb: Sandbox) -> None:
    content = b"%PDF-1.4 comprovante do banco"
    notice = {
        "document_id": D.overdue_document,
        "customer_id": D.customer,
        "payment_date": "2025-03-09",
        "file": receipt(content),
    }
    answer = ok2(await api.v2("send_payment_notification", notice))
    assert isinstance(answer["ticket_id"], str) and answer["message"]
    tickets = await api.rows("ConsultaAtendimentos", f"Numero = {answer['ticket_id']}")
    assert len(tickets) == 1 and tickets[0]["CodigoCliente"] == str(D.customer)
    assert "100001" in tickets[0]["Assunto"] and not tickets[0]["Encerramento_DataHora"]
    (kept,) = sb.store.rows("payment_notifications")
    assert kept["file_size"] == len(content) and kept["file_name"] == "comprovante.pdf"
    assert "data" not in kept and content.decode() not in str(sb.export())  # the receipt itself is not kept
    fail2(await api.v2("send_payment_notification", notice), 21)
    fail2(await api.v2("send_payment_notification", {**notice, "payment_date": "2025-03-10"}), 21)
    assert len(await api.rows("ConsultaAtendimentos", f"CodigoCliente = {D.customer}")) == 3  # two seeded + one


async def test_payment_notification_refusals_leave_nothing_behind(api: Api, sb: Sandbox) -> None:
    notice = {"document_id": D.open_document, "customer_id": D.customer, "payment_date": "2025-03-10"}
    tickets = len(sb.store.rows("tickets"))
    fail2(await api.v2("send_payment_notification", notice), 3)
    fail2(await api.v2("send_payment_notification", {**notice, "file": {"name": "x.jpg", "data": "not base 64!"}}), 10)
    big = b"\xff" * (sb.settings.receipt_max_bytes + 1)
    fail2(await api.v2("send_payment_notification", {**notice, "file": receipt(big)}), 10)
    fail2(await api.v2("send_payment_notification", {**notice, "payment_date": "2025-03-11", "file": receipt()}), 10)
    fail2(await api.v2("send_payment_notification", {**notice, "customer_id": D.company, "file": receipt()}), 5)
    assert len(sb.store.rows("tickets")) == tickets and not sb.store.rows("payment_notifications")
    homologated = await api.v2("send_payment_notification", {**notice, "file": receipt()}, key=HOMOLOGATION_KEY)
    assert ok2(homologated)["ticket_id"] and not sb.store.rows("payment_notifications")
    ok2(await api.v2("send_payment_notification", {**notice, "file": receipt()}))  # the real one still goes through


async def test_sending_the_slip_by_email(api: Api, sb: Sandbox) -> None:
    mail = {
        "document_id": D.open_document,
        "due_date": "2025-03-28",
        "customer_id": D.customer,
        "customer_email": D.customer_email,
        "email_subject": "Seu boleto",
        "email_body": "Segue o boleto.",
        "email_gateway_id": 1,
    }
    assert D.customer_email in ok2(await api.v2("send_banking_billet", mail))
    assert sb.store.rows("email_outbox")[-1]["to"] == D.customer_email
    fail2(await api.v2("send_banking_billet", {**mail, "due_date": "2025-03-09"}), 25)
    fail2(await api.v2("send_banking_billet", {**mail, "email_gateway_id": 9}), 7)
    fail2(await api.v2("send_banking_billet", {**mail, "customer_id": D.company}), 5)


# ---- invoices -----------------------------------------------------------------------------------------
async def test_fiscal_invoices_and_their_pdfs_with_per_item_errors(api: Api, http: httpx.AsyncClient) -> None:
    invoices = ok2(await api.v2("invoices_issued", {"customer_id": D.company, "model": "21"}))
    assert invoices and all(i["customer_id"] == D.company and isinstance(i["value"], str) for i in invoices)
    assert {i["status"] for i in invoices} == {"canceled", "issued"}
    assert all(len(i["access_key"]) == 44 and i["items"] and i["document"] for i in invoices)
    recent = ok2(await api.v2("invoices_issued", {"customer_id": D.company, "issue": invoices[-1]["issue"]}))
    assert 0 < len(recent) < len(invoices)
    fail2(await api.v2("invoices_issued", {"issue": "10/03/2025"}), 10)
    assert ok2(await api.v2("invoices_issued", {"customer_id": D.customer})) == []

    good = next(i["id"] for i in invoices if i["status"] == "issued")
    answer = await api.v2("invoices_issued_pdf", {"id": [good, D.cancelled_invoice, 999]})
    assert answer["status"] == 0 and answer["error_code"] == 0  # the top level looks fine-ish: read each item
    items = {item["id"]: item for item in answer["result"]}
    assert items[D.cancelled_invoice]["error_code"] == 9 and items[D.cancelled_invoice]["url"] == ""
    assert items[999]["error_code"] == 9
    fetched = await http.get(httpx.URL(items[good]["url"]).path)
    assert fetched.status_code == 200 and fetched.content.startswith(b"%PDF")
    alone = ok2(await api.v2("invoices_issued_pdf", {"id": good}))  # one id instead of a list
    assert alone[0]["error_code"] == 0 and alone[0]["url"]
    fail2(await api.v2("invoices_issued_pdf", {}), 3)


async def test_service_invoice_link(api: Api, http: httpx.AsyncClient, clock: FixedClock) -> None:
    found = ok2(await api.v2("get_service_invoice", {"service_invoice_id": D.service_invoice, "document_id": None}))
    assert found["service_invoice_available"] == 15
    path = httpx.URL(found["service_invoice_link"]).path
    assert (await http.get(path)).content.startswith(b"%PDF")
    clock.advance(minutes=16)
    assert (await http.get(path)).status_code == 404
    fail2(await api.v2("get_service_invoice", {"service_invoice_id": 99}), 7)
    fail2(await api.v2("get_service_invoice", {"service_invoice_id": D.service_invoice, "document_id": 1}), 7)


# ---- back office --------------------------------------------------------------------------------------
async def test_document_insert_delete_and_reversal_codes(api: Api) -> None:
    insert = {
        "id": D.customer,
        "account_id": 1,
        "historic_id": 1,
        "contract_id": [D.contract],
        "installments": [
            {
                "complement": "Visita técnica",
                "due_date": "2025-04-10",
                "punctuality_discount": {"discount_type": "value", "discount_value": 5},
                "items": [{"description": "Visita", "value": 50}, {"description": "Cabo", "value": 10.5}],
            }
        ],
    }
    (new,) = ok2(await api.v2("document_insert", insert))
    bill = next(b for b in await bills(api, D.customer) if b["id"] == new)
    assert (bill["value_init"], bill["value_discount"], bill["value_up"]) == (60.5, 5.0, 55.5)
    assert await api.rows("ConsultaDocumentosAbertos", f"Sequencia = {new}")
    fail2(await api.v2("document_insert", {**insert, "id": 424242}), 7)
    fail2(await api.v2("document_insert", {**insert, "bank": 33}), 10)
    fail2(await api.v2("document_insert", {**insert, "contract_id": [D.blocked_contract]}), 10)
    (sicoob,) = ok2(await api.v2("document_insert", {**insert, "bank": 756, "account_id": 3}))
    fail2(await api.v2("get_pix_copia_cola", {"banking_billet_id": sicoob}), 16)
    assert ok2(await api.v2("document_delete", {"document_id": new, "reason_id": 1}))
    assert await api.rows("ConsultaDocumentosAbertos", f"Sequencia = {new}") == []
    fail2(await api.v2("document_delete", {"document_id": new, "reason_id": 1}), 29)
    fail2(await api.v2("get_pix_copia_cola", {"banking_billet_id": new}), 16)
    fail2(await api.v2("document_payment_reversal", {"document_id": D.open_document, "reason_id": 1}), 15)


async def test_paying_every_overdue_bill_with_unblock_reactivates_the_contract(api: Api) -> None:
    overdue = [b for b in await bills(api, D.blocked_customer) if b["due_date"] < "2025-03-10"]
    assert len(overdue) == 2
    ok2(await api.v2("document_payment", {"document_id": overdue[0]["id"], "unblock_customer": True}))
    contract = await api.rows("ConsultaContratos", f"Numero = {D.blocked_contract}")
    assert contract[0]["Situacao_Codigo"] == "B"  # one bill still overdue
    ok2(await api.v2("document_payment", {"document_id": overdue[1]["id"], "unblock_customer": True}))
    contract = await api.rows("ConsultaContratos", f"Numero = {D.blocked_contract}")
    assert contract[0]["Situacao_Codigo"] == "A"
    settled = await api.rows("ConsultaDocumentosBaixados", f"Sequencia = {overdue[1]['id']}")
    assert float(settled[0]["ValorBaixado"]) == overdue[1]["value_up"]
    fail2(await api.v2("document_payment", {"document_id": overdue[1]["id"]}), 5)
    ok2(await api.v2("document_payment_reversal", {"document_id": overdue[1]["id"], "reason_id": 1}))
    assert any(b["id"] == overdue[1]["id"] for b in await bills(api, D.blocked_customer))


async def test_payment_card_keeps_only_the_last_digits(api: Api, sb: Sandbox) -> None:
    card = {
        "number": "4111111111111111",
        "holder": "MARIA A SILVA",
        "expiration_date": "12/2027",
        "brand": "visa",
        "type": "credit",
        "security_code": "123",
        "generate_token": True,
    }
    person = {"type": "C", "id": D.customer}
    stored = ok2(await api.v2("payment_card_insert", {"person": person, "card": card}))
    assert stored["card_id"] and stored["generated_token"]
    rows = await api.rows("ConsultaCartoesCadastrados", f"CodigoPessoa = {D.customer}")
    assert any(row["UltimosDigitos"] == "1111" for row in rows)
    assert "4111111111111111" not in str(sb.export()) and "'123'" not in str(sb.store.rows("stored_cards"))
    fail2(await api.v2("payment_card_insert", {"person": person, "card": {**card, "expiration_date": "02/2025"}}), 21)
    fail2(await api.v2("payment_card_insert", {"person": person, "card": {**card, "number": "4111111111111112"}}), 10)


async def test_pre_billing_insert(api: Api) -> None:
    entry = {
        "customer_id": D.customer,
        "contract_id": D.contract,
        "period": "202504",
        "type": "increase",
        "description": "Ponto adicional",
        "value": 15,
    }
    answer = ok2(await api.v2("pre_billing_insert", entry))
    assert isinstance(answer["id"], str) and answer["id"].isdigit()
    fail2(await api.v2("pre_billing_insert", {**entry, "contract_id": D.blocked_contract}), 16)
    fail2(await api.v2("pre_billing_insert", {**entry, "period": "202513"}), 10)


async def test_the_read_only_portal_key_reads_bills_but_may_not_notify(api: Api) -> None:
    assert ok2(await api.v2("get_pix_copia_cola", {"banking_billet_id": D.overdue_document}, key=RESTRICTED_KEY))
    notice = {"document_id": D.overdue_document, "customer_id": D.customer, "payment_date": "2025-03-10"}
    fail2(await api.v2("send_payment_notification", {**notice, "file": receipt()}, key=RESTRICTED_KEY), 96)


def test_registry_knows_the_queries_from_the_writes() -> None:
    queries = {name for name in FINANCE if not OPERATIONS[name].writes}
    assert queries == {
        "get_unpaid_document",
        "get_banking_billet",
        "get_barcode",
        "get_pix_copia_cola",
        "get_pix_qrcode",
        "invoices_issued",
        "invoices_issued_pdf",
        "get_service_invoice",
    }
    assert len(FINANCE) == 16 and all(OPERATIONS[name].generation == 2 for name in FINANCE)
