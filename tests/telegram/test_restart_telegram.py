"""Restart my connection over Telegram: the answer comes at once, and the outcome later reaches the
chat the way every notice of the bot's own does (``Processor.send_notices``), its button working."""

from __future__ import annotations

from bot.sandbox import Sandbox
from bot.store import Database, Links, Proof, Role

from tests.flows.test_restart import online_without_outage
from tests.telegram.harness import running_bot


async def test_the_restart_is_answered_at_once_and_its_outcome_told_later_with_a_working_button(
    database: Database, sandbox: Sandbox,
) -> None:
    sandbox.settings.redials = False  # the router never dials in again: the ticket is offered
    async with running_bot(database, sandbox) as bot:
        chat = bot.chat(8501)
        async with database.transaction() as session:
            await Links().link(session, chat.chat_id, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE,
                               customer_code=online_without_outage(sandbox))
        await chat.start()
        await chat.say("reiniciar")
        await chat.tap("Sim, reiniciar")
        assert "te aviso aqui em até 60 segundos" in chat.text
        sandbox.clock.advance(seconds=60)
        restarts = bot.runtime.housekeeping.restarts
        assert restarts is not None
        await bot.processor.send_notices(await restarts.check())  # one round of the runtime's loop
        # (unless the runtime's own round came first: told once either way)
        await bot.api.wait_until(lambda: "não voltou" in (bot.api.sent(chat.chat_id)[-1].text or ""), within=10)
        told = bot.api.sent(chat.chat_id)[-1]
        assert sum("não voltou" in (s.text or "") for s in bot.api.sent(chat.chat_id)) == 1
        chat.replies = [told]
        await chat.tap("Abrir chamado")
        assert "Sobre o que é" in chat.text
