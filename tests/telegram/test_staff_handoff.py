"""A handoff end to end over Telegram: the subscriber asks for a person, the staff answers in a forum
topic of the staff group, and closes the ticket from there."""

from __future__ import annotations

from datetime import timedelta

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.store import Database, Invites, Role, utcnow
from bot.store.models import DeskJobRow, HandoffRow, OutboxRow
from sqlalchemy import func, select, update

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, running_bot

STAFF_USER = 555  # the staff member's Telegram user id (their private chat with the bot too)
STRANGER = 556  # someone else in the staff group


async def staff_member(bot: RunningBot) -> None:
    async with bot.app.database.transaction() as session:
        code = (await Invites().create(session, Role.STAFF, "atendente.carla")).code
    carla = bot.chat(STAFF_USER)
    await carla.start(code)
    assert "atendente.carla" in carla.text and "tópicos" in carla.text


async def handoff_ticket(bot: RunningBot, chat_id: int) -> int:
    async with bot.app.database.session() as session:
        row = (await session.execute(select(HandoffRow).where(HandoffRow.chat_id == chat_id))).scalar_one()
    return row.ticket_id


def in_topic(bot: RunningBot, thread: int) -> list[str]:
    return [s.text or "" for s in bot.api.sent(tg.STAFF_GROUP_ID) if s.message_thread_id == thread]


