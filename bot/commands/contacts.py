"""``ispbot contacts``: a contact by its protocol, a person's whole history for a data request, the
deadlines running, and settling one answered outside the ISP's tickets.

``DESCRIPTION`` is the command's ``--help``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.commands.support import EXIT_INVALID, EXIT_REFUSED, Refused, isp_zone, runs_actions, store, usage

if TYPE_CHECKING:  # what the actions use is imported where they run: building the parser stays light
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from bot.store import Contact, ContactEvent, Database

DESCRIPTION = """\
``ispbot contacts``: the contacts people had with the ISP through the bot (RGC, Anatel 765/2023).

    ispbot contacts show PROTOCOL
    ispbot contacts export --customer CODE [--output FILE]
    ispbot contacts due
    ispbot contacts settle PROTOCOL

Every contact has a protocol (the date it began and a number), told to the person in its first
answer. ``show`` prints one: when it began, the chat and customer, what it was about (the flows
used) and what it came to (tickets opened, payments noticed...), with each deadline. ``export``
writes a customer's whole history as JSON (contacts and the chats linked to them), for a data
request (LGPD art. 18); personal data: hand it to the person only. ``due`` lists complaints (7
days), requests (10 days) and contested charges (30 days) not answered yet, soonest first; a
deadline whose ticket the ISP closes is settled by the bot, ``settle`` settles the deadlines of a
contact answered another way. Contacts are kept for three years, then deleted by the bot.
Times are in the ISP's time zone (``ISPBOT_ISP_TIMEZONE``). Exit codes: 0 done; 1 no such
contact or customer, or a database behind its migrations; 2 invalid arguments or configuration.
"""

PROG = "ispbot contacts"


def register(subparsers: Any) -> None:
    contacts = subparsers.add_parser(
        "contacts", help="a contact by its protocol, a customer's whole history (JSON), the deadlines running",
        description=DESCRIPTION,
    )
    contacts.set_defaults(func=usage(contacts))
    actions = contacts.add_subparsers(dest="action", metavar="ACTION")
    show = actions.add_parser("show", help="one contact: when, who, subjects, outcomes and deadlines")
    show.add_argument("protocol", metavar="PROTOCOL", help="the protocol the person was told, e.g. 20261127000042")
    show.set_defaults(func=run, handler=_show)
    export = actions.add_parser("export", help="a customer's whole history as JSON, for a data request")
    export.add_argument("--customer", type=int, required=True, metavar="CODE", help="the customer's code in the ISP")
    export.add_argument("--output", type=Path, metavar="FILE", help="write there instead of the standard output")
    export.set_defaults(func=run, handler=_export)
    due = actions.add_parser("due", help="complaints, requests and contested charges not answered yet")
    due.set_defaults(func=run, handler=_due)
    settle = actions.add_parser("settle", help="mark a contact's running deadlines answered")
    settle.add_argument("protocol", metavar="PROTOCOL")
    settle.set_defaults(func=run, handler=_settle)


run = runs_actions(PROG)


def _protocol(text: str) -> str:
    protocol = text.strip()
    if not protocol.isdecimal() or len(protocol) < 9:
        raise Refused(EXIT_INVALID, f"{text!r} is not a contact protocol (digits: the date and a number)")
    return protocol


async def _contact(database: Database, protocol: str) -> Contact:
    from bot.store import Contacts

    async with database.transaction() as session:
        contact = await Contacts().by_protocol(session, protocol)
    if contact is None:
        raise Refused(EXIT_REFUSED, f"no contact with protocol {protocol}")
    return contact


async def _show(args: argparse.Namespace) -> None:
    protocol = _protocol(args.protocol)
    zone = isp_zone()
    async with store() as database:
        contact = await _contact(database, protocol)
    print(f"contact   {contact.protocol}")
    print(f"began     {_shown(contact.started_at, zone)}")
    print(f"chat      {contact.chat_id}")
    print(f"customer  {contact.customer_code if contact.customer_code is not None else '(not identified)'}")
    print(f"subjects  {', '.join(contact.subjects) or '-'}")
    for event in contact.outcomes:
        print(f"  {_shown(event.at, zone)}  {event.subject}: {event.outcome}{_details(event, zone)}")
    if not contact.outcomes:
        print("  (information given; nothing recorded beyond the subjects)")


def _details(event: ContactEvent, zone: ZoneInfo) -> str:
    parts = []
    if event.ticket_id is not None:
        parts.append(f"ticket #{event.ticket_id}")
    if event.reference:
        parts.append(f"ref {event.reference}")
    if event.deadline is not None and event.due_at is not None:
        state = f"answered {_shown(event.settled_at, zone)}" if event.settled_at else "running"
        parts.append(f"{event.deadline} due {_shown(event.due_at, zone)}, {state}")
    return f" ({'; '.join(parts)})" if parts else ""


async def _export(args: argparse.Namespace) -> None:
    import json
    import sys

    from bot.store import KEPT_YEARS, Contacts, Links, utcnow

    zone = isp_zone()
    async with store() as database, database.transaction() as session:
        contacts = await Contacts().history(session, customer_code=args.customer)
        links = await Links().of_customer(session, args.customer)
    if not contacts and not links:
        raise Refused(EXIT_REFUSED, f"the bot holds no contact and no link of customer {args.customer}")
    document = {
        "customer": args.customer,
        "exported_at": utcnow().astimezone(zone).isoformat(),
        "time_zone": zone.key,
        "kept_for_years": KEPT_YEARS,
        "links": [
            {"chat_id": link.chat_id, "proof": link.proof.value, "contract": link.contract,
             "proved_at": _iso(link.proved_at, zone), "unlinked_at": _iso(unlinked_at, zone)}
            for link, unlinked_at in links
        ],
        "contacts": [_contact_json(contact, zone) for contact in reversed(contacts)],  # oldest first
    }
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    if args.output is None:
        sys.stdout.write(text)
        return
    try:
        args.output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise Refused(EXIT_INVALID, f"--output: cannot write {args.output}: {exc.strerror}") from None
    print(f"Wrote {len(contacts)} contact(s) and {len(links)} link(s) of customer {args.customer} to {args.output}.")


def _contact_json(contact: Contact, zone: ZoneInfo) -> dict[str, Any]:
    return {
        "protocol": contact.protocol, "started_at": _iso(contact.started_at, zone), "chat_id": contact.chat_id,
        "subjects": contact.subjects,
        "outcomes": [
            {"at": _iso(event.at, zone), "subject": event.subject, "outcome": event.outcome,
             "ticket": event.ticket_id, "reference": event.reference, "deadline": event.deadline,
             "due_at": _iso(event.due_at, zone), "answered_at": _iso(event.settled_at, zone)}
            for event in contact.outcomes
        ],
    }


async def _due(_: argparse.Namespace) -> None:
    from datetime import timedelta

    from bot.store import Contacts, utcnow

    zone = isp_zone()
    now = utcnow()
    async with store() as database, database.transaction() as session:
        running = await Contacts().due(session, now + timedelta(days=3660))
    if not running:
        print("No complaint, request or contested charge waits for an answer.")
        return
    print(f"{'contact':<16}  {'kind':<16}  {'customer':>8}  {'ticket':>8}  due ({zone.key})")
    for event, contact in running:
        late = "  OVERDUE" if event.due_at is not None and event.due_at < now else ""
        customer = contact.customer_code if contact.customer_code is not None else "-"
        ticket = event.ticket_id if event.ticket_id is not None else "-"
        due = _shown(event.due_at, zone)
        print(f"{contact.protocol:<16}  {event.deadline or '':<16}  {customer:>8}  {ticket:>8}  {due}{late}")


async def _settle(args: argparse.Namespace) -> None:
    from bot.store import Contacts

    protocol = _protocol(args.protocol)
    async with store() as database:
        contact = await _contact(database, protocol)
        running = [e for e in contact.events if e.deadline is not None and e.settled_at is None]
        if not running:
            raise Refused(EXIT_REFUSED, f"contact {protocol} has no deadline running")
        async with database.transaction() as session:
            for event in running:
                await Contacts().settle(session, event.id)
    print(f"Settled {len(running)} deadline(s) of contact {protocol}.")


def _shown(moment: datetime | None, zone: ZoneInfo) -> str:
    return "-" if moment is None else f"{moment.astimezone(zone):%Y-%m-%d %H:%M}"


def _iso(moment: datetime | None, zone: ZoneInfo) -> str | None:
    return None if moment is None else moment.astimezone(zone).isoformat()
