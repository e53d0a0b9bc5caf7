"""Typing instead of tapping, over Telegram end to end: a greeting, a topic and the buttons typed, a
ticket opened, then a cancellation that is its own request, one message a turn."""

from __future__ import annotations

from bot.sandbox import Sandbox
from bot.store import Database

from tests.telegram.harness import running_bot


async def test_a_ticket_opened_by_typing_and_a_cancellation_that_is_not_buried_in_it(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        chat = await bot.maria(7401)
        turns = []
        for said in ("/chamado", "bom dia", "lentidao", "abrir chamado mesmo assim",
                     "A internet fica lenta toda noite", "abrir", "quero cancelar meu plano"):
            await chat.say(said)
            turns.append((said, chat.text, len(chat.replies)))
        by_said = {said: text for said, text, _ in turns}
        assert all(sends == 1 for _, _, sends in turns), [(s, n) for s, _, n in turns]
        assert "Olá" in by_said["bom dia"] and "Sobre o que é" in by_said["bom dia"]
        assert "falha na nossa rede" in by_said["lentidao"]  # the outage, now that the topic is the connection
        assert "conte em poucas palavras" in by_said["abrir chamado mesmo assim"]
        assert "Confira o seu chamado" in by_said["A internet fica lenta toda noite"]
        assert "Chamado aberto" in by_said["abrir"]
        assert "Anotado" not in by_said["quero cancelar meu plano"]
        assert "Você quer cancelar o seu plano" in by_said["quero cancelar meu plano"]
