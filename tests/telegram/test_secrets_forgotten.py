"""What a person types to prove who they are is used and then gone: after a chat linked with a wrong
PPPoE password, then the right one, and a tax id with a phone not on record before that, no table of
the bot's database holds either password or the tax id, no log line does, and Telegram deleted each
password message from the chat (``Flow.forgets``, ``bot.store.inbox.Inbox.forget``)."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.sandbox.genieacs import FakeGenieAcs, tr098_device
from bot.store import Database

from tests.tablescan import every_row, holding
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import TelegramChat, running_bot

WRONG_PASSWORD = "Errada#7319"  # a guess


async def say(chat: TelegramChat, words: str) -> int:
    """Type ``words``; the message's id."""
    update: dict[str, Any] = tg.text_message(chat.chat_id, words)
    await chat.send(update)
    return int(update["message"]["message_id"])


async def test_a_linking_leaves_no_password_and_no_tax_id_anywhere(
    database: Database, sandbox: Sandbox, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    cpf = D.customer_cpf
    formatted = f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}"
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(8801)
        await chat.start()
        await chat.tap("CPF/CNPJ")
        typed_cpf = await say(chat, formatted)
        await chat.share_contact("+55 11 91234-0000")  # her own, but not the number on record
        assert "Não consegui confirmar" in chat.text

        await chat.tap("PPPoE")
        first_login = await say(chat, D.pppoe_login)
        assert "não fica guardada" in chat.text
        assert "apago desta conversa as suas mensagens com o login e a senha" in chat.text
        wrong = await say(chat, WRONG_PASSWORD)
        assert "Não consegui confirmar" in chat.text
        await chat.tap("PPPoE")
        second_login = await say(chat, D.pppoe_login)
        right = await say(chat, D.pppoe_password)
        assert "cadastro confirmado" in chat.text

        later = await say(chat, "quero a segunda via do boleto")  # the linked chat goes on as before
        assert chat.replies

        # Telegram: the secret's messages (the PPPoE login and password, each time) deleted from the
        # chat, and nothing else; the tax id stays in the person's own chat (the bot forgot it).
        secrets = [first_login, wrong, second_login, right]
        assert sorted(bot.api.deleted) == sorted((chat.chat_id, message) for message in secrets)
        assert (chat.chat_id, typed_cpf) not in bot.api.deleted and (chat.chat_id, later) not in bot.api.deleted

        tables = await every_row(database)
        assert holding(tables, WRONG_PASSWORD, D.pppoe_password) == []
        assert holding(tables, cpf, formatted) == []
        assert holding(tables, "91234-0000", "5511912340000") == []
        # The link stands, proved by the password; later words are kept as before (two days, inbox).
        assert any("pppoe_password" in row for row in tables["links"])
        assert holding(tables, "segunda via do boleto")

    logged = caplog.text
    assert WRONG_PASSWORD not in logged and D.pppoe_password not in logged
    assert not re.search(rf"{cpf}|{re.escape(formatted)}", logged)


async def test_a_password_the_isp_could_not_check_is_gone_all_the_same(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(8802)
        await chat.start()
        await chat.tap("PPPoE")
        await say(chat, D.pppoe_login)
        sandbox.faults.go_down("ConsultaAutenticacaoSenha")
        typed = await say(chat, D.pppoe_password)
        sandbox.faults.come_back()
        assert "fora do ar" in chat.text and "senha PPPoE" in chat.text  # said down, the password asked again
        assert (chat.chat_id, typed) in bot.api.deleted
        assert holding(await every_row(database), D.pppoe_password) == []


async def test_a_password_the_person_deleted_first_leaves_nothing_to_send_again(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(8803)
        await chat.start()
        await chat.tap("PPPoE")
        await say(chat, D.pppoe_login)
        update: dict[str, Any] = tg.text_message(chat.chat_id, D.pppoe_password)
        bot.api.delete_by_user(chat.chat_id, int(update["message"]["message_id"]))  # as the prompt suggests
        await chat.send(update)
        assert "cadastro confirmado" in chat.text
        tables = await every_row(database)
        assert tables["dead_letters"] == []  # Telegram's "not found" is no answer to send again
        assert holding(tables, D.pppoe_password) == []


async def test_a_new_wifi_password_is_applied_and_kept_nowhere(
    database: Database, sandbox: Sandbox, caplog: pytest.LogCaptureFixture,
) -> None:
    """Typed twice (the second time to confirm), mistyped once: each message deleted from the chat,
    the router has it, and no table, log line or reply holds it."""
    caplog.set_level(logging.DEBUG)
    serial = next(str(e["serial"]) for e in sandbox.store.rows("equipment") if e["customer_id"] == D.customer)
    nbi = FakeGenieAcs()
    device = nbi.add(tr098_device(serial))
    wifi_password, mistyped = "Wifi#Casa2026", "Wifi#Casa2062"
    async with running_bot(database, sandbox, acs=nbi) as bot:
        chat = await bot.maria(8804)
        await say(chat, "quero trocar a senha do wifi")
        await chat.tap("Senha do Wi-Fi")
        assert "Eu apago a sua mensagem desta conversa e não guardo a senha" in chat.text
        first = await say(chat, wifi_password)
        wrong = await say(chat, mistyped)
        assert "não ficaram iguais" in chat.text
        again = await say(chat, wifi_password)
        confirmed = await say(chat, wifi_password)
        assert "aplicada" in chat.text
        assert nbi.value(device, "InternetGatewayDevice.LANDevice.1.WLANConfiguration.5.PreSharedKey.1.PreSharedKey") \
            == wifi_password
        assert sorted(bot.api.deleted) == sorted((chat.chat_id, m) for m in (first, wrong, again, confirmed))
        tables = await every_row(database)
        assert holding(tables, wifi_password, mistyped) == []
        assert all(wifi_password not in str(sent) for sent in bot.api.sent(chat.chat_id))
    assert wifi_password not in caplog.text and mistyped not in caplog.text
