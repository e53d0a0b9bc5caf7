"""Every contact has a protocol, told with its date and time in the contact's first answer; what the
contact was about and came to is recorded against it (``flows.contacts``)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

from bot.sandbox import DEMO_IDENTITIES
from bot.store import ChatStates, Contacts, Links, Origin, Outbox
from bot.store.models import LinkRow
from sqlalchemy import func, select

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
    async with desk.database.transaction() as session:
        queued = [entry.message for entry in await Outbox().claim_batch(session, 100)]
    said = [m.content for m in queued if m.ticket_id == int(ticket["Numero"]) and m.origin is Origin.SYSTEM]
    # the ticket's history in the ISP system names the contact it was opened in
    assert f"Chamado aberto pelo chat no atendimento de protocolo {protocol}, iniciado em 10/03/2025 09:30." in said


async def test_the_staff_card_shows_the_contact_protocol(desk: Desk) -> None:
    desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
    chat = await desk.linked_chat()
    protocol = protocol_in(chat.text)
    await chat.say("quero falar com um atendente")
    [handoff] = chat.handoffs
    assert f"Protocolo do atendimento: {protocol}" in handoff.summary["card"]
    stranger = desk.chat(name="Ana")
    await stranger.start()
    theirs = protocol_in(stranger.text)
    await stranger.say("quero falar com um atendente")
    [handoff] = stranger.handoffs
    assert theirs != protocol and f"Protocolo do atendimento: {theirs}" in handoff.summary["card"]


# ---- "Meus atendimentos" ---------------------------------------------------------------------------
async def test_my_contacts_lists_each_contact_with_protocol_date_subject_and_outcome(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    first = protocol_in(chat.text)
    await chat.command("ticket")
    await chat.tap("Lentidão")
    await chat.say("Lenta toda noite")
    await chat.tap("Abrir chamado")
    (ticket,) = [t for t in tickets_of(desk.sandbox, customer) if t["Assunto"] == "Lentidão"]
    desk.clock.advance(hours=3)
    await chat.say("meus atendimentos")
    second = protocol_in(chat.text)
    assert second is not None and second != first
    text = chat.text
    assert "Seus atendimentos" in text
    assert text.index(second) < text.index(first or "")  # newest first
    assert "10/03/2025 09:30" in text and "10/03/2025 12:30" in text
    assert "Abertura de chamado" in text and "Histórico de atendimentos" in text
    assert f"chamado aberto (chamado nº {ticket['Numero']})" in text
    assert f"Prazo de reclamação (chamado nº {ticket['Numero']}): resposta até 17/03/2025" in text  # labelled


async def test_my_protocol_is_the_latest_contact_s_then_the_list_with_one_protocol_format(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    first = protocol_in(chat.text)
    await chat.say("meu protocolo")  # within the same contact: its protocol, nothing opened anew
    assert f"📋 Protocolo deste atendimento: {first}\n" in chat.text
    await chat.command("ticket")
    await chat.tap("Lentidão")
    await chat.say("Lenta toda noite")
    await chat.tap("Abrir chamado")
    (ticket,) = [t for t in tickets_of(desk.sandbox, customer) if t["Assunto"] == "Lentidão"]
    assert f"chamado nº {ticket['Numero']}" in chat.text

    desk.clock.advance(days=1)
    await chat.say("qual o meu protocolo?")
    second = protocol_in(chat.text)
    assert second is not None and second != first
    text = chat.text
    assert f"📋 Protocolo deste atendimento: {second}\n" in text  # the latest contact's: this one
    assert f"Protocolo {second} · 11/03/2025 09:30" in text and f"Protocolo {first} · 10/03/2025 09:30" in text
    assert f"chamado aberto (chamado nº {ticket['Numero']})" in text
    assert f"⏳ Prazo de reclamação (chamado nº {ticket['Numero']}): resposta até 17/03/2025" in text
    # One number per contact, in one format: the ISP's ticket protocol is nowhere beside it.
    assert set(re.findall(r"\d{12,}", text)) == {first, second}


async def test_my_contacts_shows_only_the_last_three_years_and_another_customers_never(desk: Desk) -> None:
    chat = await desk.linked_chat()
    desk.clock.advance(days=3 * 366)
    other = await desk.linked_chat(quiet_customer(desk.sandbox))
    theirs = protocol_in(other.text)
    await chat.say("historico")
    assert "Seus atendimentos" in chat.text
    mine = protocol_in(chat.text)
    listed = re.findall(r"^Protocolo (\d{14,}) · ", chat.text, re.MULTILINE)
    assert listed == [mine]  # the contact of three years ago is past the term; the other customer's is theirs
    assert theirs not in chat.text


async def test_my_contacts_in_english_and_spanish(desk: Desk) -> None:
    english = await desk.linked_chat(language="en")
    await english.say("my contacts")
    assert "Your contacts" in english.text and "Contact history" in english.text
    spanish = await desk.linked_chat(language="es")
    await spanish.say("mis atenciones")
    assert "Sus atenciones" in spanish.text and "Historial de atenciones" in spanish.text


# ---- "Meus dados" ---------------------------------------------------------------------------------
async def test_my_data_tells_what_is_held_and_deleting_keeps_the_contact_history(desk: Desk) -> None:
    chat = await desk.linked_chat()
    protocol = protocol_in(chat.text)
    await chat.command("idioma")
    await chat.tap("Português")
    await chat.say("meus dados")
    assert "O que guardo sobre você" in chat.text
    assert f"cliente {DEMO_IDENTITIES.customer}" in chat.text and "pelo seu número de telefone" in chat.text
    assert "Idioma: pt_BR, escolhido por você" in chat.text
    assert "1 atendimento registrado" in chat.text
    await chat.tap("Manter")
    assert "Nada foi apagado" in chat.text
    async with desk.database.transaction() as session:
        assert await Links().active(session, chat.chat_id) is not None

    await chat.say("apagar meus dados")
    await chat.tap("Apagar meus dados")
    assert "apaguei o vínculo deste chat" in chat.text
    assert "continua guardado por 3 anos" in chat.text
    assert "preciso confirmar que você é o titular" in chat.text  # not linked any more: linking greets them
    async with desk.database.transaction() as session:
        assert await Links().active(session, chat.chat_id) is None
        assert chat.chat_id not in await Links().chats_for_customer(session, DEMO_IDENTITIES.customer)
        rows = select(func.count()).select_from(LinkRow).where(LinkRow.chat_id == chat.chat_id)
        assert (await session.execute(rows)).scalar_one() == 0  # deleted, not only ended
        state = await ChatStates().load(session, chat.chat_id)
        contact = await Contacts().by_protocol(session, protocol or "")
    assert state.language is None and state.data.get("recent") == []
    assert contact is not None and contact.customer_code == DEMO_IDENTITIES.customer  # kept for its term
    assert [e.outcome for e in contact.outcomes][-1] == "data_deleted"


async def test_someone_not_linked_may_ask_for_their_data_too(desk: Desk) -> None:
    chat = desk.chat(language="en")
    await chat.start()
    await chat.command("mydata")
    assert "No link to a customer record" in chat.text
    assert "1 contact on record" in chat.text
    await chat.tap("Delete my data")
    assert "I deleted this chat's link" in chat.text


async def test_a_first_message_while_the_isp_is_down_still_gets_its_protocol_and_keeps_it(desk: Desk) -> None:
    chat = await desk.linked_chat()
    desk.clock.advance(hours=2)
    desk.expire_caches()
    desk.sandbox.faults.go_down()
    await chat.say("segunda via")
    protocol = protocol_in(chat.text)
    assert protocol is not None and "sistema" in chat.text  # the ISP's failure told, the contact opened
    desk.sandbox.faults.come_back()
    desk.clock.advance(minutes=5)
    await chat.say("segunda via")
    assert protocol_in(chat.text) is None  # the same contact
    async with desk.database.transaction() as session:
        contact = await Contacts().by_protocol(session, protocol)
    assert contact is not None and contact.customer_code == DEMO_IDENTITIES.customer
