"""Telegram updates as engine events (``bot.channels.telegram.updates``), on the fake API's realistic updates."""

from __future__ import annotations

from typing import Any

import pytest
from bot.channels.telegram.updates import Routed, chat_of, parse, route, route_common, update_id_of
from flows.events import Choice, Command, Contact, FileRef, Location, Media, Start, Text

from telegram import Bot
from tests.telegram import fake_bot_api as tg

BOT = Bot(tg.DEFAULT_TOKEN)
PRIVATE = 7001
OTHER_GROUP = -1009876543210


def routed(raw: dict[str, Any], staff_chat_id: int | None = None) -> Routed | None:
    update = parse({"update_id": 1, **raw}, BOT)
    assert update is not None, "the fake API's updates are all parseable"
    return route(update, staff_chat_id)


def event_of(raw: dict[str, Any]) -> object:
    result = routed(raw)
    assert result is not None
    return result.incoming.event


def test_start_carries_the_deep_link_payload_or_none() -> None:
    assert event_of(tg.start(PRIVATE, "inv-abc_123")) == Start("inv-abc_123")
    assert event_of(tg.start(PRIVATE)) == Start(None)
    assert event_of(tg.text_message(PRIVATE, "/start@ispbot_test_bot inv-9")) == Start("inv-9")


def test_a_command_addressed_to_the_bot_keeps_its_arguments() -> None:
    assert event_of(tg.text_message(PRIVATE, "/boleto@ispbot_test_bot 03/2025  ")) == Command("boleto", "03/2025")
    assert event_of(tg.text_message(PRIVATE, "/AJUDA")) == Command("ajuda", "")
    assert event_of(tg.text_message(PRIVATE, "/chamado sem internet\ndesde ontem")) == Command(
        "chamado", "sem internet\ndesde ontem"
    )


def test_plain_text_and_a_bare_slash_are_text() -> None:
    assert event_of(tg.text_message(PRIVATE, "oi, tudo bem?")) == Text("oi, tudo bem?")
    assert event_of(tg.text_message(PRIVATE, "/")) == Text("/")


def test_the_incoming_names_the_chat_the_language_and_the_person() -> None:
    result = routed(tg.text_message(PRIVATE, "oi"))
    assert result is not None
    assert result.incoming.chat_id == PRIVATE
    assert result.incoming.client_language == "pt-br"
    assert result.incoming.sender_name == "Ana"
    assert (result.thread_id, result.staff) == (None, False)


def test_a_contact_is_own_only_when_it_is_the_senders() -> None:
    assert event_of(tg.contact_message(PRIVATE, "+5511987654321", contact_user_id=PRIVATE)) == Contact(
        "+5511987654321", own=True
    )
    assert event_of(tg.contact_message(PRIVATE, "+5511987654321", contact_user_id=PRIVATE + 1)) == Contact(
        "+5511987654321", own=False
    )
    # A contact typed into the address book has no user_id: never the sender's own.
    assert event_of(tg.contact_message(PRIVATE, "+5511987654321")) == Contact("+5511987654321", own=False)


def test_a_location_is_fixed_and_a_moving_live_location_is_live() -> None:
    assert event_of(tg.location_message(PRIVATE, -23.55, -46.63)) == Location(-23.55, -46.63)
    assert event_of(tg.location_message(PRIVATE, -23.55, -46.63, live_period=900)) == Location(-23.55, -46.63)
    assert event_of(tg.live_location_edit(PRIVATE, 77, -23.56, -46.64)) == Location(-23.56, -46.64, live=True)


def test_edited_text_is_the_next_answer_but_an_edited_command_means_nothing() -> None:
    assert event_of(tg.edited_text(PRIVATE, 12, "rua das flores 10")) == Text("rua das flores 10")
    assert routed(tg.edited_text(PRIVATE, 12, "/boleto")) is None


