"""The fake Bot API, driven by python-telegram-bot's real ``telegram.Bot`` over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from telegram.error import BadRequest, Conflict, Forbidden, InvalidToken, RetryAfter

import telegram
from telegram import BotCommand, BotCommandScopeAllPrivateChats, InlineKeyboardButton, InlineKeyboardMarkup
from tests.telegram.fake_bot_api import (
    BOT_ID,
    DEFAULT_TOKEN,
    FakeBotApi,
    Group,
    callback_query,
    contact_message,
    group_reply,
    live_location_edit,
    location_message,
    malformed_update,
    photo_message,
    start,
    text_message,
    topic_message,
)

STEP = 5.0  # upper bound for any single awaited call; nothing here should come near it


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(max_poll_timeout=0.5) as server:
        yield server


@pytest.fixture
async def bot(api: FakeBotApi) -> AsyncIterator[telegram.Bot]:
    async with telegram.Bot(api.token, base_url=api.base_url + "/bot") as client:
        yield client


async def test_base_url_is_joined_with_the_token_and_get_me_answers(api: FakeBotApi, bot: telegram.Bot) -> None:
    assert bot.base_url == f"{api.base_url}/bot{DEFAULT_TOKEN}"
    me = await asyncio.wait_for(bot.get_me(), STEP)
    assert me.is_bot and me.username == "ispbot_test_bot" and me.id == 123456789
    assert api.calls["getMe"] >= 1


async def test_send_message_with_inline_keyboard_is_recorded_in_order(api: FakeBotApi, bot: telegram.Bot) -> None:
    keyboard = InlineKeyboardMarkup(
        [[InlineKeyboardButton("2ª via", callback_data="t1")], [InlineKeyboardButton("Chamado", callback_data="t2")]]
    )
    first = await asyncio.wait_for(bot.send_message(42, "<b>Olá</b>", parse_mode="HTML", reply_markup=keyboard), STEP)
    second = await asyncio.wait_for(bot.send_message(42, "123"), STEP)  # a numeric text stays text
    await asyncio.wait_for(bot.send_message(7, "outro chat"), STEP)

    assert first.message_id == 1 and second.message_id == 2
    assert first.chat.type == "private"
    assert first.reply_markup == keyboard
    sent = api.sent(42)
    assert [s.text for s in sent] == ["<b>Olá</b>", "123"]
    assert sent[0].parse_mode == "HTML"
    assert sent[0].callback_data() == ["t1", "t2"]
    assert sent[0].button_rows()[1][0]["text"] == "Chamado"
    assert sent[1].reply_markup is None
    assert [s.text for s in api.sent(7)] == ["outro chat"]
    assert api.calls["sendMessage"] == 3


async def test_send_message_refuses_what_telegram_refuses(api: FakeBotApi, bot: telegram.Bot) -> None:
    with pytest.raises(BadRequest, match="too long"):
        await asyncio.wait_for(bot.send_message(42, "x" * 4097), STEP)
    too_long_data = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="d" * 65)]])
    with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
        await asyncio.wait_for(bot.send_message(42, "oi", reply_markup=too_long_data), STEP)
    assert api.sent(42) == []
    await asyncio.wait_for(bot.send_message(42, "x" * 4096), STEP)
    assert len(api.sent(42)) == 1


async def test_edit_message_text_changes_the_message_and_refuses_no_op_and_missing(
    api: FakeBotApi, bot: telegram.Bot
) -> None:
    message = await asyncio.wait_for(bot.send_message(42, "antes"), STEP)
    edited = await asyncio.wait_for(bot.edit_message_text("depois", chat_id=42, message_id=message.message_id), STEP)
    assert isinstance(edited, telegram.Message) and edited.text == "depois"
    with pytest.raises(BadRequest, match="not modified"):
        await asyncio.wait_for(bot.edit_message_text("depois", chat_id=42, message_id=message.message_id), STEP)
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await asyncio.wait_for(bot.edit_message_text("x", chat_id=42, message_id=999), STEP)
    current = api.message(42, message.message_id)
    assert current is not None and current.text == "depois"
    assert [e.text for e in api.edits(42)] == ["depois"]
    assert [s.text for s in api.sent(42)] == ["antes"]


async def test_get_updates_returns_pushed_updates_and_honours_the_offset(api: FakeBotApi, bot: telegram.Bot) -> None:
    first = api.push_update(text_message(42, "oi"))
    second = api.push_update(start(42, "invite-abc"))
    third = api.push_update(text_message(43, "olá"))
    assert (first, second, third) == (1, 2, 3)

    updates = await asyncio.wait_for(bot.get_updates(timeout=0), STEP)
    assert [u.update_id for u in updates] == [1, 2, 3]
    assert updates[0].effective_message is not None and updates[0].effective_message.text == "oi"
    assert updates[1].effective_message is not None and updates[1].effective_message.text == "/start invite-abc"
    assert updates[1].effective_message.entities[0].type == "bot_command"

    again = await asyncio.wait_for(bot.get_updates(timeout=0), STEP)  # no offset: nothing confirmed
    assert [u.update_id for u in again] == [1, 2, 3]

    limited = await asyncio.wait_for(bot.get_updates(offset=2, limit=1, timeout=0), STEP)
    assert [u.update_id for u in limited] == [2]
    assert [u["update_id"] for u in api.pending_updates] == [2, 3]  # update 1 forgotten for good

    rest = await asyncio.wait_for(bot.get_updates(offset=4, timeout=0), STEP)
    assert rest == ()
    assert api.pending_updates == []


async def test_long_poll_wakes_on_a_push_and_is_bounded(api: FakeBotApi, bot: telegram.Bot) -> None:
    # Nothing queued: the long poll ends by itself, capped by max_poll_timeout (0.5 s) not the asked 30 s.
    empty = await asyncio.wait_for(bot.get_updates(timeout=30, read_timeout=STEP), STEP)
    assert empty == ()

    poll = asyncio.create_task(bot.get_updates(timeout=30, read_timeout=STEP))
    await api.wait_until(lambda: api.calls["getUpdates"] == 2)
    api.push_update(text_message(42, "acordou"))
    updates = await asyncio.wait_for(poll, STEP)
    assert [u.effective_message.text for u in updates if u.effective_message] == ["acordou"]


async def test_a_429_surfaces_as_retry_after_only_for_the_chosen_chat(api: FakeBotApi, bot: telegram.Bot) -> None:
    api.fail_next("sendMessage", 429, retry_after=7, chat_id=42)
    await asyncio.wait_for(bot.send_message(43, "outro chat passa"), STEP)
    with pytest.raises(RetryAfter) as caught:
        await asyncio.wait_for(bot.send_message(42, "espera"), STEP)
    retry_after = caught.value.retry_after
    seconds = retry_after.total_seconds() if isinstance(retry_after, timedelta) else retry_after
    assert seconds == 7
    await asyncio.wait_for(bot.send_message(42, "agora vai"), STEP)  # the failure was used once
    assert [s.text for s in api.sent(42)] == ["agora vai"]
    assert [s.text for s in api.sent(43)] == ["outro chat passa"]
    assert api.calls["sendMessage"] == 3


async def test_the_429_body_has_the_bot_api_error_shape(api: FakeBotApi) -> None:
    api.fail_next("sendMessage", 429, retry_after=3)
    async with httpx.AsyncClient(base_url=api.base_url, timeout=STEP) as http:
        response = await http.post(f"/bot{api.token}/sendMessage", json={"chat_id": 1, "text": "oi"})
    assert response.status_code == 429
    assert response.json() == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 3",
        "parameters": {"retry_after": 3},
    }


async def test_blocked_user_surfaces_as_forbidden(api: FakeBotApi, bot: telegram.Bot) -> None:
    api.fail_next("sendMessage", 403, chat_id=42)
    with pytest.raises(Forbidden, match="blocked"):
        await asyncio.wait_for(bot.send_message(42, "oi"), STEP)


async def test_answer_callback_query_once_for_a_pushed_query(api: FakeBotApi, bot: telegram.Bot) -> None:
    api.push_update(callback_query(42, "t1", message_id=5))
    (update,) = await asyncio.wait_for(bot.get_updates(timeout=0), STEP)
    query = update.callback_query
    assert query is not None and query.data == "t1" and query.from_user.id == 42
    assert query.message is not None and query.message.message_id == 5

    assert await asyncio.wait_for(bot.answer_callback_query(query.id, text="Ok"), STEP) is True
    assert api.answered_callbacks == [
        {"callback_query_id": query.id, "text": "Ok", "show_alert": False, "url": None, "cache_time": 0}
    ]
    with pytest.raises(BadRequest, match=r"(?i)query id is invalid"):
        await asyncio.wait_for(bot.answer_callback_query(query.id), STEP)
    with pytest.raises(BadRequest, match=r"(?i)query id is invalid"):
        await asyncio.wait_for(bot.answer_callback_query("never-sent"), STEP)


async def test_create_forum_topic_and_a_reply_into_it(api: FakeBotApi, bot: telegram.Bot) -> None:
    group = -1001234567890
    topic = await asyncio.wait_for(bot.create_forum_topic(group, "Chamado #123 · Ana"), STEP)
    other = await asyncio.wait_for(bot.create_forum_topic(group, "Chamado #124"), STEP)
    assert topic.name == "Chamado #123 · Ana" and topic.message_thread_id != other.message_thread_id
    assert [t["name"] for t in api.topics(group)] == ["Chamado #123 · Ana", "Chamado #124"]

    reply = await asyncio.wait_for(
        bot.send_message(group, "cliente: oi", message_thread_id=topic.message_thread_id), STEP
    )
    assert reply.is_topic_message and reply.message_thread_id == topic.message_thread_id
    assert api.sent(group)[0].message_thread_id == topic.message_thread_id
    with pytest.raises(BadRequest, match="not a forum"):
        await asyncio.wait_for(bot.create_forum_topic(42, "x"), STEP)


async def test_set_my_commands_per_scope_and_language(api: FakeBotApi, bot: telegram.Bot) -> None:
    subscriber = [BotCommand("start", "Começar"), BotCommand("boleto", "Segunda via")]
    ok = await asyncio.wait_for(
        bot.set_my_commands(subscriber, scope=BotCommandScopeAllPrivateChats(), language_code="pt"), STEP
    )
    assert ok is True
    await asyncio.wait_for(bot.set_my_commands([BotCommand("start", "Start")]), STEP)
    assert api.commands({"type": "all_private_chats"}, "pt") == [
        {"command": "start", "description": "Começar"},
        {"command": "boleto", "description": "Segunda via"},
    ]
    assert api.commands() == [{"command": "start", "description": "Start"}]
    fetched = await asyncio.wait_for(
        bot.get_my_commands(scope=BotCommandScopeAllPrivateChats(), language_code="pt"), STEP
    )
    assert [c.command for c in fetched] == ["start", "boleto"]
    with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
        await asyncio.wait_for(bot.set_my_commands([BotCommand("Bad-Name", "x")]), STEP)


async def test_webhook_set_info_conflict_and_delete(api: FakeBotApi, bot: telegram.Bot) -> None:
    api.push_update(text_message(42, "pendente"))
    await asyncio.wait_for(bot.set_webhook("https://bot.example/telegram/abc", secret_token="s3cret"), STEP)
    assert api.webhook_url == "https://bot.example/telegram/abc" and api.webhook_secret == "s3cret"
    info = await asyncio.wait_for(bot.get_webhook_info(), STEP)
    assert info.url == "https://bot.example/telegram/abc" and info.pending_update_count == 1
    with pytest.raises(Conflict, match="webhook is active"):
        await asyncio.wait_for(bot.get_updates(timeout=0), STEP)
    await asyncio.wait_for(bot.delete_webhook(drop_pending_updates=True), STEP)
    assert api.webhook_url == "" and api.pending_updates == []
    assert await asyncio.wait_for(bot.get_updates(timeout=0), STEP) == ()


async def test_webhook_info_reports_the_last_delivery_error(api: FakeBotApi, bot: telegram.Bot) -> None:
    await asyncio.wait_for(bot.set_webhook("https://bot.example/telegram/abc"), STEP)
    assert (await asyncio.wait_for(bot.get_webhook_info(), STEP)).last_error_message is None
    api.webhook_delivery_failed("Wrong response from the webhook: 503 Service Unavailable", at=1_790_000_000)
    info = await asyncio.wait_for(bot.get_webhook_info(), STEP)
    assert info.last_error_message == "Wrong response from the webhook: 503 Service Unavailable"
    assert info.last_error_date is not None and int(info.last_error_date.timestamp()) == 1_790_000_000


async def test_get_chat_and_chat_member_parse_as_telegrams_types(api: FakeBotApi, bot: telegram.Bot) -> None:
    group = -1001234567890
    chat = await asyncio.wait_for(bot.get_chat(group), STEP)
    assert chat.type == "supergroup" and chat.is_forum is True
    member = await asyncio.wait_for(bot.get_chat_member(group, BOT_ID), STEP)
    assert isinstance(member, telegram.ChatMemberAdministrator) and member.can_manage_topics is True
    assert (await asyncio.wait_for(bot.get_chat(42), STEP)).type == "private"


async def test_a_group_set_by_the_test_answers_as_telegram_would(api: FakeBotApi, bot: telegram.Bot) -> None:
    plain, limited, gone, unknown = -1001, -1002, -1003, -1004
    api.set_group(plain, Group(is_forum=False))
    api.set_group(limited, Group(can_manage_topics=False))
    api.set_group(gone, Group(bot_status="kicked"))
    api.set_group(unknown, None)
    assert (await asyncio.wait_for(bot.get_chat(plain), STEP)).is_forum is not True
    with pytest.raises(BadRequest, match="not a forum"):
        await asyncio.wait_for(bot.create_forum_topic(plain, "x"), STEP)
    member = await asyncio.wait_for(bot.get_chat_member(limited, BOT_ID), STEP)
    assert isinstance(member, telegram.ChatMemberAdministrator) and member.can_manage_topics is False
    with pytest.raises(BadRequest, match=r"(?i)not enough rights"):
        await asyncio.wait_for(bot.create_forum_topic(limited, "x"), STEP)
    with pytest.raises(Forbidden, match="kicked"):
        await asyncio.wait_for(bot.get_chat(gone), STEP)
    with pytest.raises(BadRequest, match=r"(?i)chat not found"):
        await asyncio.wait_for(bot.get_chat(unknown), STEP)


async def test_a_malformed_update_is_returned_raw(api: FakeBotApi) -> None:
    api.push_update(malformed_update(text="sem is_bot"))
    api.push_update(text_message(42, "depois"))
    async with httpx.AsyncClient(base_url=api.base_url, timeout=STEP) as http:
        response = await http.post(f"/bot{api.token}/getUpdates", data={"offset": "0", "timeout": "0"})
    body = response.json()
    assert response.status_code == 200 and body["ok"] is True
    raw, good = body["result"]
    assert "is_bot" not in raw["message"]["from"] and raw["message"]["text"] == "sem is_bot"
    assert good["message"]["text"] == "depois"


async def test_malformed_update_breaks_a_strict_parser(api: FakeBotApi, bot: telegram.Bot) -> None:
    """The reason the sample exists: python-telegram-bot's own get_updates cannot parse the batch."""
    api.push_update(malformed_update())
    with pytest.raises(Exception):  # noqa: B017 - whatever the library raises, it does not parse
        await asyncio.wait_for(bot.get_updates(timeout=0), STEP)


