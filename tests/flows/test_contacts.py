"""Every contact has a protocol, told with its date and time in the contact's first answer; what the
contact was about and came to is recorded against it (``flows.contacts``)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

from bot.store import Contacts

from tests.flows.harness import Desk
from tests.flows.test_new_ticket import quiet_customer, tickets_of

PROTOCOL = re.compile(r"Protocolo deste atendimento: (\d{14,}) \((\d\d/\d\d/\d{4} \d\d:\d\d)\)")


def protocol_in(text: str) -> str | None:
    found = PROTOCOL.search(text)
    return found.group(1) if found else None


async def test_the_first_answer_tells_the_protocol_with_date_and_time(desk: Desk) -> None:
    chat = desk.chat()
    await chat.say("oi")
    found = PROTOCOL.search(chat.text)
    assert found is not None, chat.text
    assert found.group(1).startswith("20250310")  # the ISP's date (the clock is at 09:30 in São Paulo)
    assert found.group(2) == "10/03/2025 09:30"
    assert chat.text.index("Protocolo") < chat.text.index("Olá")  # ahead of the answer itself


async def test_a_message_within_the_quiet_spell_keeps_the_contact_and_one_after_it_opens_another(desk: Desk) -> None:
    chat = await desk.linked_chat()
    first = protocol_in(chat.text)
    assert first is not None
    desk.clock.advance(minutes=29)
    await chat.say("segunda via")
    assert protocol_in(chat.text) is None  # the same contact: no new protocol
    desk.clock.advance(minutes=31)
    await chat.say("segunda via")
    second = protocol_in(chat.text)
    assert second is not None and second != first
    assert int(second[8:]) > int(first[8:])


async def test_the_contact_records_the_flows_it_used(desk: Desk) -> None:
    chat = await desk.linked_chat()
    protocol = protocol_in(chat.text)
    await chat.say("segunda via")
    await chat.say("meus chamados")
    async with desk.database.transaction() as session:
        contact = await Contacts().by_protocol(session, protocol or "")
    assert contact is not None
    assert contact.customer_code is not None
    assert contact.subjects == ["bills", "my_tickets"]


async def test_english_and_spanish_chats_hear_the_protocol_in_their_language(desk: Desk) -> None:
    english = desk.chat(language="en")
    await english.say("hello")
    assert re.search(r"Protocol of this contact: \d{14} \(3/10/2025, 9:30\s?AM\)", english.text), english.text
    spanish = desk.chat(language="es")
    await spanish.say("hola")
    assert re.search(r"Protocolo de esta atención: \d{14} \(10/3/2025, 9:30\s?a\.\s?m\.\)", spanish.text), spanish.text


async def test_a_ticket_opened_in_a_contact_is_tied_to_it_with_the_complaint_term(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    protocol = protocol_in(chat.text)
    await chat.command("ticket")
    await chat.tap("Lentidão")
    await chat.say("Lenta toda noite")
    await chat.tap("Abrir chamado")
    assert "Chamado aberto" in chat.text
    (ticket,) = [t for t in tickets_of(desk.sandbox, customer) if t["Assunto"] == "Lentidão"]
    async with desk.database.transaction() as session:
        contact = await Contacts().by_protocol(session, protocol or "")
    assert contact is not None
    (opened,) = contact.outcomes
    assert (opened.subject, opened.outcome, opened.ticket_id) == ("new_ticket", "ticket_opened", int(ticket["Numero"]))
    assert opened.deadline == "complaint"
    assert opened.due_at is not None and opened.due_at - opened.at == timedelta(days=7)


async def test_the_staff_card_shows_the_contact_protocol(desk: Desk) -> None:
    desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
    chat = await desk.linked_chat()
    protocol = protocol_in(chat.text)
    await chat.say("quero falar com um atendente")
    [handoff] = chat.handoffs
    assert f"Atendimento (contato) {protocol}" in handoff.summary["card"]
    stranger = desk.chat(name="Ana")
    await stranger.start()
    theirs = protocol_in(stranger.text)
    await stranger.say("quero falar com um atendente")
    [handoff] = stranger.handoffs
    assert theirs != protocol and f"Atendimento (contato) {theirs}" in handoff.summary["card"]