def test_media_carry_their_kind_and_caption() -> None:
    largest = FileRef("PHOTO2", "photo.jpg", 1280 * 960 // 10, "image/jpeg")
    assert event_of(tg.photo_message(PRIVATE, caption="meu roteador")) == Media("photo", "meu roteador", largest)
    assert event_of(tg.photo_message(PRIVATE)) == Media("photo", "", largest)
    assert event_of(tg.document_message(PRIVATE, caption="comprovante")) == Media(
        "document", "comprovante", FileRef("DOC1", "comprovante.pdf", 48213, "application/pdf"))


def test_a_button_press_in_a_private_chat_is_a_choice() -> None:
    raw = tg.callback_query(PRIVATE, "tok12345")
    result = routed(raw)
    assert result is not None
    assert result.incoming.event == Choice("tok12345")
    assert result.incoming.chat_id == PRIVATE


def test_a_button_press_in_a_group_is_ignored() -> None:
    assert routed(tg.callback_query(tg.STAFF_GROUP_ID, "tok12345", user_id=555), tg.STAFF_GROUP_ID) is None
    assert routed(tg.callback_query(OTHER_GROUP, "tok12345", user_id=555)) is None


def test_only_forum_topics_of_the_staff_group_count_and_they_are_marked_staff() -> None:
    result = routed(tg.topic_message(1001, "cliente resolvido"), tg.STAFF_GROUP_ID)
    assert result is not None
    assert result.staff is True
    assert result.thread_id == 1001
    assert result.incoming.event == Text("cliente resolvido")
    assert result.incoming.chat_id == tg.STAFF_GROUP_ID


@pytest.mark.parametrize(
    ("raw", "staff_chat_id"),
    [
        # A reply carries message_thread_id too, but is no topic message: is_topic_message decides.
        (tg.group_reply(tg.STAFF_GROUP_ID, 55, "ok"), tg.STAFF_GROUP_ID),
        (tg.group_reply(OTHER_GROUP, 55, "ok"), tg.STAFF_GROUP_ID),
        # A forum topic of another group, or of any group when no staff group is configured.
        (tg.topic_message(1001, "oi", chat_id=OTHER_GROUP), tg.STAFF_GROUP_ID),
        (tg.topic_message(1001, "oi"), None),
        (tg.text_message(OTHER_GROUP, "oi", user_id=555), None),
    ],
    ids=["reply-in-staff-group", "reply-in-other-group", "topic-of-other-group", "topic-without-staff-group",
         "plain-group-text"],
)
def test_group_messages_outside_the_staff_topics_are_ignored(raw: dict[str, Any], staff_chat_id: int | None) -> None:
    assert routed(raw, staff_chat_id) is None


def test_an_update_a_strict_parser_refuses_parses_to_none_but_keeps_its_chat() -> None:
    raw = {"update_id": 9, **tg.malformed_update(chat_id=1111111)}
    assert parse(raw, BOT) is None
    assert chat_of(raw) == 1111111
    assert update_id_of(raw) == 9


def test_chat_of_finds_the_chat_of_each_kind_of_update() -> None:
    assert chat_of(tg.text_message(PRIVATE, "oi")) == PRIVATE
    assert chat_of(tg.edited_text(PRIVATE, 3, "oi")) == PRIVATE
    assert chat_of(tg.callback_query(PRIVATE, "tok")) == PRIVATE
    assert chat_of(tg.topic_message(1001, "oi")) == tg.STAFF_GROUP_ID
    # A button on an inline message has no message: the person's own id is the chat.
    assert chat_of({"callback_query": {"id": "1", "from": {"id": 42}, "data": "x"}}) == 42
    assert chat_of({"my_chat_member": {"chat": {"id": PRIVATE}}}) == PRIVATE


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"message": "oi"},
        {"message": None},
        {"message": ["chat"]},
        {"message": {"chat": "7001"}},
        {"message": {"chat": {"id": "7001"}}},
        {"message": {"chat": {"id": True}}},
        {"message": {"chat": {"id": 1.5}}},
        {"callback_query": {"message": {"chat": []}, "from": "someone"}},
        {"callback_query": 12},
        {"poll": {"id": "1"}},
    ],
)
def test_chat_of_junk_is_none_without_raising(raw: dict[str, Any]) -> None:
    assert chat_of(raw) is None


