"""Technicians on Telegram: joining by the invite's deep link, and their own command menu."""

from __future__ import annotations

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.store import Database, Invites, Role

from tests.telegram.harness import running_bot


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
