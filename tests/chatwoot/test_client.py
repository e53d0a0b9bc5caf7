"""The Chatwoot API client against the fake: one contact and one conversation per chat, messages
once and in order whatever Chatwoot's failures, and errors that say what to fix."""

from __future__ import annotations

import pytest
from bot.desks.chatwoot.client import SOURCE_PREFIX, ChatwootClient, ChatwootError, ChatwootGone

from tests.chatwoot.conftest import settings_for
from tests.chatwoot.fake_chatwoot import BOT_USER_ID, INBOX_ID, TEAM_ID, FakeChatwoot

IDENTIFIER = "ispbot:telegram:4242"


async def test_a_contact_is_found_not_made_twice(chatwoot: FakeChatwoot, client: ChatwootClient) -> None:
    first = await client.contact(IDENTIFIER, "Maria", {"contract": "1001"})
    again = await client.contact(IDENTIFIER, "Maria Silva", {"contract": "1002"})
    assert first == again
    assert len(chatwoot.contacts) == 1
    contact = chatwoot.contacts[first.id]
    assert contact["name"] == "Maria Silva"
    assert contact["custom_attributes"] == {"contract": "1002"}
    assert chatwoot.contact_inboxes == {IDENTIFIER: first.id}


async def test_a_contact_whose_creation_answer_was_lost_is_not_made_twice(
    chatwoot: FakeChatwoot, client: ChatwootClient,
) -> None:
    chatwoot.fail(r"POST .*/contacts$", 502, after=True)
    contact = await client.contact(IDENTIFIER, "Maria", {})
    assert list(chatwoot.contacts) == [contact.id]


async def test_one_conversation_per_contact_in_the_inbox(chatwoot: FakeChatwoot, client: ChatwootClient) -> None:
    contact = await client.contact(IDENTIFIER, "Maria", {})
    chatwoot.fail(r"POST .*/conversations$", 500, after=True)  # made, but the answer is lost
    first = await client.open_conversation(contact, status="pending", attributes={"chat": "telegram:4242"})
    again = await client.open_conversation(contact, status="pending", attributes={})
    assert first == again
    assert first.status == "pending"
    assert len(chatwoot.conversations) == 1
    assert chatwoot.conversations[first.id].custom_attributes == {"chat": "telegram:4242"}


async def test_messages_land_once_and_in_order_through_5xx_and_slow_answers(
    chatwoot: FakeChatwoot, client: ChatwootClient,
) -> None:
    contact = await client.contact(IDENTIFIER, "Maria", {})
    conversation = await client.open_conversation(contact, status="pending", attributes={})
    path = rf"POST .*/conversations/{conversation.id}/messages"
    await client.post(conversation.id, "oi", key="1", incoming=True)
    chatwoot.fail(path, 500)  # refused before it was kept: posted again
    await client.post(conversation.id, "quero ver minha fatura", key="2", incoming=True)
    chatwoot.fail(path, 503, after=True)  # kept, answer lost: not posted again
    await client.post(conversation.id, "Aqui está sua fatura", key="3")
    chatwoot.slow(path, 2.0)  # kept, answered after the client gave up
    await client.post(conversation.id, "obrigada", key="4", incoming=True)
    assert chatwoot.contents(conversation.id) == ["oi", "quero ver minha fatura", "Aqui está sua fatura", "obrigada"]
    messages = chatwoot.conversations[conversation.id].messages
    assert [m["message_type"] for m in messages] == ["incoming", "incoming", "outgoing", "incoming"]
    assert all(m["source_id"].startswith(SOURCE_PREFIX) for m in messages)
    assert messages[2]["sender"]["id"] == BOT_USER_ID


async def test_a_private_note_is_marked_private(chatwoot: FakeChatwoot, client: ChatwootClient) -> None:
    contact = await client.contact(IDENTIFIER, "Maria", {})
    conversation = await client.open_conversation(contact, status="pending", attributes={})
    await client.post(conversation.id, "Contrato 1001, 2 faturas em aberto", key="card", private=True)
    assert chatwoot.contents(conversation.id, private=True) == ["Contrato 1001, 2 faturas em aberto"]
    assert chatwoot.contents(conversation.id, private=False) == []


async def test_status_and_team(chatwoot: FakeChatwoot, client: ChatwootClient) -> None:
    contact = await client.contact(IDENTIFIER, "Maria", {})
    conversation = await client.open_conversation(contact, status="pending", attributes={})
    chatwoot.fail("toggle_status", 500, after=True)
    await client.set_status(conversation.id, "open")
    await client.assign_team(conversation.id, TEAM_ID)
    assert chatwoot.conversations[conversation.id].status == "open"
    assert chatwoot.conversations[conversation.id].team_id == TEAM_ID
    assert (await client.conversation(conversation.id)).status == "open"
    with pytest.raises(ValueError, match="status"):
        await client.set_status(conversation.id, "closed")


async def test_a_deleted_conversation_is_gone(client: ChatwootClient) -> None:
    with pytest.raises(ChatwootGone):
        await client.set_status(999, "open")


async def test_chatwoot_down_is_an_error_for_later(chatwoot: FakeChatwoot, client: ChatwootClient) -> None:
    chatwoot.fail("profile", 502, count=5)
    with pytest.raises(ChatwootError) as caught:
        await client.profile()
    assert caught.value.later


async def test_a_wrong_token_names_the_setting(chatwoot: FakeChatwoot) -> None:
    client = ChatwootClient(settings_for(chatwoot, api_token="not-the-token"))
    try:
        with pytest.raises(ChatwootError, match="ISPBOT_CHATWOOT_API_TOKEN") as caught:
            await client.inbox()
    finally:
        await client.aclose()
    assert "not-the-token" not in str(caught.value)


async def test_the_inbox_and_the_profile(client: ChatwootClient) -> None:
    assert (await client.inbox())["channel_type"] == "Channel::Api"
    assert (await client.profile())["id"] == BOT_USER_ID
    assert client.inbox_id == INBOX_ID


async def test_a_refused_message_is_not_for_later(chatwoot: FakeChatwoot, client: ChatwootClient) -> None:
    contact = await client.contact(IDENTIFIER, "Maria", {})
    conversation = await client.open_conversation(contact, status="pending", attributes={})
    with pytest.raises(ChatwootError, match="blank") as caught:
        await client.post(conversation.id, "   ", key="x")
    assert not caught.value.later


def test_an_incomplete_configuration_names_what_is_missing(chatwoot: FakeChatwoot) -> None:
    with pytest.raises(ValueError, match="ISPBOT_CHATWOOT_WEBHOOK_SECRET"):
        ChatwootClient(settings_for(chatwoot, webhook_secret=None))