@pytest.mark.parametrize("raw", [None, [], "update", 12, [{"message": {"chat": {"id": 1}}}]])
def test_chat_of_and_update_id_of_take_anything(raw: Any) -> None:
    assert chat_of(raw) is None
    assert update_id_of(raw) is None


@pytest.mark.parametrize("value", ["5", 5.0, True, None, [5]])
def test_update_id_must_be_an_integer(value: Any) -> None:
    assert update_id_of({"update_id": value}) is None
    assert update_id_of({"update_id": 5}) == 5


# ---- the common updates, read straight from the JSON -------------------------------------------------
def _with_keyboard(raw: dict[str, Any]) -> dict[str, Any]:
    """A press as Telegram sends it: the bot's message with its inline keyboard."""
    raw["callback_query"]["message"]["reply_markup"] = {"inline_keyboard": [[
        {"text": "Sim", "callback_data": "tok12345"}, {"text": "Site", "url": "https://example.com"},
    ]]}
    return raw


@pytest.mark.parametrize(
    "raw",
    [
        tg.start(PRIVATE, "inv-abc_123"), tg.start(PRIVATE), tg.text_message(PRIVATE, "/AJUDA"),
        tg.text_message(PRIVATE, "/boleto@ispbot_test_bot 03/2025  "), tg.text_message(PRIVATE, "oi, tudo bem?"),
        tg.text_message(PRIVATE, "/"), tg.text_message(PRIVATE, "oi", user_id=PRIVATE + 1),
        {"message": {**tg.text_message(PRIVATE, "oi")["message"], "from": tg.user(PRIVATE, language_code=None)}},
        tg.callback_query(PRIVATE, "tok12345"), _with_keyboard(tg.callback_query(PRIVATE, "tok12345")),
    ],
)
def test_a_private_text_or_button_is_routed_from_the_json_as_the_full_update_routes_it(raw: dict[str, Any]) -> None:
    assert route_common({"update_id": 1, **raw}) == routed(raw, tg.STAFF_GROUP_ID) is not None


def _set(raw: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    *keys, last = path.split(".")
    target = raw
    for key in keys:
        target = target[key]
    target[last] = value
    return raw


@pytest.mark.parametrize(
    "raw",
    [
        tg.edited_text(PRIVATE, 12, "rua"), tg.contact_message(PRIVATE, "+5511987654321"),
        tg.photo_message(PRIVATE), tg.topic_message(1001, "oi"), tg.text_message(OTHER_GROUP, "oi", user_id=555),
        tg.callback_query(OTHER_GROUP, "tok", user_id=555), tg.callback_query(PRIVATE, ""),
        tg.malformed_update(chat_id=PRIVATE),
        _set(tg.text_message(PRIVATE, "x"), "message.text", 123),
        _set(tg.text_message(PRIVATE, "x"), "message.date", "yesterday"),
        _set(tg.text_message(PRIVATE, "x"), "message.from.is_bot", 0),
        _set(tg.text_message(PRIVATE, "x"), "message.chat.id", 2**70),
        _set(tg.text_message(PRIVATE, "x"), "message.reply_to_message", {"message_id": 1}),
        _set(tg.text_message(PRIVATE, "/x"), "message.entities", [{"type": "bot_command", "offset": 0}]),
        _set(tg.callback_query(PRIVATE, "tok"), "callback_query.message.reply_markup", {"inline_keyboard": 1}),
        _set(tg.callback_query(PRIVATE, "tok"), "callback_query.message.chat.type", "group"),
        {**tg.text_message(PRIVATE, "oi"), **tg.callback_query(PRIVATE, "tok")},
    ],
)
def test_any_other_update_goes_the_full_way(raw: dict[str, Any]) -> None:
    assert route_common({"update_id": 1, **raw}) is None
