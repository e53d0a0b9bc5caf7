"""On WhatsApp too, what a person types to prove who they are is used and then gone: after a number
not on record tried its tax id (proved by WhatsApp's own word for the number), a wrong PPPoE
password, then the right one, no table of the bot's database holds a password or the tax id. The
Cloud API cannot delete a message a person sent: the password's prompt asks them to delete it."""

from __future__ import annotations

import logging

import pytest
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.store import Database

from tests.tablescan import every_row, holding
from tests.whatsapp.harness import running_whatsapp

WRONG_PASSWORD = "Errada#7319"  # a guess


async def test_a_linking_on_whatsapp_leaves_no_password_and_no_tax_id_anywhere(
    database: Database, sandbox: Sandbox, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    async with running_whatsapp(database, sandbox) as bot:
        chat = bot.chat("5511900000002")  # a number on no customer record
        await chat.say("oi")
        await chat.tap("CPF/CNPJ")
        await chat.say(D.customer_cpf)  # checked against the sender's own number at once
        assert "Não consegui confirmar" in chat.text

        await chat.tap("PPPoE")
        await chat.say(D.pppoe_login)
        assert "não fica guardada" in chat.text and "apague-a você mesmo" in chat.text
        await chat.say(WRONG_PASSWORD)
        assert "Não consegui confirmar" in chat.text
        await chat.tap("PPPoE")
        await chat.say(D.pppoe_login)
        await chat.say(D.pppoe_password)
        assert "cadastro confirmado" in chat.text
        await chat.say("quero a segunda via do boleto")

        tables = await every_row(database)
        assert holding(tables, WRONG_PASSWORD, D.pppoe_password) == []
        assert holding(tables, D.customer_cpf) == []
        assert any("pppoe_password" in row for row in tables["links"])
        assert holding(tables, "segunda via do boleto")  # later words are kept as before (the inbox)

    assert WRONG_PASSWORD not in caplog.text and D.pppoe_password not in caplog.text
    assert D.customer_cpf not in caplog.text
