"""A subscriber's contacts: the protocol every contact gets, and what flows record against it.

A contact begins with a person's first message after a quiet spell (``Policy.contact_quiet``); the
engine opens it, tells its protocol with the date and time in that turn's first answer, and records
each flow the contact uses. A flow records what it came to with ``ctx.records.record(subject, outcome, ...)``
(``flows.records``): a ticket opened (tied to the contact), a payment noticed, a plan cancelled. What
is not settled at once carries its ``Deadline``; staff are warned before it runs out. ``CONTACT`` in
the chat's state holds the current contact, so a turn within a contact costs no query.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any


class Deadline(StrEnum):
    """The regulation's deadlines (RGC, Resolução Anatel 765/2023) for what is not settled at once."""

    COMPLAINT = "complaint"  # a complaint is answered within 7 days
    REQUEST = "request"  # a request (a service, a document, a change) within 10 days
    CONTESTED_CHARGE = "contested_charge"  # a contested charge within 30 days

    @property
    def term(self) -> timedelta:
        return _TERMS[self]


_TERMS = {Deadline.COMPLAINT: timedelta(days=7), Deadline.REQUEST: timedelta(days=10),
          Deadline.CONTESTED_CHARGE: timedelta(days=30)}

# Outcomes the subscriber's flows record; a history names each (``contacts.outcome_<name>``), and a
# name without its text shows as written. Subjects are flow names (``contacts.subject_<flow>``).
TICKET_OPENED = "ticket_opened"
PAYMENT_NOTICED = "payment_noticed"
HANDED_TO_PERSON = "handed_to_person"
LINKED = "linked"
UNLINKED = "unlinked"
UNBLOCKED = "unblocked"
DATA_DELETED = "data_deleted"

# The chat state's key for the current contact: {"id", "protocol", "started" (ISO), "subjects", "last"
# (the chat's last message, POSIX seconds: read and written on every turn, so the cheapest form)}.
CONTACT = "contact"
# Flows that are no subject of their own (the way to the others).
NOT_SUBJECTS = frozenset({"menu"})


@dataclass(frozen=True, slots=True)
class ContactRef:
    """The contact a turn belongs to: its id, its protocol and when it began (the ISP's zone)."""

    id: int
    protocol: str
    started: datetime

    @classmethod
    def kept(cls, value: Any) -> ContactRef | None:
        """The contact as the chat's state keeps it (``CONTACT``), if it keeps one."""
        if not isinstance(value, dict) or "id" not in value:
            return None
        return cls(int(value["id"]), str(value["protocol"]), datetime.fromisoformat(value["started"]))


def quiet_since(value: Any, now: datetime, quiet: timedelta) -> bool:
    """Whether the chat's last turn (its kept ``CONTACT``) is longer ago than ``quiet`` (or unknown)."""
    last = value.get("last") if isinstance(value, dict) else None
    if not isinstance(last, int | float):
        return True
    return now.timestamp() - last >= quiet.total_seconds()
