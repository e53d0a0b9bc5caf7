"""Answers in people's words, read once in the engine (``flows.values``, ``Takes`` of a kind): a
value said as people say it at a question, a request that carries its values, an open question that
keeps the words, yes and no with words around them, an option pointed at."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from bot.sandbox import DEMO_IDENTITIES, FixedClock
from flows.replies import Upload

from tests.flows.harness import Desk, TestChat

MARIA = DEMO_IDENTITIES.customer


def uploads(chat: TestChat) -> list[str]:
    return [reply.filename for reply in chat.replies if isinstance(reply, Upload)]


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.this_morning()


async def test_a_request_with_its_length_asks_only_for_the_start(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("quero suspender minha internet por três meses")
    assert "A partir de quando?" in chat.text and "Por quanto tempo" not in chat.text
    await chat.say("segunda que vem")
    monday = clock.now.date() + timedelta(days=(7 - clock.now.weekday()) or 7)
    assert "suspenso por 90 dias" in chat.text and f"{monday:%d/%m/%Y}" in chat.text
    await chat.say("sim, pode")
    assert "Chamado nº" in chat.text
    (scheduled,) = desk.sandbox.store.where("suspensions", contract_id=DEMO_IDENTITIES.contract, status="scheduled")
    assert scheduled["duration"] == 90 and scheduled["start_date"] == monday.isoformat()


async def test_a_length_in_weeks_is_answered_with_the_range_in_days(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("suspender por duas semanas")
    assert "14 dias é pouco: a suspensão mais curta é de 30 dias" in chat.text
    await chat.tap("Suspender por um tempo")
    await chat.say("umas 6 semanas")
    await chat.say("amanhã")
    assert "suspenso por 42 dias" in chat.text
    await chat.say("agora não")
    assert "nada foi alterado" in chat.text


async def test_the_yearly_statement_takes_a_year_said_relative_to_today(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("declaração de quitação")
    await chat.say("ano retrasado")
    year = clock.now.year - 2
    assert f"quitacao-{year}.pdf" in uploads(chat) or str(year) in chat.text


async def test_a_year_in_the_request_is_not_asked_again(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    year = clock.now.year - 1
    await chat.say(f"preciso da declaração de quitação de {year}")
    assert "De qual ano" not in chat.text
    assert f"quitacao-{year}.pdf" in uploads(chat) or str(year) in chat.text


async def test_bad_answers_get_the_question_again_without_a_trace(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("suspender")
    await chat.tap("Suspender por um tempo")
    for odd in ("🧱" * 4096, "\x00\x07\x1b[31m"):
        await chat.say(odd)
        assert "Não entendi por quanto tempo" in chat.text and "Por quanto tempo?" in chat.text
        assert "60 dias" in chat.buttons and "algo deu errado" not in chat.text
    await chat.say("x" * 10_000 + " 45 dias")  # what is read is capped: the length is not seen
    assert "Não entendi por quanto tempo" in chat.text or "atendente" in chat.text


async def test_a_payment_day_in_the_request_is_not_asked_after_the_bill(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("já paguei ontem")
    if "Qual boleto você pagou" in chat.text:
        await chat.tap(chat.buttons[0])
    assert "Quando você pagou" not in chat.text and "comprovante" in chat.text.casefold()
    await chat.send_file("photo", "comprovante.jpg", b"\xff\xd8\xff jpeg")
    assert f"Pago em {clock.now - timedelta(days=1):%d/%m/%Y}" in chat.text


async def test_a_yes_in_words_confirms_and_a_person_asked_for_is_no_yes(desk: Desk, clock: FixedClock) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("quero apagar meus dados")
    await chat.say("quero falar com um atendente")  # "quero" is no yes here: a person is asked for
    assert "deixei de lado" in chat.text and "Nossa equipe vai responder por aqui" in chat.text
    assert "apaguei o vínculo" not in chat.text
    await chat.say("meus dados")
    await chat.say("pode apagar tudo")
    assert "Pronto: apaguei o vínculo deste chat" in chat.text


async def test_the_isps_phone_asked_mid_question_is_told_and_the_question_stays(desk: Desk, clock: FixedClock) -> None:
    desk.engine.policy = dataclasses.replace(desk.engine.policy, support_phone="0800 123 4567")
    chat = await desk.linked_chat(MARIA)
    await chat.say("suspender")
    await chat.tap("Suspender por um tempo")
    await chat.say("qual o telefone de vocês?")
    assert "0800 123 4567" in chat.text
    assert chat.text.endswith('de 30 a 120 dias.') and "60 dias" in chat.buttons  # the same question, asked again
    await chat.say("60")
    assert "A partir de quando?" in chat.text
