"""The bot end to end over HTTP, polling the fake Bot API, with the sandbox ISP behind it."""

from __future__ import annotations

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import PRODUCTION_KEY, Sandbox
from bot.store import Database

from tests.telegram.harness import running_bot


async def test_a_subscriber_links_by_contact_and_gets_a_digitable_line(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(7001)
        await chat.start()
        assert "titular do cadastro" in chat.text
        assert all(sent.parse_mode == "HTML" for sent in chat.replies)
        await chat.tap("CPF/CNPJ")
        await chat.say(D.customer_cpf)
        keyboard = chat.replies[-1].reply_markup or {}
        assert keyboard["one_time_keyboard"] is True
        assert keyboard["keyboard"][0][0]["request_contact"] is True
        await chat.share_contact("+55 11 98765-4321")
        assert "cadastro confirmado" in chat.text
        await chat.say("/boleto")
        await chat.tap("28/03/2025")
        line = sandbox.v1("ConsultaLinhaDigitavelBoleto", {"DadosLinhaDigitavelEntrada": {
            "CliFor": D.customer, "Documento": 100002, "BoletoAtualizado": "N"}}, key=PRODUCTION_KEY)
        assert f"<code>{line['result'][0]['LinhaDigitavel']}</code>" in chat.text
        assert len(bot.api.answered_callbacks) == 2  # each button press was acknowledged