async def test_update_builders_parse_as_python_telegram_bot_expects(api: FakeBotApi, bot: telegram.Bot) -> None:
    api.push_update(contact_message(42, "+5511999990000", contact_user_id=42))
    api.push_update(location_message(42, -23.55, -46.63, live_period=900))
    api.push_update(live_location_edit(42, 77, -23.56, -46.64))
    api.push_update(photo_message(42, "foto do roteador"))
    api.push_update(topic_message(1001, "resposta da equipe"))
    api.push_update(group_reply(-1009999, 12, "resposta comum"))
    updates = await asyncio.wait_for(bot.get_updates(timeout=0), STEP)
    contact, location, live, photo, topic, reply = updates

    assert contact.message is not None and contact.message.contact is not None
    assert contact.message.contact.user_id == contact.message.from_user.id  # type: ignore[union-attr]
    assert location.message is not None and location.message.location is not None
    assert location.message.location.live_period in (900, timedelta(seconds=900))  # PTB 22 or PTB_TIMEDELTA
    assert live.edited_message is not None and live.edited_message.message_id == 77
    assert live.edited_message.location is not None and live.edited_message.location.latitude == -23.56
    assert photo.message is not None and photo.message.caption == "foto do roteador" and len(photo.message.photo) == 3
    assert topic.message is not None and topic.message.is_topic_message is True
    assert topic.message.message_thread_id == 1001
    assert reply.message is not None and reply.message.message_thread_id == 12
    assert not reply.message.is_topic_message


