"""Engine replies as Bot API calls: HTML, keyboards, callback size, splitting, documents, topics."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from bot.channels.telegram.render import MAX_TEXT, ApiCall, render, render_turn, split_html, utf16_len
from flows.desk import Attachment
from flows.replies import AskContact, AskLocation, Button, Copy, Document, Handoff, Message, Upload


class _Balance(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.stack: list[str] = []
        self.ok = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.ok = False


def balanced(html: str) -> bool:
    parser = _Balance()
    parser.feed(html)
    parser.close()
    return parser.ok and not parser.stack


def no_broken_atoms(part: str) -> bool:
    """No half tag (< without >) and no half entity at either end."""
    return part.count("<") == part.count(">") and not re.search(r"&[#A-Za-z0-9]*$", part)


def test_message_is_html_with_inline_keyboard_of_tokens() -> None:
    reply = Message(
        "<b>Escolha</b> uma opção", ((Button("2ª via", "t1"), Button("Chamado", "t2")), (Button("Sair", "t3"),))
    )
    [call] = render(reply, 42)
    assert call == ApiCall(
        "sendMessage",
        {
            "chat_id": 42,
            "text": "<b>Escolha</b> uma opção",
            "parse_mode": "HTML",
            "reply_markup": {
                "inline_keyboard": [
                    [{"text": "2ª via", "callback_data": "t1"}, {"text": "Chamado", "callback_data": "t2"}],
                    [{"text": "Sair", "callback_data": "t3"}],
                ]
            },
        },
    )
    assert call.chat_id == 42


def test_message_without_buttons_has_no_markup() -> None:
    [call] = render(Message("oi"), 7)
    assert "reply_markup" not in call.params


@pytest.mark.parametrize("token", ["x" * 65, "ç" * 33, ""])
def test_callback_token_must_fit_64_bytes(token: str) -> None:
    with pytest.raises(ValueError, match="1-64 bytes"):
        render(Message("a", ((Button("b", token),),)), 1)


def test_callback_token_of_exactly_64_bytes_is_accepted() -> None:
    [call] = render(Message("a", ((Button("b", "ç" * 32),),)), 1)
    assert call.params["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "ç" * 32


@pytest.mark.parametrize(
    ("reply", "wanted"),
    [
        (AskLocation("Onde você está?", "📍 Enviar local"), "request_location"),
        (AskContact("Seu número?", "📱 Enviar"), "request_contact"),
    ],
)
def test_ask_location_and_contact_use_one_time_reply_keyboard(reply: AskLocation | AskContact, wanted: str) -> None:
    [call] = render(reply, 5)
    assert call.method == "sendMessage"
    assert call.params["text"] == reply.text
    assert call.params["parse_mode"] == "HTML"
    assert call.params["reply_markup"] == {
        "keyboard": [[{"text": reply.button, wanted: True}]],
        "resize_keyboard": True,
        "one_time_keyboard": True,
    }


def test_pdf_link_is_sent_as_document_with_html_caption() -> None:
    [call] = render(Document("https://isp.example/boletos/123.PDF?k=1", "<b>Boleto</b> de março"), 9)
    assert call == ApiCall(
        "sendDocument",
        {
            "chat_id": 9,
            "document": "https://isp.example/boletos/123.PDF?k=1",
            "caption": "<b>Boleto</b> de março",
            "parse_mode": "HTML",
        },
    )


def test_link_that_is_not_a_file_is_sent_as_an_escaped_link() -> None:
    [call] = render(Document("https://isp.example/pay?a=1&b=<2>", "Pague aqui"), 9)
    assert call.method == "sendMessage"
    assert call.params["text"] == (
        'Pague aqui\n<a href="https://isp.example/pay?a=1&amp;b=&lt;2&gt;">https://isp.example/pay?a=1&amp;b=&lt;2&gt;</a>'
    )
    assert balanced(call.params["text"])


def test_document_caption_too_long_goes_first_as_a_message() -> None:
    caption = "linha\n" * 300
    calls = render(Document("https://isp.example/a.pdf", caption), 3)
    assert [c.method for c in calls] == ["sendMessage", "sendDocument"]
    assert "caption" not in calls[1].params


def test_handoff_renders_nothing() -> None:
    assert render(Handoff("human", ticket=5), 1) == []


def test_a_staff_members_photo_is_copied_from_the_desk_only_within_telegram() -> None:
    held = Attachment("telegram", -1001234567890, 77, "photo")
    assert render(Copy(held), 42) == [
        ApiCall("copyMessage", {"chat_id": 42, "from_chat_id": -1001234567890, "message_id": 77}),
    ]
    assert render(Copy(Attachment("whatsapp", 5511, 9, "photo")), 42) == []  # the words describe it instead


def test_forum_topic_reply_carries_thread_id_on_every_part() -> None:
    calls = render(Message("\n".join(["x" * 100] * 100), ((Button("ok", "t"),),)), -100123, message_thread_id=77)
    assert len(calls) == 3
    assert all(c.params["message_thread_id"] == 77 and c.params["chat_id"] == -100123 for c in calls)
    [plain] = render(Message("oi"), -100123)
    assert "message_thread_id" not in plain.params


def test_long_text_splits_at_line_breaks_with_keyboard_on_last_part() -> None:
    lines = [f"linha {i:04d} <b>negrito</b> &amp; mais" for i in range(400)]
    text = "\n".join(lines)
    calls = render(Message(text, ((Button("ok", "t"),),)), 1)
    assert len(calls) > 1
    parts = [c.params["text"] for c in calls]
    assert all(utf16_len(p) <= MAX_TEXT for p in parts)
    assert all(balanced(p) and no_broken_atoms(p) for p in parts)
    assert "\n".join(parts) == text  # nothing lost, nothing added: cuts fall exactly on line breaks
    assert ["reply_markup" in c.params for c in calls] == [False] * (len(calls) - 1) + [True]


def test_split_keeps_a_multiline_element_whole() -> None:
    pre = "<pre>" + "\n".join(["codigo"] * 200) + "</pre>"  # about 1.4k characters over many lines
    text = "\n".join(["intro " * 100, pre, "fim " * 600])
    parts = split_html(text)
    assert all(utf16_len(p) <= MAX_TEXT for p in parts)
    assert all(balanced(p) for p in parts)
    assert sum(p.count("<pre>") for p in parts) == 1
    assert any(pre in p for p in parts)


def test_length_is_counted_in_utf16_units() -> None:
    emoji_line = "😀" * 1500  # 3000 UTF-16 units in 1500 code points
    parts = split_html("\n".join([emoji_line, emoji_line]))
    assert parts == [emoji_line, emoji_line]


def test_one_line_longer_than_the_limit_is_cut_at_whitespace_with_tags_reopened() -> None:
    words = " ".join(f"palavra{i}" for i in range(1200))  # about 11k characters, one line
    text = f'<b>Atenção:</b> <a href="https://x.example/?a=1&amp;b=2">{words}</a> &lt;fim&gt;'
    parts = split_html(text)
    assert len(parts) >= 3
    assert all(utf16_len(p) <= MAX_TEXT for p in parts)
    assert all(balanced(p) and no_broken_atoms(p) for p in parts)
    assert all(p.startswith('<a href="https://x.example/?a=1&amp;b=2">') for p in parts[1:])
    assert all(p.endswith(("</a>", "&lt;fim&gt;")) for p in parts)
    # Removing the added closers/openers gives back the original text.
    rejoined = parts[0].removesuffix("</a>")
    for p in parts[1:]:
        rejoined += p.removeprefix('<a href="https://x.example/?a=1&amp;b=2">').removesuffix("</a>")
    assert rejoined == text


def test_one_word_longer_than_the_limit_is_cut_hard_between_atoms() -> None:
    text = "<i>" + "&amp;" * 2000 + "</i>"
    parts = split_html(text, limit=1000)
    assert all(utf16_len(p) <= 1000 for p in parts)
    assert all(balanced(p) and no_broken_atoms(p) for p in parts)
    assert "".join(p.removeprefix("<i>").removesuffix("</i>") for p in parts) == "&amp;" * 2000


def test_short_and_blank_texts() -> None:
    assert split_html("oi") == ["oi"]
    assert split_html("  \n ") == []
    assert render(Message(""), 1) == []


# ---- one message per turn ---------------------------------------------------------------------
MENU = ((Button("Menu", "t:menu"),),)


def test_the_texts_of_a_turn_go_as_one_message_with_the_last_buttons() -> None:
    calls = render_turn([Message("<b>Ajuda</b>"), Message("Para começar, vincule.", MENU)], 5)
    assert [call.method for call in calls] == ["sendMessage"]
    assert calls[0].params["text"] == "<b>Ajuda</b>\n\nPara começar, vincule."
    assert calls[0].params["reply_markup"] == {"inline_keyboard": [[{"text": "Menu", "callback_data": "t:menu"}]]}


def test_a_text_with_buttons_keeps_them_and_its_own_message() -> None:
    calls = render_turn([Message("Escolha a fatura", MENU), Message("Algo mais?")], 5)
    assert [call.params["text"] for call in calls] == ["Escolha a fatura", "Algo mais?"]
    assert "reply_markup" in calls[0].params


def test_a_question_for_the_location_takes_the_text_before_it() -> None:
    calls = render_turn([Message("Vou registrar."), AskLocation("Envie sua localização", "📍 Enviar")], 5)
    assert len(calls) == 1 and calls[0].params["reply_markup"]["keyboard"][0][0]["request_location"] is True


def test_texts_that_do_not_fit_one_message_stay_apart_and_documents_end_a_run() -> None:
    long = "a" * (MAX_TEXT - 10)
    assert len(render_turn([Message(long), Message("b" * 20)], 5)) == 2
    calls = render_turn([Message("x"), Document("https://isp.example/b.pdf", ""), Message("y" * 1025)], 5)
    assert [call.method for call in calls] == ["sendMessage", "sendDocument", "sendMessage"]


def test_the_question_after_a_photo_or_a_document_goes_in_its_caption_with_the_buttons() -> None:
    calls = render_turn([Upload("photo", b"\x89PNG", "pix.png", "<b>QR</b>"), Message("Algo mais?", MENU)], 5)
    assert [call.method for call in calls] == ["sendPhoto"]
    assert calls[0].params["caption"] == "<b>QR</b>\n\nAlgo mais?" and calls[0].params["parse_mode"] == "HTML"
    assert calls[0].params["reply_markup"] == {"inline_keyboard": [[{"text": "Menu", "callback_data": "t:menu"}]]}
    (document,) = render_turn([Document("https://isp.example/b.pdf", ""), Message("Algo mais?")], 5)
    assert document.params["caption"] == "Algo mais?" and "reply_markup" not in document.params
    # A caption holds 1,024 characters: a longer question goes as its own message.
    calls = render_turn([Upload("document", b"%PDF", "b.pdf", "x" * 1000), Message("y" * 30, MENU)], 5)
    assert [call.method for call in calls] == ["sendDocument", "sendMessage"]
    assert "reply_markup" not in calls[0].params and "reply_markup" in calls[1].params