async def test_a_handoff_from_the_request_to_the_closed_ticket(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        await staff_member(bot)
        maria = await bot.maria(8301)
        await maria.say("/atendente")
        assert "Chamei uma pessoa" in maria.text
        [topic] = bot.api.topics(tg.STAFF_GROUP_ID)
        thread = topic["message_thread_id"]
        assert D.customer_name in topic["name"]
        [card] = in_topic(bot, thread)
        assert "Atendimento pedido pelo Telegram" in card and "5001" in card and "Boletos em aberto: 2" in card

        await maria.say("ainda estou sem internet")
        assert maria.replies == []  # a person handles it now: the bot keeps quiet
        assert "ainda estou sem internet" in in_topic(bot, thread)[-1]

        heard = len(bot.api.sent(maria.chat_id))
        await bot.handled(bot.api.push_update(tg.topic_message(thread, "Olá! Vou verificar.", user_id=STAFF_USER)))
        [told] = bot.api.sent(maria.chat_id)[heard:]
        assert "Olá! Vou verificar." in (told.text or "") and "Ana" in (told.text or "")

        await bot.handled(bot.api.push_update(tg.topic_message(thread, "oi cliente", user_id=STRANGER)))
        assert len(bot.api.sent(maria.chat_id)) == heard + 1  # not staff: ignored

        await bot.handled(bot.api.push_update(tg.topic_message(thread, "/note cliente reiniciou a ONU",
                                                                 user_id=STAFF_USER)))
        assert "Nota interna" in in_topic(bot, thread)[-1]
        assert len(bot.api.sent(maria.chat_id)) == heard + 1  # internal: not relayed

        await bot.handled(bot.api.push_update(tg.topic_message(thread, "/close", user_id=STAFF_USER)))
        listing = in_topic(bot, thread)[-1]
        assert "/close CÓDIGO SOLUÇÃO" in listing
        code = listing.split("• ", 1)[1].split(":", 1)[0]
        await bot.handled(bot.api.push_update(tg.topic_message(thread, f"/close {code} Orientado a reiniciar a ONU",
                                                                 user_id=STAFF_USER)))
        assert "encerrado" in in_topic(bot, thread)[-1]
        assert bot.api.topics(tg.STAFF_GROUP_ID)[0].get("is_closed") is True
        closing = bot.api.sent(maria.chat_id)[-1].text or ""
        assert "foi encerrado" in closing

        await maria.say("/menu")  # the bot answers again
        assert "Como posso ajudar" in maria.text

        # The whole exchange is in the ticket's history, in order, with who said each thing.
        ticket = (await handoff_ticket(bot, maria.chat_id))

        def said() -> list[tuple[str, str]]:
            return [(m["origin"], m["content"]) for m in sandbox.chat_messages(ticket)]

        await bot.api.wait_until(lambda: any("foi encerrado" in content for _, content in said()), within=15)
        history = said()
        position = {text: i for i, (_, text) in enumerate(history)}
        assert ("C", "ainda estou sem internet") in history
        assert ("A", "Olá! Vou verificar.") in history
        assert position["ainda estou sem internet"] < position["Olá! Vou verificar."]
        assert not any("oi cliente" in text or "reiniciou a ONU" in text for _, text in history)
        assert any(origin == "S" and "foi encerrado" in text for origin, text in history)
        attendants = {m["attendant"] for m in sandbox.chat_messages(ticket) if m["origin"] == "A"}
        assert attendants == {"atendente.carla"}


async def test_one_topic_per_conversation_kept_across_a_restart_and_the_wait_told(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        maria = await bot.maria(8401)
        await maria.say("/atendente")
        await maria.say("/atendente")  # asked again while a person is coming
        assert "já vai falar com você" in maria.text
        [topic] = bot.api.topics(tg.STAFF_GROUP_ID)
        thread = topic["message_thread_id"]

        await bot.shutdown(graceful=False)  # the process dies with the handoff open
        await bot.start()
        await maria.say("alô?")
        assert maria.replies == []
        assert "alô?" in in_topic(bot, thread)[-1]
        assert len(bot.api.topics(tg.STAFF_GROUP_ID)) == 1

        # Nobody answered for longer than ISPBOT_HANDOFF_WAIT_MINUTES: told once where they are in line.
        async with database.transaction() as session:
            await session.execute(update(HandoffRow).values(opened_at=utcnow() - timedelta(minutes=30)))
        assert bot.runtime.desk is not None
        await bot.runtime.housekeeping.tell_waiting()
        await bot.channel.sender.drain()
        await bot.runtime.housekeeping.tell_waiting()  # a second look tells nothing new
        await bot.channel.sender.drain()
        waits = [s.text or "" for s in bot.api.sent(maria.chat_id) if "está ocupada" in (s.text or "")]
        assert len(waits) == 1 and "você é o próximo" in waits[0] and "10 minutos" in waits[0]


async def test_someone_not_linked_reaches_the_desk_and_nothing_reaches_the_isp(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        await staff_member(bot)
        stranger = bot.chat(8501)
        await stranger.start()
        calls = sandbox.call_count()
        await stranger.say("quero falar com um atendente")
        assert "Chamei uma pessoa" in stranger.text
        [topic] = bot.api.topics(tg.STAFF_GROUP_ID)
        thread = topic["message_thread_id"]
        assert topic["name"] == "Não identificado · Ana"
        [card] = in_topic(bot, thread)
        assert "Pessoa NÃO identificada" in card and "não há chamado" in card and "Ana" in card

        await stranger.say("queria saber do meu pedido de instalação")
        assert stranger.replies == []
        assert "queria saber do meu pedido de instalação" in in_topic(bot, thread)[-1]

        await bot.handled(bot.api.push_update(tg.topic_message(thread, "Oi! Qual o CPF do titular?",
                                                                 user_id=STAFF_USER)))
        assert "Qual o CPF do titular?" in (bot.api.sent(stranger.chat_id)[-1].text or "")

        await bot.handled(bot.api.push_update(tg.topic_message(thread, "/note ligar depois", user_id=STAFF_USER)))
        assert "não está identificada" in in_topic(bot, thread)[-1]

        await bot.handled(bot.api.push_update(tg.topic_message(thread, "/close", user_id=STAFF_USER)))
        assert "devolvida ao bot" in in_topic(bot, thread)[-1]
        assert bot.api.topics(tg.STAFF_GROUP_ID)[0].get("is_closed") is True
        assert "Voltei a atender" in (bot.api.sent(stranger.chat_id)[-1].text or "")

        await stranger.say("oi")
        assert "titular do cadastro" in stranger.text  # the bot again: proving who they are
        assert sandbox.call_count() == calls  # no ticket, no lookup, no chat_messages: the ISP heard nothing
        async with database.session() as session:
            assert (await session.execute(select(func.count()).select_from(OutboxRow))).scalar_one() == 0


async def test_a_person_who_proves_who_they_are_meanwhile_gets_their_card_in_the_same_topic(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        maria = bot.chat(8601)
        await maria.say("/atendente")
        [topic] = bot.api.topics(tg.STAFF_GROUP_ID)
        thread = topic["message_thread_id"]
        assert "Pessoa NÃO identificada" in in_topic(bot, thread)[-1]

        await maria.start()  # back to the bot, to prove who she is
        await maria.tap("CPF/CNPJ")
        await maria.say(D.customer_cpf)
        await maria.share_contact("+55 11 98765-4321")
        assert "cadastro confirmado" in maria.text
        await maria.say("/atendente")
        assert "Chamei uma pessoa" in maria.text
        assert len(bot.api.topics(tg.STAFF_GROUP_ID)) == 1  # the staff go on where they were
        card = in_topic(bot, thread)[-1]
        assert "Atendimento pedido pelo Telegram" in card and "5001" in card
        assert await handoff_ticket(bot, maria.chat_id) != 0


async def test_the_subscriber_is_answered_while_telegram_holds_the_topic_back(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        maria = await bot.maria(8701)
        bot.api.fail_next("createForumTopic", 429, retry_after=3)  # flood control on the staff group
        heard = len(bot.api.sent(maria.chat_id))
        bot.api.push_update(tg.text_message(maria.chat_id, "/atendente"))
        told = (await bot.api.wait_for_sent(maria.chat_id, count=heard + 1))[-1]
        assert "Chamei uma pessoa" in (told.text or "")  # not held by the desk's call: it leaves the turn
        assert bot.api.topics(tg.STAFF_GROUP_ID) == []  # told before the desk's retry
        await bot.api.wait_until(lambda: len(bot.api.topics(tg.STAFF_GROUP_ID)) == 1)
        await bot.desk_done()
        thread = bot.api.topics(tg.STAFF_GROUP_ID)[0]["message_thread_id"]
        assert "Atendimento pedido pelo Telegram" in in_topic(bot, thread)[0]


async def test_a_staff_group_the_bot_may_not_manage_sets_the_topic_aside_and_says_why(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        maria = await bot.maria(8801)
        bot.api.fail_next("createForumTopic", 400, description="Bad Request: not enough rights to create a topic")
        await maria.say("/atendente")
        assert "Chamei uma pessoa" in maria.text  # the person is answered whatever the desk says
        assert bot.api.topics(tg.STAFF_GROUP_ID) == []
        async with database.session() as session:
            rows = (await session.execute(select(DeskJobRow).order_by(DeskJobRow.id))).scalars().all()
        assert [(row.kind, row.state) for row in rows] == [("open", "dead"), ("post", "dead")]
        assert "may the bot manage its topics" in (rows[0].last_error or "")


async def test_photos_cross_both_ways_as_copies_beside_a_line_naming_who_sent_them(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        await staff_member(bot)
        maria = await bot.maria(8901)
        await maria.say("/atendente")
        thread = bot.api.topics(tg.STAFF_GROUP_ID)[0]["message_thread_id"]

        await maria.send(tg.photo_message(maria.chat_id, "o modem"))
        staff_side = [s for s in bot.api.sent(tg.STAFF_GROUP_ID) if s.message_thread_id == thread][-2:]
        assert "o modem" in (staff_side[0].text or "")
        assert staff_side[1].method == "copyMessage" and staff_side[1].params["from_chat_id"] == maria.chat_id

        photo = tg.photo_message(tg.STAFF_GROUP_ID, "reinicie assim", user_id=STAFF_USER)
        photo["message"].update(message_thread_id=thread, is_topic_message=True)
        heard = len(bot.api.sent(maria.chat_id))
        await bot.handled(bot.api.push_update(photo))
        line, copy = bot.api.sent(maria.chat_id)[heard:]
        assert "reinicie assim" in (line.text or "") and "Ana" in (line.text or "")
        assert copy.method == "copyMessage" and copy.params["from_chat_id"] == tg.STAFF_GROUP_ID


async def test_a_topic_closed_by_hand_gives_the_chat_back_to_the_bot(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        await staff_member(bot)
        maria = await bot.maria(8302)
        await maria.say("/atendente")
        [topic] = bot.api.topics(tg.STAFF_GROUP_ID)
        thread = topic["message_thread_id"]
        topic["is_closed"] = True  # a staff member closes it in Telegram's own screen
        heard = len(bot.api.sent(maria.chat_id))
        await bot.handled(bot.api.push_update(tg.topic_closed(thread, user_id=STRANGER)))
        assert len(bot.api.sent(maria.chat_id)) == heard  # someone not linked as staff: nothing changes
        await bot.handled(bot.api.push_update(tg.topic_closed(thread, user_id=STAFF_USER)))
        await bot.desk_done()
        assert "Voltei a atender" in (bot.api.sent(maria.chat_id)[-1].text or "")
        await maria.say("/menu")
        assert "Como posso ajudar" in maria.text  # the bot's again, not relayed to a closed topic
        async with bot.app.database.session() as session:
            states = (await session.execute(select(DeskJobRow.kind, DeskJobRow.state))).all()
        assert ("close", "done") in states and all(state != "dead" for _, state in states)  # closed already: done
