"""What staff write in the forum reaches the engine through the desk port (``TelegramForumDesk.read``),
as Chatwoot's webhook events do: the desk reads the staff group's updates, the channel the rest."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from bot.channels.telegram.render import ApiCall
from bot.desks.telegram.desk import TelegramForumDesk
from bot.i18n import default_translations
from flows.events import Resolved, StaffCommand, StaffReply

from tests.telegram import fake_bot_api as tg


async def _never(call: ApiCall) -> asyncio.Future[Any]:
    raise AssertionError("reading sends nothing")


@pytest.fixture
def forum() -> TelegramForumDesk:
    return TelegramForumDesk(_never, tg.STAFF_GROUP_ID, default_translations())


def stored(raw: dict[str, Any]) -> dict[str, Any]:
    return {"update_id": 41, **raw}


def test_words_in_a_topic_are_a_staff_reply_to_the_topic_s_conversation(forum: TelegramForumDesk) -> None:
    read = forum.read(stored(tg.topic_message(1001, "o técnico chega amanhã", user_id=555)))
    assert read is not None and read.kind == "staff_text" and read.incoming is not None
    reply = read.incoming.event
    assert isinstance(reply, StaffReply)
    assert (reply.ref, reply.text, reply.staff.chat_id) == ("1001", "o técnico chega amanhã", 555)


def test_a_command_in_a_topic_and_a_topic_closed_by_hand_are_read_too(forum: TelegramForumDesk) -> None:
    command = forum.read(stored(tg.topic_message(1001, "/note ligar depois das 18h")))
    assert command is not None and command.kind == "staff_command" and command.incoming is not None
    event = command.incoming.event
    assert isinstance(event, StaffCommand)
    assert (event.ref, event.name, event.args) == ("1001", "note", "ligar depois das 18h")
    closed = forum.read(stored(tg.topic_closed(1001)))
    assert closed is not None and closed.incoming is not None
    assert isinstance(closed.incoming.event, Resolved) and closed.incoming.event.ref == "1001"


def test_what_is_not_the_staff_group_s_is_left_to_the_channel(forum: TelegramForumDesk) -> None:
    assert forum.read(stored(tg.text_message(7001, "oi"))) is None  # a subscriber's private chat
    assert forum.read(stored(tg.topic_message(1001, "oi", chat_id=-1009876543210))) is None  # another group
    assert forum.read({"object": "whatsapp_business_account"}) is None  # another channel's row


def test_the_staff_group_outside_a_topic_is_nothing_for_the_bot(forum: TelegramForumDesk) -> None:
    read = forum.read(stored(tg.group_reply(tg.STAFF_GROUP_ID, 55, "ok")))
    assert read is not None and read.incoming is None and read.failed is None


def test_a_forged_id_in_the_staff_group_is_set_aside(forum: TelegramForumDesk) -> None:
    raw = stored(tg.topic_message(1001, "oi"))
    raw["message"]["from"]["id"] = 2**70
    read = forum.read(raw)
    assert read is not None and read.incoming is None and read.failed == "an id beyond 64 bits"
