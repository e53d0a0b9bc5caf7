"""The outage notifier: a chat that asked "tell me when it ends" is told once, in its language, when
the failover event is finished; and the locale files of these flows hold together."""

from __future__ import annotations

import pytest
from bot.i18n import LANGUAGES, Translations, plain_text
from bot.sandbox import DEMO_IDENTITIES
from flows.outages import OutageNotifier
from flows.replies import Message, Notice

from tests.flows.harness import Desk

MARIA = DEMO_IDENTITIES.customer
EVENT = 1  # the seeded open failover event that affects Maria


def finish_event(desk: Desk, up: str = "2025-03-10 11:15:00") -> None:
    """The ISP's monitor closes the failover event, as the management system stores it."""
    event = desk.sandbox.store.find("failover", Id=EVENT)
    assert event is not None and event["Status"] == "O"
    event.update(Status="C", UpTime=up, Duration=795, Cause=4, Solution="Equipamento reiniciado")


def texts(notices: list[Notice]) -> dict[int, str]:
    return {n.chat_id: plain_text(n.reply.text) for n in notices if isinstance(n.reply, Message)}


async def watching_chat(desk: Desk, language: str = "pt-br") -> int:
    chat = await desk.linked_chat(MARIA, language=language)
    await chat.command("conexao")
    await chat.tap("🔔")
    return chat.chat_id


async def test_watchers_are_told_once_when_the_event_ends(desk: Desk) -> None:
    notifier = OutageNotifier(desk.database, desk.engine.coordinator)
    first, second = await watching_chat(desk), await watching_chat(desk)
    assert await notifier.check() == []  # still open: nobody is told anything

    finish_event(desk)
    told = texts(await notifier.check())
    assert set(told) == {first, second}
    assert "a falha na rede que afetava a sua conexão foi resolvida às 11:15 de 10/03/2025" in told[first]
    assert await notifier.check() == []  # each is told once


async def test_each_chat_is_told_in_its_language(desk: Desk) -> None:
    notifier = OutageNotifier(desk.database, desk.engine.coordinator)
    chat = await desk.linked_chat(MARIA)
    await chat.command("idioma")
    await chat.tap("English")
    await chat.command("connection")
    await chat.tap("Tell me")
    untold = await watching_chat(desk, language=None)  # never picked a language: Portuguese
    finish_event(desk)
    told = texts(await notifier.check())
    assert "Good news: the network failure that affected your connection was fixed" in told[chat.chat_id]
    assert "Boa notícia" in told[untold]


async def test_an_isp_that_is_down_delays_the_news_without_losing_it(desk: Desk) -> None:
    notifier = OutageNotifier(desk.database, desk.engine.coordinator)
    chat = await watching_chat(desk)
    finish_event(desk)
    desk.sandbox.faults.go_down()
    assert await notifier.check() == []
    desk.sandbox.faults.come_back()
    assert set(texts(await notifier.check())) == {chat}


async def test_checking_costs_one_read_per_watched_event(desk: Desk) -> None:
    notifier = OutageNotifier(desk.database, desk.engine.coordinator)
    for _ in range(5):
        await watching_chat(desk)
    desk.sandbox.reset_calls()
    await notifier.check()
    assert desk.sandbox.call_count() == desk.sandbox.call_count("FailOverEvents") == 1


@pytest.mark.parametrize("topic", ["new_ticket", "my_tickets", "connection", "outages"])
def test_every_language_has_the_same_keys_and_every_key_renders(topic: str) -> None:
    translations = Translations()
    samples = translations.samples()
    keys = {lang: {k for k in translations.keys(lang) if k.startswith(f"{topic}.")} for lang in LANGUAGES}
    assert keys["pt_BR"] and keys["en"] == keys["pt_BR"] == keys["es"]
    for lang in LANGUAGES:
        for key in keys[lang]:
            assert translations.render(lang, key, **samples.get(key, {})).strip()


async def test_right_after_the_notice_the_connection_no_longer_reports_the_outage(desk: Desk) -> None:
    notifier = OutageNotifier(desk.database, desk.engine.coordinator)
    chat = await desk.linked_chat(MARIA)
    await chat.command("conexao")
    assert "falha na nossa rede" in chat.text
    await chat.tap("🔔")
    finish_event(desk)
    assert chat.chat_id in texts(await notifier.check())
    await chat.command("conexao")  # at once: no cache may still hold the open event
    assert "falha na nossa rede" not in chat.text
    assert "Sua conexão está" in chat.text
