"""Paying from the chat over Telegram, through the fake Bot API: the PIX code, the QR code as a photo
(sendPhoto), the bill's PDF as a document (sendDocument, uploaded), and "I have paid" with a receipt
fetched with getFile when it comes (to read it) and when it is sent (to attach it: its bytes are
never kept in the chat's state)."""

from __future__ import annotations

import base64
import hashlib

from bot.channels.telegram.render import render
from bot.isp.pix import parse_br_code
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.store import Database
from flows.replies import Upload

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import running_bot

RECEIPT = b"%PDF-1.4\n% comprovante\n%%EOF\n"


def test_an_upload_renders_as_a_photo_or_a_document_with_its_bytes() -> None:
    (photo,) = render(Upload("photo", b"\x89PNG...", "pix.png", "<b>QR</b>"), 42)
    assert photo.method == "sendPhoto" and photo.params["caption"] == "<b>QR</b>"
    assert base64.b64decode(photo.params["photo"]["ispbot_upload"]) == b"\x89PNG..."
    long_caption = "x" * 1500
    text, document = render(Upload("document", b"%PDF", "boleto.pdf", long_caption), 42)
    assert text.method == "sendMessage" and document.method == "sendDocument" and "caption" not in document.params
    assert document.params["document"]["filename"] == "boleto.pdf"


async def test_pix_qr_and_pdf_reach_telegram(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = await bot.maria(7301)
        await chat.say("/boleto")
        await chat.tap("28/03/2025")
        await chat.tap("PIX copia e cola")
        pix = next(s.text for s in chat.replies if s.text and "<code>000201" in s.text)
        assert parse_br_code(pix.split("<code>")[1].split("</code>")[0]) is not None  # alone in a copy block
        await chat.tap("QR code")
        photos = [s for s in chat.replies if s.method == "sendPhoto"]
        assert len(photos) == 1 and isinstance(photos[0].params["photo"], bytes)
        assert photos[0].params["photo"].startswith(b"\x89PNG") and "QR code PIX" in (photos[0].text or "")
        await chat.tap("Boleto em PDF")
        documents = [s for s in chat.replies if s.method == "sendDocument"]
        assert len(documents) == 1 and isinstance(documents[0].params["document"], bytes)
        assert documents[0].params["document"].startswith(b"%PDF")
        assert documents[0].params["_filename"] == "boleto-2025-03-28.pdf"


async def test_i_have_paid_reads_the_receipt_and_tells_the_ticket(database: Database,
                                                                        sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = await bot.maria(7302)
        bot.api.add_file("RECEIPT1", RECEIPT)
        await chat.send(tg.document_message(chat.chat_id, "comprovante.pdf", file_id="RECEIPT1",
                                            file_size=len(RECEIPT)))
        assert "Qual boleto você pagou" in chat.text
        await chat.tap("28/03/2025")
        await chat.tap("Hoje")
        assert "comprovante.pdf" in chat.text and bot.api.calls["getFile"] == 1  # read when it came
        await chat.tap("Enviar")
        assert "Chamado nº" in chat.text
        assert bot.api.calls["getFile"] == 2 and bot.api.calls["(download)"] == 2  # and attached
        (notice,) = sandbox.store.rows("payment_notifications")
        assert notice["file_sha256"] == hashlib.sha256(RECEIPT).hexdigest() and notice["document_id"] == D.open_document


async def test_an_oversized_receipt_is_refused_before_any_download(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = await bot.maria(7303)
        await chat.say("/boleto")
        await chat.tap("28/03/2025")
        await chat.tap("Já paguei")
        await chat.tap("Ontem")
        await chat.send(tg.document_message(chat.chat_id, "extrato.pdf", file_id="BIG", file_size=12 * 1024 * 1024))
        assert "grande demais" in chat.text
        assert bot.api.calls["getFile"] == 0 and list(sandbox.store.rows("payment_notifications")) == []


async def test_the_screenshot_sent_at_the_bills_card_after_the_pix_is_that_bills_receipt(database: Database,
                                                                                         sandbox: Sandbox) -> None:
    screenshot = b"\xff\xd8\xff\xe0 comprovante PIX"
    async with running_bot(database, sandbox) as bot:
        chat = await bot.maria(7304)
        await chat.say("/boleto")
        await chat.tap("28/03/2025")
        await chat.tap("PIX copia e cola")
        bot.api.add_file("PHOTO2", screenshot)  # the largest size of the photo, the one the bot takes
        await chat.send(tg.photo_message(chat.chat_id))
        assert len(chat.replies) == 1  # one message for the turn
        assert "Recebi o comprovante" in chat.text and "28/03/2025" in chat.text and "Quando você pagou" in chat.text
        assert "Toque no botão" not in chat.text
        await chat.tap("Hoje")
        assert "Confere?" in chat.text and bot.api.calls["getFile"] == 1  # read when it came
        await chat.tap("Enviar")
        assert "Chamado nº" in chat.text and bot.api.calls["getFile"] == 2
        (notice,) = sandbox.store.rows("payment_notifications")
        assert notice["document_id"] == D.open_document
        assert notice["file_sha256"] == hashlib.sha256(screenshot).hexdigest()
