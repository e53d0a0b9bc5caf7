"""Contacts over Telegram: the protocol rides in the contact's first message (one message for the
turn), and the staff desk (the group's forum) hears of a deadline close to its end, once
(``bot.runtime.housekeeping``)."""

from __future__ import annotations

import re
from datetime import timedelta

from bot.sandbox import Sandbox
from bot.store import Contacts, Database

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import running_bot


async def test_the_protocol_comes_in_the_first_message_and_staff_hear_of_a_deadline(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        maria = await bot.maria(8401)
        first = bot.api.sent(maria.chat_id)[0].text or ""
        found = re.search(r"Protocolo deste atendimento: <b>(\d{14})</b>", first)  # Telegram HTML
        assert found is not None and "Olá" in first  # the protocol and the greeting: one message
        async with database.transaction() as session:
            contact = await Contacts().by_protocol(session, found.group(1))
            assert contact is not None
            now = bot.app.coordinator.now()
            await Contacts().record(session, contact.id, "paid", "payment_noticed", at=now - timedelta(days=9),
                                    reference="2025031070003", deadline="request", due_at=now + timedelta(days=1))
        await bot.runtime.housekeeping.warn_deadlines()
        await bot.runtime.housekeeping.warn_deadlines()  # told once
        await bot.desk_done()  # through the staff desk (the forum): its general topic
        warnings = [s for s in bot.api.sent(tg.STAFF_GROUP_ID) if "Prazo perto do fim" in (s.text or "")]
        assert len(warnings) == 1 and warnings[0].message_thread_id is None
        warnings = [s.text or "" for s in warnings]
        assert found.group(1) in warnings[0] and "solicitação" in warnings[0]


async def test_meu_protocolo_typed_on_telegram_gives_the_contact_s_protocol_and_the_list(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        maria = await bot.maria(8411)
        first = bot.api.sent(maria.chat_id)[0].text or ""
        found = re.search(r"Protocolo deste atendimento: <b>(\d{14})</b>", first)
        assert found is not None
        await maria.say("meu protocolo")
        assert f"📋 Protocolo deste atendimento: <b>{found.group(1)}</b>" in maria.text
        assert f"Protocolo <b>{found.group(1)}</b> · " in maria.text and "Seus atendimentos" in maria.text
        assert "Você tem" not in maria.text  # not the tickets' list
