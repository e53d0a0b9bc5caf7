"""The bot on Telegram end to end, over real HTTP against the fake Bot API: what a person (or Telegram's
own redeliveries, flood control and a crash) can throw at it."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from bot.channels.telegram import polling
from bot.runtime.processor import LEASE
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import PRODUCTION_KEY, Sandbox
from bot.store import Database, Inbox, InboxState, utcnow
from bot.store.models import InboxRow
from sqlalchemy import update as sql_update

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, TelegramChat, running_bot

BUTTON_EXPIRED = "Esse botão já não vale mais"
HELP = "Eu sou o assistente virtual do seu provedor"
GREETING = "Antes de tudo, preciso confirmar que você é o titular do cadastro"
LINK_HINT = "Escolha uma das formas de identificação"
FILE_BEFORE_LINK = "preciso antes confirmar que você é o titular do cadastro"
PRIVATE_SCOPE = {"type": "all_private_chats"}
OTHER_GROUP = -1009876543210


def texts(bot: RunningBot, chat_id: int) -> list[str]:
    return [sent.text or "" for sent in bot.api.sent(chat_id)]


def kinds(messages: list[str]) -> list[str]:
    """What the messages say, in order, for order checks (a turn's texts come joined in one message)."""
    names = {HELP: "help", GREETING: "greeting", LINK_HINT: "hint"}
    out: list[str] = []
    for text in messages:
        found = sorted((text.index(marker), name) for marker, name in names.items() if marker in text)
        out += [name for _, name in found] or ["other"]
    return out


async def state_of(bot: RunningBot, update_id: int) -> str | None:
    row = await bot.inbox_row(update_id)
    return None if row is None else row.state


async def set_row(bot: RunningBot, update_id: int, **values: Any) -> None:
    """Change an inbox row the way a process that stopped at some point would have left it."""
    async with bot.app.database.transaction() as session:
        await session.execute(sql_update(InboxRow).where(InboxRow.update_id == update_id).values(**values))


async def settled(bot: RunningBot, chat: TelegramChat) -> None:
    """Everything the chat sent before is finished: a later update of the same chat was answered
    (a chat's updates are processed, and their answers sent, in order)."""
    await chat.say("/ajuda")
    assert kinds([sent.text or "" for sent in chat.replies]) == ["help", "greeting"]


# ---- 1. someone else's button ------------------------------------------------------------------
async def test_a_button_of_another_chat_is_refused_and_reveals_nothing(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        owner = await bot.maria(7101)
        await owner.say("/boleto")
        token = owner.button("28/03/2025")
        owner_messages = len(bot.api.sent(owner.chat_id))

        intruder = bot.chat(7102)
        await intruder.start()
        press = tg.callback_query(intruder.chat_id, token, message_id=intruder.replies[-1].message_id)
        await intruder.send(press)

        assert BUTTON_EXPIRED in (intruder.replies[0].text or "")
        assert GREETING in intruder.text  # the intruder's own question again, nothing else
        line = sandbox.v1("ConsultaLinhaDigitavelBoleto", {"DadosLinhaDigitavelEntrada": {
            "CliFor": D.customer, "Documento": 100002, "BoletoAtualizado": "N"}}, key=PRODUCTION_KEY)
        digitable = line["result"][0]["LinhaDigitavel"]
        everything_said = "\n".join(texts(bot, intruder.chat_id))
        for secret in (digitable, "28/03/2025", D.customer_name, D.customer_cpf, "R$"):
            assert secret not in everything_said
        await bot.api.wait_until(
            lambda: press["callback_query"]["id"] in {a["callback_query_id"] for a in bot.api.answered_callbacks},
            within=5,
        )

        # The owner's conversation did not move: nothing was sent to them, and their button still works.
        assert len(bot.api.sent(owner.chat_id)) == owner_messages
        await owner.tap("28/03/2025")
        assert f"<code>{digitable}</code>" in owner.text


# ---- 2. the same update twice ------------------------------------------------------------------
async def test_an_update_delivered_twice_in_one_batch_is_answered_once(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(7201)
        update = {"update_id": 500, **tg.text_message(chat.chat_id, "/ajuda")}
        bot.api.push_update(update)
        bot.api.push_update(dict(update))  # pushed together: one getUpdates returns both
        await bot.handled(500)
        await settled(bot, chat)
        assert kinds(texts(bot, chat.chat_id)) == ["help", "greeting"] * 2


async def test_an_update_redelivered_after_a_restart_is_answered_once(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(7202)
        update = {"update_id": 600, **tg.text_message(chat.chat_id, "/ajuda")}
        bot.api.push_update(update)
        await bot.handled(600)
        await bot.shutdown()

        # Telegram had not seen the offset confirmed: it hands the same update to the next process.
        bot.api.push_update(dict(update))
        await bot.start()
        await bot.api.wait_until(lambda: not bot.api.pending_updates, within=5)
        await settled(bot, chat)
        assert kinds(texts(bot, chat.chat_id)) == ["help", "greeting"] * 2

        # And the intake itself keeps an update once, whoever stores it.
        assert await bot.channel.intake.store([update, dict(update)], "webhook") == 0


# ---- 3. an update nobody can parse ---------------------------------------------------------------
async def test_an_unparseable_update_is_skipped_and_the_next_one_in_the_batch_answered(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        chat_id = 1111111
        broken = bot.api.push_update(tg.malformed_update(chat_id))
        after = bot.api.push_update(tg.text_message(chat_id, "/ajuda"))  # same chat, behind the broken one
        await bot.handled(after)

        assert await state_of(bot, broken) == InboxState.FAILED.value
        assert await state_of(bot, after) == InboxState.DONE.value
        assert kinds(texts(bot, chat_id)) == ["help", "greeting"]  # nothing for the broken one
        await bot.api.wait_until(lambda: not bot.api.pending_updates, within=5)  # both confirmed


async def test_text_the_database_cannot_hold_as_is_stalls_nobody(database: Database, sandbox: Sandbox) -> None:
    """PostgreSQL's JSONB refuses a NUL character and a lone surrogate: such an update must not block
    every later one (the poller retried the same batch forever), and its chat still gets an answer."""
    async with running_bot(database, sandbox) as bot:
        odd = bot.api.push_update(tg.text_message(7901, "oi\x00 tudo bem"))
        after = bot.api.push_update(tg.text_message(7902, "/ajuda"))
        await bot.handled_all([odd, after])
        assert kinds(texts(bot, 7902)) == ["help", "greeting"]
        assert kinds(texts(bot, 7901)) == ["greeting"]

        # Not even valid Unicode (only a forged webhook post could carry it): kept, and answered.
        broken = {"update_id": 5000, **tg.text_message(7903, "oi\ud800")}
        assert await bot.channel.intake.store([broken], "webhook") == 1
        await bot.handled(5000)
        assert kinds(texts(bot, 7903)) == ["greeting"]


# ---- 4. a crowd ----------------------------------------------------------------------------------
async def test_two_hundred_chats_at_once_each_answered_in_its_own_order(
    database: Database, sandbox: Sandbox,
) -> None:
    chats = range(810_000, 810_200)
    async with running_bot(database, sandbox) as bot:
        ids = [bot.api.push_update(tg.text_message(chat_id, "/ajuda")) for chat_id in chats]
        await bot.api.wait_until(lambda: bool(bot.api.outgoing()), within=5)  # the bot is at work
        ids += [bot.api.push_update(tg.text_message(chat_id, "/menu")) for chat_id in chats]
        # A bound on the wait, not on speed (what is checked is the order): generous, as the suite's
        # other worker and the database server share the cores meanwhile.
        await bot.handled_all(ids, within=60)

        by_chat: dict[int | str, list[str]] = {chat_id: [] for chat_id in chats}
        for sent in bot.api.outgoing():
            by_chat[sent.chat_id].append(sent.text or "")
        wrong = {chat_id: kinds(said) for chat_id, said in by_chat.items()
                 if kinds(said) != ["help", "greeting", "greeting"]}
        assert not wrong, f"{len(wrong)} chats answered out of order or incompletely, e.g. {next(iter(wrong.items()))}"


# ---- 5. flood control for one chat ------------------------------------------------------------------
async def test_a_429_for_one_chat_holds_back_only_that_chat(database: Database, sandbox: Sandbox) -> None:
    flooded, others = 7501, range(7502, 7507)
    async with running_bot(database, sandbox) as bot:
        bot.api.fail_next("sendMessage", 429, retry_after=1, chat_id=flooded)
        ids = [bot.api.push_update(tg.text_message(flooded, "/ajuda")),
               bot.api.push_update(tg.text_message(flooded, "/menu"))]
        ids += [bot.api.push_update(tg.text_message(chat_id, "/ajuda")) for chat_id in others]
        await bot.handled_all(ids, within=10)

        assert bot.channel.sender.stats.by_error.get("RetryAfter") == 1
        # None lost, none twice, still in order.
        assert kinds(texts(bot, flooded)) == ["help", "greeting", "greeting"]
        for chat_id in others:
            assert kinds(texts(bot, chat_id)) == ["help", "greeting"]
        # The others were answered while the flooded chat waited out its retry_after.
        order = [sent.chat_id for sent in bot.api.outgoing()]
        assert order.index(flooded) > max(i for i, chat_id in enumerate(order) if chat_id in others)


# ---- 6. a crash -------------------------------------------------------------------------------------
async def test_an_update_stored_but_not_processed_before_a_crash_is_answered_after_restart(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(7601)
        await bot.shutdown()

        # A process stored the update (and confirmed it to Telegram), claimed it, and died mid-step:
        # nothing of the step committed, the lease runs out.
        update = {"update_id": 900, **tg.text_message(chat.chat_id, "/ajuda")}
        assert await bot.channel.intake.store([update], "polling") == 1
        async with database.transaction() as session:
            claimed = await Inbox(lease=LEASE).claim_pending(session, 10)
        assert [item.update_id for item in claimed] == [900]
        await set_row(bot, 900, available_at=utcnow() - timedelta(seconds=1))  # its lease ran out

        await bot.start()
        await bot.handled(900)
        row = await bot.inbox_row(900)
        assert row is not None and row.attempts == 2
        await settled(bot, chat)
        assert kinds(texts(bot, chat.chat_id)) == ["help", "greeting"] * 2

        # Another restart answers nothing again.
        await bot.shutdown()
        await bot.start()
        await settled(bot, chat)
        assert kinds(texts(bot, chat.chat_id)) == ["help", "greeting"] * 3


async def test_an_update_stored_while_nothing_runs_is_answered_at_start(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(7602)
        await bot.shutdown(graceful=False)
        update = {"update_id": 950, **tg.text_message(chat.chat_id, "/ajuda")}
        assert await bot.channel.intake.store([update], "webhook") == 1
        await bot.start()
        await bot.handled(950)
        await settled(bot, chat)
        assert kinds(texts(bot, chat.chat_id)) == ["help", "greeting"] * 2


async def test_an_answer_recorded_but_not_sent_before_a_crash_is_sent_after_restart(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(7603)
        update_id = bot.api.push_update(tg.text_message(chat.chat_id, "/ajuda"))
        await bot.handled(update_id)
        answer: list[dict[str, Any]] = [{"method": s.method, "params": s.params} for s in bot.api.sent(chat.chat_id)]
        await bot.shutdown()

        # As a process that committed the step (done, with its answer) and died before Telegram took it.
        await set_row(bot, update_id, answer=answer, available_at=utcnow() - timedelta(seconds=1))
        await bot.start()
        await bot.handled(update_id)  # sent again, and recorded as delivered
        assert kinds(texts(bot, chat.chat_id)) == ["help", "greeting"] * 2
        sent = texts(bot, chat.chat_id)
        assert sent[: len(sent) // 2] == sent[len(sent) // 2 :]  # the same answer, again

        await bot.shutdown()
        await bot.start()
        await settled(bot, chat)
        assert kinds(texts(bot, chat.chat_id)) == ["help", "greeting"] * 3  # not a third time


# ---- 7. button acknowledgements and the command menu ------------------------------------------------
async def test_button_presses_are_acknowledged_and_the_menu_is_published_per_language(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(7701)
        await chat.start()
        press = tg.callback_query(chat.chat_id, chat.button("CPF/CNPJ"), message_id=chat.replies[-1].message_id)
        await chat.send(press)
        assert "CPF" in chat.text
        await bot.api.wait_until(
            lambda: [a["callback_query_id"] for a in bot.api.answered_callbacks] == [press["callback_query"]["id"]],
            within=5,
        )

        def names(language: str) -> list[str]:
            return [command["command"] for command in bot.api.commands(PRIVATE_SCOPE, language)]

        assert "boleto" in names("pt") and "ajuda" in names("pt")
        assert "bills" in names("en") and "help" in names("en")
        assert names("es") and names("es") != names("en")
        assert names("") == names("pt")  # clients in any other language get Portuguese
        assert all(command["description"] for command in bot.api.commands(PRIVATE_SCOPE, "en"))


# ---- 8. groups and media -------------------------------------------------------------------------
async def test_group_messages_get_no_answer_and_media_reach_the_conversation(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        quiet = [
            bot.api.push_update(tg.topic_message(1001, "cliente já foi atendido")),
            bot.api.push_update(tg.group_reply(tg.STAFF_GROUP_ID, 40, "ok")),
            bot.api.push_update(tg.group_reply(OTHER_GROUP, 41, "alguém aí?")),
            bot.api.push_update(tg.text_message(OTHER_GROUP, "/ajuda", user_id=556)),
            bot.api.push_update(tg.callback_query(OTHER_GROUP, "sometoken", user_id=556)),
        ]
        await bot.handled_all(quiet)
        for update_id in quiet:
            assert await state_of(bot, update_id) == InboxState.DONE.value
        assert bot.api.outgoing(tg.STAFF_GROUP_ID) == []
        assert bot.api.outgoing(OTHER_GROUP) == []

        chat = bot.chat(7801)
        await chat.start()
        await chat.send(tg.photo_message(chat.chat_id, caption="foto do roteador"))
        assert FILE_BEFORE_LINK in chat.text  # the link step got it (not a button, not the staff)
        await chat.send(tg.document_message(chat.chat_id, caption="comprovante"))
        assert FILE_BEFORE_LINK in chat.text


async def test_a_press_the_bot_ignores_still_stops_the_spinner(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        press = tg.callback_query(OTHER_GROUP, "sometoken", user_id=556)
        await bot.handled(bot.api.push_update(press))
        await bot.api.wait_until(
            lambda: [a["callback_query_id"] for a in bot.api.answered_callbacks] == [press["callback_query"]["id"]],
            within=5,
        )
        assert bot.api.outgoing(OTHER_GROUP) == []


async def test_ids_too_large_for_telegram_are_dropped_and_stall_nobody(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox, mode="webhook") as bot:
        forged = tg.text_message(2**70, "/ajuda")
        response = await bot.post({"update_id": 2**70, **forged})
        assert response.status_code == 200  # nothing to store: Telegram would never send it again
        response = await bot.post({"update_id": 77, **tg.text_message(2**64, "/ajuda")})
        assert response.status_code == 200
        chat = bot.chat(7901)
        update = {"update_id": 78, **tg.text_message(chat.chat_id, "/ajuda")}
        assert (await bot.post(update)).status_code == 200
        await bot.handled(78)
        assert HELP in "\n".join(texts(bot, chat.chat_id))


async def test_stopping_does_not_wait_for_the_long_poll_in_flight(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox, poll_timeout=20) as bot:
        bot.api.max_poll_timeout = 20.0  # a real long poll; stopping must not wait it out
        await bot.chat(7951).say("/ajuda")
        async with asyncio.timeout(5):
            await bot.shutdown()


@pytest.mark.parametrize("timedelta_form", ["false", "true"])
async def test_polling_waits_as_long_as_flood_control_asks_then_goes_on(
    database: Database, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, timedelta_form: str,
) -> None:
    """A 429 on getUpdates: the next poll waits Telegram's retry_after, in either form
    python-telegram-bot gives it (seconds, or a timedelta with PTB_TIMEDELTA set)."""
    monkeypatch.setenv("PTB_TIMEDELTA", timedelta_form)
    asked: list[float] = []
    pause = polling._pause

    async def recorded(stop: asyncio.Event, seconds: float) -> None:
        asked.append(seconds)
        await pause(stop, 0.05)  # the wait itself is not what this test is about

    monkeypatch.setattr(polling, "_pause", recorded)
    async with running_bot(database, sandbox) as bot:
        bot.api.fail_next("getUpdates", 429, retry_after=7)
        await bot.chat(7961).say("/ajuda")
        assert HELP in "\n".join(texts(bot, 7961))
    assert asked == [7.0]
