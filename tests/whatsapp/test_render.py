"""Replies as Cloud API messages: WhatsApp's markup, buttons and lists within Meta's limits, long
texts split, codes to copy alone, media uploaded."""

from __future__ import annotations

import base64

from bot.channels.whatsapp.render import (
    MAX_BODY,
    MORE,
    options_message,
    render,
    render_turn,
    shorten,
    split_text,
    to_whatsapp,
)
from flows.replies import AskLocation, Button, Message, Upload

from tests.whatsapp.fake_cloud_api import _invalid

CHAT = (1 << 53) + 1


def test_telegram_html_becomes_whatsapp_markup() -> None:
    assert to_whatsapp("<b>R$ 99,90</b> e <i>vencido</i>") == "*R$ 99,90* e _vencido_"
    assert to_whatsapp("<b> espaço </b>fim") == " *espaço* fim"  # a mark against a word, or WhatsApp shows it
    assert to_whatsapp("linha: <code>0019 2512</code>") == "linha: `0019 2512`"
    assert to_whatsapp("<pre>a\nb</pre>") == "```a\nb```"
    assert to_whatsapp('<a href="https://x.example/b?c=1&amp;d=2">o boleto</a>') == "o boleto (https://x.example/b?c=1&d=2)"
    assert to_whatsapp('<a href="https://x.example">https://x.example</a>') == "https://x.example"
    assert to_whatsapp("5 &lt; 6 &amp; &quot;sim&quot;") == '5 < 6 & "sim"'
    assert to_whatsapp("<s>velho</s> <u>sub</u> <tg-spoiler>x</tg-spoiler>") == "~velho~ sub x"
    assert to_whatsapp("<b>aberto") == "aberto"  # an element never closed: its words stay


def test_up_to_three_short_options_are_reply_buttons() -> None:
    (body,) = options_message("Qual?", [Button("Sim", "t1"), Button("Não", "t2")], language="pt_BR")
    assert body["interactive"]["type"] == "button" and _invalid(body, set()) is None
    assert [b["reply"] for b in body["interactive"]["action"]["buttons"]] == [
        {"id": "t1", "title": "Sim"}, {"id": "t2", "title": "Não"}]


def test_a_label_too_long_for_a_button_goes_in_a_list_with_the_whole_label_beneath() -> None:
    label = "🛠️ Abrir chamado mesmo assim"
    (body,) = options_message("E agora?", [Button(label, "t1"), Button("Menu", "t2")], language="pt_BR")
    assert body["interactive"]["type"] == "list" and _invalid(body, set()) is None
    row = body["interactive"]["action"]["sections"][0]["rows"][0]
    assert len(row["title"]) <= 24 and row["title"].endswith("…") and row["description"] == label
    assert body["interactive"]["action"]["button"] == "Ver opções"


def test_titles_are_cut_at_a_word() -> None:
    assert shorten("R$ 99,90 · 26/02/2025 (vencido)", 24) == "R$ 99,90 · 26/02/2025…"
    assert shorten("curto", 24) == "curto"
    assert len(shorten("x" * 40, 20)) == 20


def test_more_than_ten_options_come_in_pages_of_nine_and_a_more_row() -> None:
    buttons = [Button(f"Opção {n}", f"t{n}") for n in range(23)]
    (first,) = options_message("Escolha", buttons, language="en")
    rows = first["interactive"]["action"]["sections"][0]["rows"]
    assert len(rows) == 10 and rows[-1]["id"] == f"{MORE}9" and rows[-1]["title"] == "➡️ More options"
    (last,) = options_message("Escolha", buttons, language="en", start=18)
    assert [r["id"] for r in last["interactive"]["action"]["sections"][0]["rows"]] == [f"t{n}" for n in range(18, 23)]
    assert _invalid(first, set()) is None and _invalid(last, set()) is None


def test_a_long_text_is_split_at_lines_and_its_options_ride_the_last_part() -> None:
    text = "\n".join(f"linha {n} " + "x" * 80 for n in range(80))
    calls = render(Message(text, ((Button("Ok", "t"),),)), CHAT, "5511987654321", "pt_BR")
    assert all(len(c.body["text"]["body"]) <= 4096 for c in calls[:-1])
    assert calls[-1].body["type"] == "interactive" and len(calls[-1].body["interactive"]["body"]["text"]) <= MAX_BODY
    assert "".join(split_text(text, 4096)).replace("\n", "") == text.replace("\n", "")


def test_a_pix_code_goes_first_and_alone_and_the_texts_join_the_options() -> None:
    code = "00020101021226580014br.gov.bcb.pix0136abc520400005303986540599.905802BR6304ABCD"
    replies = [Message(f"💠 PIX de <b>R$ 99,90</b>:\n<code>{code}</code>"),
               Message("O que mais?", ((Button("Menu", "t1"), Button("QR", "t2")),))]
    first, second = render_turn(replies, CHAT, "5511987654321", "pt_BR")
    assert first.body == {"type": "text", "text": {"body": code, "preview_url": False}}
    assert second.body["interactive"]["body"]["text"].startswith("💠 PIX de *R$ 99,90*")
    assert second.body["interactive"]["body"]["text"].endswith("O que mais?")


def test_media_is_uploaded_and_a_location_is_asked_with_whatsapps_button() -> None:
    (photo,) = render(Upload("photo", b"\x89PNG...", "pix.png", "<b>QR</b>"), CHAT, None, "pt_BR")
    assert photo.kind == "upload" and photo.body["type"] == "image" and photo.body["caption"] == "*QR*"
    assert base64.b64decode(photo.body["data"]) == b"\x89PNG..." and photo.body["mime"] == "image/png"
    (ask,) = render(AskLocation("Envie sua <b>localização</b>", "📍"), CHAT, None, "pt_BR")
    assert ask.body["interactive"]["type"] == "location_request_message"
    assert ask.body["interactive"]["action"] == {"name": "send_location"}
    assert _invalid(ask.body, set()) is None