async def test_unknown_token_is_401_and_unknown_method_is_404(api: FakeBotApi) -> None:
    stranger = telegram.Bot("999:wrong", base_url=api.base_url + "/bot")
    with pytest.raises(InvalidToken):
        await asyncio.wait_for(stranger.initialize(), STEP)  # initialize calls getMe
    async with httpx.AsyncClient(base_url=api.base_url, timeout=STEP) as http:
        unauthorized = await http.get("/bot999:wrong/getMe")
        missing = await http.post(f"/bot{api.token}/sendPoll", json={})
        case = await http.get(f"/bot{api.token}/getme")
    assert unauthorized.status_code == 401
    assert unauthorized.json() == {"ok": False, "error_code": 401, "description": "Unauthorized"}
    assert missing.status_code == 404
    assert missing.json() == {"ok": False, "error_code": 404, "description": "Not Found"}
    assert case.status_code == 200 and case.json()["result"]["is_bot"] is True


async def test_send_document_and_location(api: FakeBotApi, bot: telegram.Bot) -> None:
    document = await asyncio.wait_for(
        bot.send_document(42, b"%PDF-1.4 boleto", filename="boleto.pdf", caption="Seu boleto"), STEP
    )
    assert document.document is not None and document.document.file_name == "boleto.pdf"
    assert document.document.file_size == len(b"%PDF-1.4 boleto") and document.caption == "Seu boleto"
    location = await asyncio.wait_for(bot.send_location(42, latitude=-23.5, longitude=-46.6), STEP)
    assert location.location is not None and location.location.latitude == -23.5
    assert [s.method for s in api.sent(42)] == ["sendDocument", "sendLocation"]
    assert [s.message_id for s in api.sent(42)] == [1, 2]


