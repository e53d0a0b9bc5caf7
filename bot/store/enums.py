"""The closed vocabularies stored in the tables (each backed by a CHECK constraint)."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    SUBSCRIBER = "subscriber"
    TECHNICIAN = "technician"
    STAFF = "staff"


class Proof(StrEnum):
    """How a chat proved who it is when it was linked."""

    CONTACT_PHONE = "contact_phone"
    # The name of a kind of proof, not a password.
    PPPOE_PASSWORD = "pppoe_password"  # noqa: S105
    INVITE = "invite"


class Origin(StrEnum):
    """``chat_messages`` origin: customer, attendant or system."""

    CUSTOMER = "C"
    ATTENDANT = "A"
    SYSTEM = "S"


class OutboxState(StrEnum):
    PENDING = "pending"
    SENT = "sent"
    DEAD = "dead"


class DeskJobState(StrEnum):
    PENDING = "pending"
    DONE = "done"
    DEAD = "dead"


class DeskJobKind(StrEnum):
    OPEN = "open"
    POST = "post"
    CLOSE = "close"
    NOTICE = "notice"  # a word to the staff about a person, outside any handed-over conversation


class InboxState(StrEnum):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


def check_in(column: str, values: type[StrEnum]) -> str:
    """SQL text of a CHECK that keeps ``column`` inside the enum's values."""
    quoted = ", ".join(f"'{member.value}'" for member in values)
    return f"{column} IN ({quoted})"
