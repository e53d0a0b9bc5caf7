"""What a person handed to the staff is told to expect, over Telegram with the forum desk: the desk's
hours (ISPBOT_SUPPORT_HOURS), at hours their place in line and a wait at the desk's own recent pace,
outside hours when the desk answers; the topic and the ISP's ticket named by what they asked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.sandbox.clock import ISP_ZONE, FixedClock
from bot.settings import BotSettings
from bot.store import Database
from bot.store.models import HandoffRow

from tests.flows.test_new_ticket import tickets_of
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, TelegramChat, running_bot

HOURS = "seg-sex 08:00-18:00; sáb 08:00-12:00"
DESK = BotSettings(_env_file=None, support_hours=HOURS)  # type: ignore[call-arg]
MONDAY = datetime(2025, 3, 10, 9, 30, tzinfo=ISP_ZONE)  # the sandbox's own morning: the desk is open


async def answered_lately(database: Database, *waits_in_minutes: int) -> None:
    """Handoffs of other people the desk answered the Friday before, asked at 10:00 (open hours)."""
    asked = datetime(2025, 3, 7, 10, 0, tzinfo=ISP_ZONE).astimezone(UTC)
    async with database.transaction() as session:
        for n, wait in enumerate(waits_in_minutes):
            opened = asked + timedelta(hours=n)
            session.add(HandoffRow(
                chat_id=700_000 + n, ticket_id=0, customer_code=0, opened_at=opened,
                answered_at=opened + timedelta(minutes=wait), closed_at=opened + timedelta(hours=1),
            ))


def at(sandbox: Sandbox, moment: datetime) -> None:
    clock = sandbox.clock
    assert isinstance(clock, FixedClock)
    clock.now = moment


async def asks_for_a_person(bot: RunningBot, chat_id: int, *said: str) -> TelegramChat:
    chat = await bot.maria(chat_id)
    for text in said:
        await chat.say(text)
    return chat


async def test_at_hours_each_waiting_person_hears_their_place_and_the_desk_s_pace(
    database: Database, sandbox: Sandbox,
) -> None:
    await answered_lately(database, 6, 8, 12, 90)  # the median answer: 10 minutes
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID, bot_settings=DESK) as bot:
        first = await asks_for_a_person(bot, 8601, "/atendente")
        assert "Chamei uma pessoa" in first.text
        assert "Você é o próximo da fila. Espera estimada: cerca de 10 minutos." in first.text
        assert f"Nosso horário de atendimento: {HOURS}." in first.text

        second = await asks_for_a_person(bot, 8602, "/atendente")
        assert "Há 1 pessoa na sua frente. Espera estimada: cerca de 20 minutos." in second.text
        third = await asks_for_a_person(bot, 8603, "/atendente")
        assert "Há 2 pessoas na sua frente. Espera estimada: cerca de 30 minutos." in third.text

        await second.say("/atendente")  # asked again: told the same place, not a new one
        assert "já vai falar com você" in second.text and "Há 1 pessoa na sua frente" in second.text


async def test_with_too_few_answers_to_tell_the_operator_s_minutes_each_stand_in(
    database: Database, sandbox: Sandbox,
) -> None:
    await answered_lately(database, 3)  # one answer says nothing of the desk's pace
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID, bot_settings=DESK) as bot:
        maria = await asks_for_a_person(bot, 8611, "/atendente")
        assert f"Espera estimada: cerca de {DESK.handoff_minutes_each} minutos" in maria.text


async def test_outside_hours_the_person_hears_when_the_desk_answers(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID, bot_settings=DESK) as bot:
        maria = await bot.maria(8621)
        at(sandbox, datetime(2025, 3, 10, 6, 45, tzinfo=ISP_ZONE))  # Monday before opening
        await maria.say("/atendente")
        assert "Chamei uma pessoa" in maria.text
        assert f"Nossa equipe atende {HOURS}, e agora estamos fora desse horário." in maria.text
        assert "respondemos hoje a partir das 8h." in maria.text
        assert "Espera estimada" not in maria.text  # no wait is promised while nobody is there

        joao = await bot.maria(8622)
        at(sandbox, datetime(2025, 3, 10, 19, 5, tzinfo=ISP_ZONE))  # Monday evening
        await joao.say("/atendente")
        assert "respondemos amanhã a partir das 8h." in joao.text
        assert "Antes de você, 1 pessoa aguarda." in joao.text

        ana = await bot.maria(8623)
        at(sandbox, datetime(2025, 3, 15, 12, 30, tzinfo=ISP_ZONE))  # Saturday after closing
        await ana.say("/atendente")
        assert "respondemos na segunda-feira a partir das 8h." in ana.text


async def test_the_topic_and_the_ticket_say_what_the_person_asked_in_their_words(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID, bot_settings=DESK) as bot:
        maria = await bot.maria(8631)
        await maria.say("/boletos")  # in the bills' flow when she asks: the ticket is not about a bill
        await maria.say("a internet cai toda noite desde sexta")
        await maria.say("quero falar com um atendente")
        [topic] = bot.api.topics(tg.STAFF_GROUP_ID)
        assert topic["name"].startswith("a internet cai toda noite desde sexta · ")
        [card] = [s.text or "" for s in bot.api.sent(tg.STAFF_GROUP_ID)
                  if s.message_thread_id == topic["message_thread_id"]]
        assert card.splitlines()[0] == "🙋 <b>a internet cai toda noite desde sexta</b>"
        [ticket] = [t for t in tickets_of(sandbox, D.customer) if t["Assunto"].startswith("a internet")]
        assert ticket["Assunto"] == "a internet cai toda noite desde sexta"
        assert f"chamado {ticket['Numero']}" in topic["name"]

        joao = await bot.maria(8632)
        await joao.say("meu roteador está piscando vermelho, quero falar com alguém")  # the request says it
        names = [t["name"] for t in bot.api.topics(tg.STAFF_GROUP_ID)]
        assert any(name.startswith("meu roteador está piscando vermelho, quero falar com alguém · ") for name in names)
