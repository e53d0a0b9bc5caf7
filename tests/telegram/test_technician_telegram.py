"""Technicians on Telegram: joining by the invite's deep link, and their own command menu."""

from __future__ import annotations

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.store import Database, Invites, Role

from tests.telegram.harness import joined_technician, running_bot


async def test_opening_an_invite_link_makes_a_technician_with_their_own_command_menu(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        async with database.transaction() as session:
            code = (await Invites().create(session, Role.TECHNICIAN, D.technician)).code
        chat = bot.chat(8101)
        await chat.start(code)
        assert D.technician in chat.text
        scope = {"type": "chat", "chat_id": chat.chat_id}
        names = [entry["command"] for entry in bot.api.commands(scope)]
        assert "os" in names and "boleto" not in names
        other = bot.chat(8102)
        await other.start(code)  # the same link again, from someone else
        assert "não vale" in other.text
        assert bot.api.commands({"type": "chat", "chat_id": other.chat_id}) == []


async def test_a_visit_end_to_end_from_the_invite_to_the_finished_ticket(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        maria = await bot.maria(8201)
        tech = await joined_technician(bot, 8202)

        await tech.say("/agenda")
        assert "Maria Aparecida da Silva" in tech.text
        await tech.tap("#70001")
        await tech.tap("Status da OS")
        maria_before = len(bot.api.sent(maria.chat_id))
        await tech.tap("A caminho")
        told = [sent.text or "" for sent in bot.api.sent(maria.chat_id)[maria_before:]]
        assert any("técnico está a caminho" in text for text in told)

        await tech.tap("Status da OS")
        await tech.tap("Em execução")
        assert tech.replies[-1].reply_markup["keyboard"][0][0]["request_location"] is True
        await tech.share_location(-23.5874162, -46.6345219)
        ticket = sandbox.store.find("tickets", Numero=D.ticket)
        assert ticket["Situacao_OS"] == "E"
        running = [o for o in sandbox.store.where("occurrences", Atendimento_Numero=D.ticket)
                   if o["Descricao"] == "Status da OS alterado para running"]
        assert (running[0]["Latitude"], running[0]["Longitude"]) == (-23.5874162, -46.6345219)

        await tech.tap("Ocorrência")
        await tech.send_photo("Caixa de emenda aberta")
        notes = [o["Descricao"] for o in sandbox.store.where("occurrences", Atendimento_Numero=D.ticket)]
        assert "Caixa de emenda aberta" in notes

        await tech.tap("Checklist")
        await tech.tap("Conferir sinal")
        await tech.tap("Testar velocidade")
        await tech.tap("Pronto")

        await tech.tap("Materiais")
        await tech.tap("Usado")
        await tech.say("3")
        await tech.tap("Sem série")
        await tech.say("12,5")
        await tech.say("1")
        await tech.tap("Registrar")
        assert [i["product_id"] for i in sandbox.store.rows("ticket_items") if i["ticket_id"] == D.ticket] == [3]

        await tech.tap("Encerrar")
        await tech.tap("ONU travada")
        await tech.say("ONU reiniciada e sinal conferido")
        maria_before = len(bot.api.sent(maria.chat_id))
        await tech.tap("Encerrar")
        assert "Chamado #70001 encerrado" in tech.text
        closed = sandbox.store.find("tickets", Numero=D.ticket)
        assert closed["Encerramento_DataHora"]
        told = "\n".join(sent.text or "" for sent in bot.api.sent(maria.chat_id)[maria_before:])
        assert "visita técnica" in told and "https://pesquisa.provedor.example.com.br/q/" in told
