"""My contacts ("Meus atendimentos", "meu protocolo"): the protocol of the person's latest contact
(this one), then their contacts of the last three years, newest first, each with its protocol, date
and time, what it was about (the flows used), what it came to (the outcomes flows recorded, a ticket
named as a ticket, by its own number) and each deadline of what was not settled at once, labelled by
its matter ("reclamação do chamado nº 70146: resposta até 17/03").

The protocol is the contact's alone (``flows.contacts``, what the RGC calls the protocol of a
contact): tickets are "chamado nº", never a second protocol. At most ``MAX_SHOWN`` are listed, the
rest counted (``ispbot contacts export`` gives an operator the whole history in writing). Subjects and
outcomes are named by ``contacts.subject_<flow>`` and ``contacts.outcome_<word>``; one without its
text is shown as written rather than hidden.
"""

from __future__ import annotations

from typing import Any

from flows.contacts import NOT_SUBJECTS
from flows.context import KEPT_YEARS, Contact, Context
from flows.flow import TO_MENU, Flow, Steps

MAX_SHOWN = 10


class MyContacts(Flow):
    name = "my_contacts"
    commands = ("atendimentos", "historico", "protocolo", "contacts", "history", "protocol", "atenciones", "historial")
    steps = Steps(begin=(TO_MENU,))

    async def begin(self, ctx: Context) -> None:
        contacts = await ctx.records.history(KEPT_YEARS)
        if not contacts:
            ctx.reply.say("contacts.history_empty", years=KEPT_YEARS)
        else:
            shown = [describe(ctx, contact) for contact in contacts[:MAX_SHOWN]]
            current = ctx.records.contact.id if ctx.records.contact is not None else None
            ctx.reply.say("contacts.history", contacts=shown, more=len(contacts) - len(shown), years=KEPT_YEARS,
                          latest=shown[0]["protocol"], current=contacts[0].id == current)
        ctx.to_menu()


def describe(ctx: Context, contact: Contact) -> dict[str, Any]:
    """A contact in the person's words (their language, the ISP's time zone)."""
    subjects = [ctx.text_or(f"contacts.subject_{name}", name) for name in contact.subjects if name not in NOT_SUBJECTS]
    outcomes = []
    for event in contact.outcomes:
        said = ctx.text_or(f"contacts.outcome_{event.outcome}", str(event.outcome))
        outcomes.append({"said": said, "ticket": event.ticket_id, "reference": event.reference or ""})
    deadlines = [
        {"kind": ctx.text_or(f"contacts.deadline_{event.deadline}", str(event.deadline)), "ticket": event.ticket_id,
         "reference": event.reference or "", "due": event.due_at.astimezone(ctx.coordinator.zone),
         "settled": event.settled_at is not None}
        for event in contact.events if event.deadline is not None and event.due_at is not None
    ]
    return {
        "protocol": contact.protocol, "at": contact.started_at.astimezone(ctx.coordinator.zone),
        "subjects": subjects, "outcomes": outcomes, "deadlines": deadlines,
    }