async def test_latency_delays_answers_and_counters_count(api: FakeBotApi, bot: telegram.Bot) -> None:
    api.latency = 0.05
    results = await asyncio.wait_for(asyncio.gather(*(bot.send_message(chat, "oi") for chat in range(1, 11))), STEP)
    assert len(results) == 10 and api.calls["sendMessage"] == 10
    assert all(len(api.sent(chat)) == 1 for chat in range(1, 11))


async def test_wait_for_sent_is_bounded(api: FakeBotApi) -> None:
    with pytest.raises(TimeoutError):
        await api.wait_for_sent(42, count=1, within=0.05)


async def test_a_caller_gone_mid_body_is_dropped_quietly(
    api: FakeBotApi, bot: telegram.Bot, caplog: pytest.LogCaptureFixture,
) -> None:
    """A benchmark stops a contender while it sends: the server records nothing and logs no error."""
    caplog.set_level(logging.WARNING)
    port = int(api.base_url.rsplit(":", 1)[1])
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"POST /bot{api.token}/sendMessage HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        '{"chat_id": 42, "te'.encode()
    )
    await writer.drain()
    await api.wait_until(lambda: api.calls["sendMessage"] == 1, within=STEP)
    writer.close()
    await writer.wait_closed()
    await api.wait_until(lambda: api.abandoned["sendMessage"] == 1, within=STEP)
    assert api.sent(42) == []
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []
    assert (await asyncio.wait_for(bot.send_message(42, "oi"), STEP)).text == "oi"
