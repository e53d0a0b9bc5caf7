"""The Chatwoot desk through the port, against the fake Chatwoot: the chat's conversation is the bot's
(pending) until a handoff opens it with the card as a private note, every message lands in order
and once, closing resolves it; what agents do reads back as the engine's staff events."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from bot.channels.telegram.settings import TelegramSettings
from bot.desks.base import Desk, DeskRefused, DeskUnavailable
from bot.desks.chatwoot.client import ChatwootClient
from bot.desks.chatwoot.desk import ChatwootDesk, identifier
from bot.desks.chatwoot.intake import as_payload
from bot.desks.chatwoot.settings import ChatwootSettings
from bot.desks.chatwoot.webhook import CHAT_ATTRIBUTE, Command, Reply, StatusChange
from bot.isp import IspSettings
from bot.reads import Read
from bot.runtime.app import DeskSettingsError, Settings, staff_desk
from bot.sandbox import PRODUCTION_KEY
from bot.settings import BotSettings
from flows.desk import DeskChat, DeskPost, PostKind, StaffMember
from flows.events import Incoming, Resolved, StaffCommand, StaffReply
from pydantic import ValidationError

from tests.chatwoot.conftest import settings_for
from tests.chatwoot.fake_chatwoot import BOT_USER_ID, TEAM_ID, FakeChatwoot

CHAT = DeskChat(chat_id=4242, channel="telegram", language="pt_BR", name="Maria Silva", ticket_id=7001,
                customer_code=1001, contract=2002, attributes=(("CPF", "***.456.789-**"), ("Plano", "Fibra 300")))


@pytest.fixture
async def desk(chatwoot: FakeChatwoot) -> AsyncIterator[ChatwootDesk]:
    async def no_wait(_: float) -> None:
        return None

    client = ChatwootClient(settings_for(chatwoot, timeout=1.0), sleep=no_wait)
    try:
        yield ChatwootDesk(client, team_id=TEAM_ID)
    finally:
        await client.aclose()


def said(kind: PostKind, text: str, author: str = "") -> DeskPost:
    return DeskPost(kind, text, author)


def test_it_is_a_desk(desk: ChatwootDesk) -> None:
    port: Desk = desk
    assert port.name == "chatwoot" and port.follows_every_chat


async def test_the_bot_serves_in_a_pending_conversation_then_a_handoff_opens_it(
    chatwoot: FakeChatwoot, desk: ChatwootDesk,
) -> None:
    await desk.post(None, CHAT, said(PostKind.SUBSCRIBER, "oi"))
    await desk.post(None, CHAT, said(PostKind.BOT, "Olá! Escolha: <b>Faturas</b> ou <b>Suporte</b>"))
    conversation = chatwoot.conversation_of(identifier(CHAT))
    assert conversation is not None and conversation.status == "pending"
    contact = chatwoot.contacts[conversation.contact_id]
    assert contact["name"] == "Maria Silva"
    assert contact["custom_attributes"] == {"channel": "telegram", "contract": 2002, "customer_code": 1001,
                                            "cpf": "***.456.789-**", "plano": "Fibra 300"}
    assert conversation.custom_attributes[CHAT_ATTRIBUTE] == 4242

    ref = await desk.open(CHAT, "#7001 Maria Silva", "asked")
    await desk.post(ref, CHAT, said(PostKind.CARD, "<b>Contrato 2002</b>\nFaturas em aberto: 2\nProtocolo 7001"))
    await desk.post(ref, CHAT, said(PostKind.SUBSCRIBER, "minha internet caiu"))
    assert ref == str(conversation.id)
    assert conversation.status == "open" and conversation.team_id == TEAM_ID
    assert conversation.custom_attributes == {CHAT_ATTRIBUTE: 4242, "channel": "telegram", "ticket": 7001,
                                              "handoff": "#7001 Maria Silva", "handoff_reason": "asked"}
    assert chatwoot.contents(conversation.id, private=True) == ["Contrato 2002\nFaturas em aberto: 2\nProtocolo 7001"]
    assert chatwoot.contents(conversation.id) == [
        "oi", "Olá! Escolha: Faturas ou Suporte", "Contrato 2002\nFaturas em aberto: 2\nProtocolo 7001",
        "minha internet caiu",
    ]
    kinds = [(m["message_type"], m["private"]) for m in conversation.messages]
    assert kinds == [("incoming", False), ("outgoing", False), ("outgoing", True), ("incoming", False)]
    assert conversation.messages[1]["sender"]["id"] == BOT_USER_ID

    await desk.close(ref, CHAT, resolved=True)
    assert conversation.status == "resolved"
    await desk.post(None, CHAT, said(PostKind.SUBSCRIBER, "voltou, obrigada"))  # the bot's again
    assert conversation.status == "pending"  # not reopened as open for the agents
    assert len(chatwoot.conversations) == 1


async def test_closing_without_resolving_hands_it_back_pending(chatwoot: FakeChatwoot, desk: ChatwootDesk) -> None:
    ref = await desk.open(CHAT, "#7001 Maria Silva", "asked")
    await desk.close(ref, CHAT, resolved=False)
    assert chatwoot.conversations[int(ref)].status == "pending"


async def test_messages_in_order_and_once_through_5xx_and_a_slow_chatwoot(
    chatwoot: FakeChatwoot, desk: ChatwootDesk,
) -> None:
    ref = await desk.open(CHAT, "#7001 Maria Silva", "asked")
    chatwoot.fail("/messages", 502)
    await desk.post(ref, CHAT, said(PostKind.SUBSCRIBER, "um"))
    chatwoot.fail("/messages", 500, after=True)
    await desk.post(ref, CHAT, said(PostKind.SUBSCRIBER, "dois"))
    chatwoot.slow("/messages", 2.0)
    await desk.post(ref, CHAT, said(PostKind.SUBSCRIBER, "três"))
    await desk.post(ref, CHAT, said(PostKind.SUBSCRIBER, "quatro"))
    assert chatwoot.contents(int(ref)) == ["um", "dois", "três", "quatro"]


async def test_a_job_tried_again_after_an_unconfirmed_post_does_not_post_twice(
    chatwoot: FakeChatwoot, desk: ChatwootDesk,
) -> None:
    ref = await desk.open(CHAT, "#7001 Maria Silva", "asked")
    chatwoot.fail(r"POST .*/messages", 500, after=True)  # it lands, its answer is lost
    chatwoot.fail(r"GET .*/messages", 503, count=3)  # and Chatwoot cannot say so for now
    with pytest.raises(DeskUnavailable):
        await desk.post(ref, CHAT, said(PostKind.SUBSCRIBER, "ok"))
    await desk.post(ref, CHAT, said(PostKind.SUBSCRIBER, "ok"))  # the worker's next try
    await desk.post(ref, CHAT, said(PostKind.SUBSCRIBER, "ok"))  # a new "ok" of hers
    assert chatwoot.contents(int(ref)) == ["ok", "ok"]


async def test_chatwoot_down_is_for_later_and_a_refusal_is_for_good(chatwoot: FakeChatwoot, desk: ChatwootDesk) -> None:
    ref = await desk.open(CHAT, "#7001 Maria Silva", "asked")
    chatwoot.fail("/messages", 503, count=10)
    with pytest.raises(DeskUnavailable):
        await desk.post(ref, CHAT, said(PostKind.SUBSCRIBER, "alô"))
    chatwoot.faults.clear()
    with pytest.raises(DeskRefused, match="not found"):
        await desk.post("999", CHAT, said(PostKind.SUBSCRIBER, "alô"))
    assert chatwoot.contents(int(ref)) == []


async def test_a_conversation_deleted_in_chatwoot_is_made_again(chatwoot: FakeChatwoot, desk: ChatwootDesk) -> None:
    await desk.post(None, CHAT, said(PostKind.SUBSCRIBER, "oi"))
    old = chatwoot.conversation_of(identifier(CHAT))
    assert old is not None
    del chatwoot.conversations[old.id]
    await desk.post(None, CHAT, said(PostKind.SUBSCRIBER, "alguém aí?"))
    new = chatwoot.conversation_of(identifier(CHAT))
    assert new is not None and new.id != old.id
    assert chatwoot.contents(new.id) == ["alguém aí?"]
    del chatwoot.conversations[new.id]
    ref = await desk.open(CHAT, "#7001 Maria Silva", "asked")  # likewise for a handoff
    newest = chatwoot.conversation_of(identifier(CHAT))
    assert newest is not None and ref == str(newest.id) != str(new.id) and newest.status == "open"


def test_what_agents_did_reads_as_staff_events(desk: ChatwootDesk) -> None:
    reply = Reply(4242, 9, 1001, "Olá, sou a Ana", "Ana", 12)
    assert desk.read(as_payload(reply)) == Read(
        "staff_text", Incoming(4242, StaffReply("9", StaffMember("Ana"), "Olá, sou a Ana"), sender_name="Ana"))
    photo = Reply(4242, 9, 1003, "", "Ana", 12, "photo", "https://chat.example.com/rails/active_storage/x.png")
    assert desk.read(as_payload(photo)) == Read("staff_text", Incoming(
        4242, StaffReply("9", StaffMember("Ana"), "", kind="photo", url="https://chat.example.com/rails/active_storage/x.png"),
        sender_name="Ana"))
    command = Command(4242, 9, 1002, "status", "3", "Ana", 12)
    assert desk.read(as_payload(command)) == Read(
        "staff_command", Incoming(4242, StaffCommand("9", StaffMember("Ana"), "status", "3")))
    resolved = desk.read(as_payload(StatusChange(4242, 9, "resolved")))
    assert resolved is not None and resolved.incoming == Incoming(4242, Resolved("9", StaffMember("")))
    for status in ("pending", "open", "snoozed"):  # an agent's: nothing for the bot ("/bot" hands back)
        changed = desk.read(as_payload(StatusChange(4242, 9, status)))
        assert changed is not None and changed.incoming is None
    assert desk.read({"update_id": 5, "message": {}}) is None  # a channel's update, not the desk's


def test_an_agent_listed_in_the_settings_acts_as_their_own_isp_user(desk: ChatwootDesk) -> None:
    desk.agents = ChatwootSettings(_env_file=None, agents="12=ana.silva, 15=joao").agent_users()  # type: ignore[call-arg]
    ana = desk.read(as_payload(Command(4242, 9, 1002, "assign", "", "Ana", 12)))
    other = desk.read(as_payload(Reply(4242, 9, 1003, "oi", "Bia", 14)))
    assert ana is not None and ana.incoming is not None and other is not None and other.incoming is not None
    assert ana.incoming.event.staff == StaffMember("Ana", system_user="ana.silva")  # type: ignore[attr-defined]
    assert other.incoming.event.staff == StaffMember("Bia")  # type: ignore[attr-defined]  # the operator's user
    for wrong in ("ana.silva", "12=", "x=ana", "12=ana silva"):
        with pytest.raises(ValidationError, match="AGENT_ID=ISP_USER"):
            ChatwootSettings(_env_file=None, agents=wrong)  # type: ignore[call-arg]


def test_the_staff_desk_is_chatwoots_once_its_settings_are_complete(chatwoot: FakeChatwoot) -> None:
    token = "123456:ABCdefGhIJKlmnOPQrstUVwxyz0123456789"
    telegram = TelegramSettings(telegram_token=token, _env_file=None)  # type: ignore[call-arg]
    isp = IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY)
    bot = BotSettings(_env_file=None, staff_desk="chatwoot")  # type: ignore[call-arg]
    assert staff_desk(Settings(isp, bot, telegram, chatwoot_settings=settings_for(chatwoot))) == "chatwoot"
    with pytest.raises(DeskSettingsError, match=r"needs ISPBOT_CHATWOOT_WEBHOOK_SECRET$"):
        staff_desk(Settings(isp, bot, telegram, chatwoot_settings=settings_for(chatwoot, webhook_secret=None)))


async def test_the_desks_own_doings_come_back_as_echoes_and_are_dropped(
    chatwoot: FakeChatwoot, desk: ChatwootDesk,
) -> None:
    ref = await desk.open(CHAT, "#7001 Maria Silva", "asked")
    await desk.close(ref, CHAT, resolved=True)
    own = desk.read(as_payload(StatusChange(4242, int(ref), "resolved")))
    assert own is not None and own.kind == "staff_echo" and own.incoming is None
    again = desk.read(as_payload(StatusChange(4242, int(ref), "resolved")))  # now an agent's: each echo once
    assert again is not None and again.incoming == Incoming(4242, Resolved(ref, StaffMember("")))
    assert desk.own_id == BOT_USER_ID
    mine = desk.read(as_payload(Reply(4242, int(ref), 1010, "Olá! Escolha uma opção", "ispbot", BOT_USER_ID)))
    assert mine is not None and mine.incoming is None


async def test_an_agents_second_resolve_is_not_taken_for_the_desks_own(
    chatwoot: FakeChatwoot, desk: ChatwootDesk,
) -> None:
    ref = await desk.open(CHAT, "#7001 Maria Silva", "asked")
    await chatwoot.resolve(int(ref))  # the agent resolves; the engine then closes the handoff
    first = desk.read(as_payload(StatusChange(4242, int(ref), "resolved")))
    assert first is not None and isinstance(first.incoming and first.incoming.event, Resolved)
    await desk.close(ref, CHAT, resolved=True)  # resolved already: Chatwoot posts nothing back
    assert await desk.open(CHAT, "#7001 Maria Silva", "asked") == ref  # she asks again, minutes later
    await chatwoot.resolve(int(ref))
    second = desk.read(as_payload(StatusChange(4242, int(ref), "resolved")))
    assert second is not None and isinstance(second.incoming and second.incoming.event, Resolved)


async def test_a_notice_about_a_person_is_a_private_note_in_their_conversation_its_status_kept(
    chatwoot: FakeChatwoot, desk: ChatwootDesk,
) -> None:
    await desk.notify(CHAT, "📣 <b>Cancelamento pelo chat</b>: contrato 2002")  # a chat with no conversation yet
    conversation = chatwoot.conversation_of(identifier(CHAT))
    assert conversation is not None and conversation.status == "pending"  # not in the agents' queue
    assert chatwoot.contents(conversation.id, private=True) == ["📣 Cancelamento pelo chat: contrato 2002"]
    assert chatwoot.contents(conversation.id, private=False) == []  # never the person's to see
    ref = await desk.open(CHAT, "#7001 Maria Silva", "asked")
    await desk.notify(CHAT, "⏰ Prazo perto do fim")
    assert conversation.status == "open" and ref == str(conversation.id)  # a handed-over one stays with the staff
    assert chatwoot.contents(conversation.id, private=True)[-1] == "⏰ Prazo perto do fim"
