"""Deadlines of what a contact did not settle at once: the staff are warned once before one runs
out, one whose ticket the ISP closed is answered, and the gauges count them (``flows.deadlines``)."""

from __future__ import annotations

import re
from datetime import timedelta

from bot.desks.worker import DeskWorker
from bot.store import Contacts
from flows.deadlines import DeadlineWatch

from tests.flows.harness import Desk
from tests.flows.test_contacts import protocol_in
from tests.flows.test_new_ticket import quiet_customer, stored_ticket, tickets_of
from tests.flows.test_staff_desk import RecordingDesk


async def open_a_ticket(desk: Desk) -> tuple[str, int]:
    """A contact that opened a slowness ticket (a complaint: 7 days): its protocol and the ticket."""
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    protocol = protocol_in(chat.text) or ""
    await chat.command("ticket")
    await chat.tap("Lentidão")
    await chat.say("Lenta toda noite")
    await chat.tap("Abrir chamado")
    (ticket,) = [t for t in tickets_of(desk.sandbox, customer) if t["Assunto"] == "Lentidão"]
    return protocol, int(ticket["Numero"])


def watch(desk: Desk) -> DeadlineWatch:
    return DeadlineWatch(desk.database, desk.engine.coordinator, warn_before=timedelta(hours=48))


async def test_the_staff_are_warned_once_when_a_complaint_nears_its_end(desk: Desk) -> None:
    protocol, ticket = await open_a_ticket(desk)
    deadlines = watch(desk)
    assert await deadlines.check() == []  # seven days ahead: nothing to say yet
    assert await deadlines.counts() == (1, 0, 0)
    desk.clock.advance(days=5, hours=12)
    [warning] = await deadlines.check()
    assert "Prazo perto do fim" in warning and protocol in warning and f"#{ticket}" in warning
    assert "reclamação" in warning and "17/03/2025 09:30" in warning
    assert await deadlines.counts() == (1, 1, 0)
    assert await watch(desk).check() == []  # another process does not warn again
    desk.clock.advance(days=2)
    assert await deadlines.counts() == (1, 1, 1)  # overdue: the alert rule's gauge


async def test_a_complaint_whose_ticket_the_isp_closed_is_answered_without_a_warning(desk: Desk) -> None:
    protocol, ticket = await open_a_ticket(desk)
    stored_ticket(desk.sandbox, ticket)["Encerramento_DataHora"] = "2025-03-12 10:00:00"
    desk.expire_caches()
    desk.clock.advance(days=6)
    assert await watch(desk).check() == []
    assert await watch(desk).counts() == (0, 0, 0)
    async with desk.database.transaction() as session:
        contact = await Contacts().by_protocol(session, protocol)
    assert contact is not None and contact.outcomes[0].settled_at is not None
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.say("meus atendimentos")
    assert re.search(r"Prazo de reclamação( \(chamado nº \d+\))?: resposta até 17/03/2025 \(respondida\)", chat.text)


async def test_with_a_staff_desk_the_warning_is_a_desk_notice_about_the_person_written_once(desk: Desk) -> None:
    protocol, ticket = await open_a_ticket(desk)
    desk.clock.advance(days=5, hours=12)
    deadlines = DeadlineWatch(desk.database, desk.engine.coordinator, warn_before=timedelta(hours=48), desk=True)
    assert len(await deadlines.check()) == 1
    assert await DeadlineWatch(desk.database, desk.engine.coordinator, desk=True).check() == []  # once
    fake = RecordingDesk()
    await DeskWorker(desk.database, fake).round()
    [(what, chat_id, customer, text)] = fake.calls
    customer_code = quiet_customer(desk.sandbox)
    assert what == "notify" and customer == customer_code and chat_id != 0
    assert "Prazo perto do fim" in text and protocol in text and f"#{ticket}" in text
