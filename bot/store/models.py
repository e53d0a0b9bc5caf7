"""The tables. The Alembic migrations are the source of truth for the schema; these mappings must
match them (a test compares the migrated schema with this metadata)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, CheckConstraint, Index, Integer, MetaData, String, Text, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from bot.store.enums import DeskJobKind, DeskJobState, InboxState, Origin, OutboxState, Proof, Role, check_in
from bot.store.types import UtcDateTime, json_type, utcnow

# The inbox rows that hold their chat's later updates back (``bot.store.inbox``), as SQL: the partial
# index's condition. The claim (``bot.store.queue``) states the same condition, the pending state as a
# literal, so that the planner can match it; tests/store/test_updates.py checks it does.
INBOX_WAITING = f"state = '{InboxState.PENDING.value}' OR answer IS NOT NULL"
# The inbox's pending updates, in order: where a claim looks for due heads (``bot.store.queue``).
INBOX_PENDING = f"state = '{InboxState.PENDING.value}'"
# The inbox's answers Telegram has not accepted yet: where the resend sweep looks (``Inbox.undelivered``).
INBOX_UNSENT = "answer IS NOT NULL"

TELEGRAM = "telegram"  # the inbox's channel where none is named (``bot.store.channels``)

# Named constraints let later migrations drop or alter them (and SQLite batch mode needs the names).
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class ChatRow(Base):
    """One conversation: who the chat is, and where it stands in which flow."""

    __tablename__ = "chats"
    __table_args__ = (CheckConstraint(check_in("role", Role), name="role"),)

    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    role: Mapped[str] = mapped_column(String(16), default=Role.SUBSCRIBER.value)
    # NULL: follow the language the Telegram client reports.
    language: Mapped[str | None] = mapped_column(String(16))
    flow: Mapped[str | None] = mapped_column(String(64))
    step: Mapped[str | None] = mapped_column(String(64))
    data: Mapped[dict[str, Any]] = mapped_column(json_type(), default=dict)
    version: Mapped[int] = mapped_column(Integer, default=1)
    # The ticket whose messages are mirrored into chat_messages while it is set.
    current_ticket: Mapped[int | None] = mapped_column(Integer)
    # The staff forum topic of an open handoff; NULL when no human is involved.
    handoff_topic: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class LinkRow(Base):
    """A chat proved to be a customer (or one of its authentications), or a technician/staff user.

    Unlinking stamps ``unlinked_at`` instead of deleting, so who was linked when stays auditable;
    a partial unique index keeps one active link per chat.
    """

    __tablename__ = "links"
    __table_args__ = (
        CheckConstraint(check_in("role", Role), name="role"),
        CheckConstraint(check_in("proof", Proof), name="proof"),
        CheckConstraint(
            "customer_code IS NOT NULL OR authentication_id IS NOT NULL OR system_user IS NOT NULL",
            name="target",
        ),
        Index(
            "uq_links_active_chat", "chat_id", unique=True,
            sqlite_where=text("unlinked_at IS NULL"), postgresql_where=text("unlinked_at IS NULL"),
        ),
        Index("ix_links_customer_code", "customer_code"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    role: Mapped[str] = mapped_column(String(16))
    customer_code: Mapped[int | None] = mapped_column(Integer)
    authentication_id: Mapped[int | None] = mapped_column(Integer)
    contract: Mapped[int | None] = mapped_column(Integer)
    system_user: Mapped[str | None] = mapped_column(String(128))
    proof: Mapped[str] = mapped_column(String(16))
    proved_at: Mapped[datetime] = mapped_column(UtcDateTime())
    unlinked_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class LinkAttemptRow(Base):
    __tablename__ = "link_attempts"
    __table_args__ = (
        Index("ix_link_attempts_chat_id_at", "chat_id", "at"),
        Index("ix_link_attempts_target_at", "target", "at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    succeeded: Mapped[bool]
    # The person tried, as ``tax_id:<keyed hash>`` or ``login:<keyed hash>`` (flows.identity.target_ref).
    target: Mapped[str | None] = mapped_column(String(64))


class ProcessedUpdateRow(Base):
    __tablename__ = "processed_updates"

    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    processed_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)


class InboxRow(Base):
    """A channel's update stored before it is processed, so a crash loses nothing."""

    __tablename__ = "inbox"
    __table_args__ = (
        CheckConstraint(check_in("state", InboxState), name="state"),
        Index("ix_inbox_chat_id_update_id", "chat_id", "update_id"),
        # A chat's updates that still hold its later ones back (``bot.store.queue``'s NOT EXISTS):
        # only those, so a claim looks one up instead of walking the chat's day of finished updates.
        Index(
            "ix_inbox_waiting", "chat_id", "update_id",
            sqlite_where=text(INBOX_WAITING), postgresql_where=text(INBOX_WAITING),
        ),
        Index("ix_inbox_owner", "owner", sqlite_where=text(INBOX_WAITING), postgresql_where=text(INBOX_WAITING)),
        # A claim walks the pending updates in order and stops at its limit (``bot.store.queue``).
        Index("ix_inbox_pending", "update_id", "chat_id", "available_at",
              sqlite_where=text(INBOX_PENDING), postgresql_where=text(INBOX_PENDING)),
        # Answers Telegram has not accepted yet, by when they may be sent again (``Inbox.undelivered``).
        Index("ix_inbox_unsent", "available_at", sqlite_where=text(INBOX_UNSENT), postgresql_where=text(INBOX_UNSENT)),
    )

    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    # NULL for updates that belong to no chat (each is then processed on its own).
    chat_id: Mapped[int | None] = mapped_column(BigInteger)
    # Whose update this is (``bot.store.channels``): the processor hands it to that channel's adapter.
    channel: Mapped[str] = mapped_column(String(16), default=TELEGRAM, server_default=TELEGRAM)
    payload: Mapped[dict[str, Any]] = mapped_column(json_type())
    received_at: Mapped[datetime] = mapped_column(UtcDateTime())
    state: Mapped[str] = mapped_column(String(16), default=InboxState.PENDING.value)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Claim lease and retry back-off: a pending row is only handed out once this time has passed.
    available_at: Mapped[datetime] = mapped_column(UtcDateTime())
    last_error: Mapped[str | None] = mapped_column(Text)
    processed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    # The Bot API calls answering a processed update, until Telegram accepted them (then NULL).
    # While set, ``available_at`` is when a sweep may send them again (the process died first).
    answer: Mapped[list[dict[str, Any]] | None] = mapped_column(json_type(none_as_null=True))
    # The process (``ProcessRow``) whose claim or unsent answer this is; when its heartbeat stops,
    # another process takes the row over at once instead of waiting for ``available_at``.
    owner: Mapped[str | None] = mapped_column(String(36))


class ChannelChatRow(Base):
    """A chat of a channel whose own ids are not Telegram's numbers (a WhatsApp sender): the internal
    chat id is ``bot.store.channels``'s base for the channel plus ``id``."""

    __tablename__ = "channel_chats"
    __table_args__ = (Index("uq_channel_chats_channel_external_id", "channel", "external_id", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    channel: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str] = mapped_column(String(160))  # WhatsApp: the business-scoped user id, or the wa_id
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # Another id of the same person (WhatsApp: a user id once known beside the number, or the number
    # beside it): the ``id`` of the row whose chat it is, None for a chat's own row.
    alias_of: Mapped[int | None] = mapped_column(Integer, nullable=True)


class ChannelUpdateRow(Base):
    """An update of such a channel, by its own id (a WhatsApp ``wamid``): kept once however often it
    is delivered; its inbox ``update_id`` is ``bot.store.channels.UPDATE_BASE`` plus ``id``."""

    __tablename__ = "channel_updates"
    __table_args__ = (
        Index("uq_channel_updates_channel_external_id", "channel", "external_id", unique=True),
        Index("ix_channel_updates_received_at", "received_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    channel: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str] = mapped_column(String(200))
    received_at: Mapped[datetime] = mapped_column(UtcDateTime())


class MessageStatusRow(Base):
    """The latest delivery status a channel reported for a message the bot sent (WhatsApp's sent,
    delivered, read, failed), by the channel's message id."""

    __tablename__ = "message_statuses"
    __table_args__ = (Index("ix_message_statuses_chat_id", "chat_id"),)

    channel: Mapped[str] = mapped_column(String(16), primary_key=True)
    external_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    chat_id: Mapped[int | None] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    error: Mapped[str | None] = mapped_column(String(200))
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class ProcessRow(Base):
    """A running ``ispbot run``, announced by a heartbeat (``bot.store.processes``)."""

    __tablename__ = "processes"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime())
    heartbeat_at: Mapped[datetime] = mapped_column(UtcDateTime())


class DeadLetterRow(Base):
    """A Bot API call Telegram could not be reached for during the sender's whole horizon."""

    __tablename__ = "dead_letters"
    __table_args__ = (Index("ix_dead_letters_chat", "chat_id"),)  # a chat's held letters, at its next message

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    method: Mapped[str] = mapped_column(String(64))
    params: Mapped[dict[str, Any]] = mapped_column(json_type())
    error: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class OutboxRow(Base):
    """One ``chat_messages`` entry waiting to be mirrored into the ISP system."""

    __tablename__ = "outbox"
    __table_args__ = (
        CheckConstraint(check_in("state", OutboxState), name="state"),
        CheckConstraint(check_in("origin", Origin), name="origin"),
        Index("ix_outbox_state_next_attempt_at", "state", "next_attempt_at"),
        Index("ix_outbox_ticket_id_id", "ticket_id", "id"),
        # A ticket's pending entries, without walking its sent ones (the mirror's claim).
        Index("ix_outbox_ticket_id_state_id", "ticket_id", "state", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ticket_id: Mapped[int] = mapped_column(Integer)
    customer: Mapped[int] = mapped_column(Integer)
    record: Mapped[datetime] = mapped_column(UtcDateTime())
    attendant: Mapped[str] = mapped_column(String(128))
    content: Mapped[str] = mapped_column(Text)
    origin: Mapped[str] = mapped_column(String(1))
    contact: Mapped[int | None] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(16), default=OutboxState.PENDING.value)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Claim lease and retry back-off: a pending entry is only handed out once this time has passed.
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime())
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class InviteRow(Base):
    """A single-use invitation for a technician or staff member. Only the code's SHA-256 is kept."""

    __tablename__ = "invites"
    __table_args__ = (
        CheckConstraint("role IN ('technician', 'staff')", name="role"),
        Index("uq_invites_code_hash", "code_hash", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code_hash: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(16))
    system_user: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    used_by_chat: Mapped[int | None] = mapped_column(BigInteger)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class OutageWatchRow(Base):
    """A subscriber asked to be told when an open failover event ends."""

    __tablename__ = "outage_watches"
    __table_args__ = (
        Index("uq_outage_watches_chat_id_event_id", "chat_id", "event_id", unique=True),
        Index("ix_outage_watches_notified_at", "notified_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    event_id: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    notified_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class NoticeSentRow(Base):
    """A notice the bot wrote first (a bill's reminder, an outage started), claimed once per chat."""

    __tablename__ = "notices_sent"
    __table_args__ = (
        Index("uq_notices_sent_kind_subject_chat_id", "kind", "subject", "chat_id", unique=True),
        Index("ix_notices_sent_chat_id", "chat_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(32))
    subject: Mapped[str] = mapped_column(String(64))  # "bill:<Sequencia>", "outage:<event id>"
    chat_id: Mapped[int] = mapped_column(BigInteger)
    customer_code: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class NoticeOptOutRow(Base):
    """A kind of notice (or ``all``) a chat asked not to receive."""

    __tablename__ = "notice_opt_outs"

    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class NoticeRoundRow(Base):
    """What one round of notices did: sent, held (quiet hours, no channel here), refused (opted out)."""

    __tablename__ = "notice_rounds"
    __table_args__ = (Index("ix_notice_rounds_started_at", "started_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    as_of: Mapped[datetime] = mapped_column(UtcDateTime())
    started_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    sent: Mapped[int] = mapped_column(Integer)
    held: Mapped[int] = mapped_column(Integer)
    refused: Mapped[int] = mapped_column(Integer)
    isp_calls: Mapped[int] = mapped_column(Integer)
    details: Mapped[dict[str, Any]] = mapped_column(json_type())  # per kind, and a dry run's flag


class TrustUnblockRow(Base):
    """A contract the bot unblocked on the subscriber's word (the policy allows one per period)."""

    __tablename__ = "trust_unblocks"
    __table_args__ = (Index("ix_trust_unblocks_contract_at", "contract", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    customer_code: Mapped[int] = mapped_column(Integer)
    contract: Mapped[int] = mapped_column(Integer)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class ContestedBillRow(Base):
    """A bill the subscriber contested in the chat: shown as contested (date, ticket) in every list."""

    __tablename__ = "contested_bills"
    __table_args__ = (Index("ix_contested_bills_customer_code_document", "customer_code", "document"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    customer_code: Mapped[int] = mapped_column(Integer)
    document: Mapped[int] = mapped_column(Integer)  # the bill's number (``Documento``), as people see it
    chat_id: Mapped[int] = mapped_column(BigInteger)
    ticket_id: Mapped[int | None] = mapped_column(Integer)
    protocol: Mapped[str | None] = mapped_column(String(32))  # the ISP ticket's protocol, for staff only
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class HandoffRow(Base):
    """A conversation handed to the staff: its desk conversation, from the request to the hand-back."""

    __tablename__ = "handoffs"
    __table_args__ = (
        Index("ix_handoffs_chat_id_closed_at", "chat_id", "closed_at"),
        Index("ix_handoffs_desk_ref", "desk_ref"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    ticket_id: Mapped[int] = mapped_column(Integer)
    customer_code: Mapped[int] = mapped_column(Integer)
    # The desk's reference of its conversation (a forum topic's thread id, a Chatwoot conversation
    # id), set once the desk opened it (``bot.desks.worker``).
    desk_ref: Mapped[str | None] = mapped_column(String(64))
    opened_at: Mapped[datetime] = mapped_column(UtcDateTime())
    answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime())  # a staff member's first reply
    waiting_told_at: Mapped[datetime | None] = mapped_column(UtcDateTime())  # the subscriber told of the wait
    closed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class DeskJobRow(Base):
    """A call to the staff desk a turn asked for (``flows.desk``), carried out after it committed."""

    __tablename__ = "desk_jobs"
    __table_args__ = (
        CheckConstraint(check_in("state", DeskJobState), name="state"),
        CheckConstraint(check_in("kind", DeskJobKind), name="kind"),
        Index("ix_desk_jobs_state_next_attempt_at", "state", "next_attempt_at"),
        Index("ix_desk_jobs_chat_id_state_id", "chat_id", "state", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)  # the subscriber's: a chat's jobs run in id order
    handoff_id: Mapped[int | None] = mapped_column(Integer)  # whose conversation (None: no handoff yet)
    kind: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict[str, Any]] = mapped_column(json_type())
    state: Mapped[str] = mapped_column(String(16), default=DeskJobState.PENDING.value)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Claim lease and retry back-off: a pending job is only handed out once this time has passed.
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime())
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    done_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


# A restart watch not answered yet: where the restart sweep looks (``RestartWatches.claim``).
RESTART_WAITING = "answered_at IS NULL"


class RestartWatchRow(Base):
    """A connection the bot dropped for a restart, waiting to be seen back (or not) and told so."""

    __tablename__ = "restart_watches"
    __table_args__ = (
        Index("ix_restart_watches_next_look_at", "next_look_at",
              sqlite_where=text(RESTART_WAITING), postgresql_where=text(RESTART_WAITING)),
        Index("ix_restart_watches_chat_id", "chat_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    customer_code: Mapped[int] = mapped_column(Integer)
    # {"sessions": the dropped sessions' ids, "contracts": their contracts}: a new session of one is "back".
    dropped: Mapped[dict[str, Any]] = mapped_column(json_type())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    give_up_at: Mapped[datetime] = mapped_column(UtcDateTime())  # not back by then: told so
    next_look_at: Mapped[datetime] = mapped_column(UtcDateTime())  # the next look, or a claim's lease
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # how many times it was claimed
    answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime())  # the person told (once)


# A contact's deadline still running: where the deadline sweep looks (``Contacts.due``).
DEADLINE_OPEN = "due_at IS NOT NULL AND settled_at IS NULL"


class ContactRow(Base):
    """A person's contact with the ISP through the bot: from their first message after a quiet spell
    to the next spell. Its protocol is told at once; contacts are kept for the regulation's term."""

    __tablename__ = "contacts"
    __table_args__ = (
        Index("ix_contacts_customer_code_started_at", "customer_code", "started_at"),
        Index("ix_contacts_chat_id_started_at", "chat_id", "started_at"),
        Index("ix_contacts_started_at", "started_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # The date it began in the ISP's zone (YYYYMMDD): its protocol is this and the id (``protocol_of``).
    day: Mapped[str] = mapped_column(String(8))
    chat_id: Mapped[int] = mapped_column(BigInteger)
    # NULL until the chat is linked to a customer (during the contact or never).
    customer_code: Mapped[int | None] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime())


class ContactEventRow(Base):
    """What a contact was about and came to: a flow used (``outcome`` NULL), or an outcome a flow
    recorded (a ticket opened, a payment noticed), with the deadline of what was not settled at once."""

    __tablename__ = "contact_events"
    __table_args__ = (
        Index("ix_contact_events_contact_id_id", "contact_id", "id"),
        Index("ix_contact_events_due_at", "due_at",
              sqlite_where=text(DEADLINE_OPEN), postgresql_where=text(DEADLINE_OPEN)),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    contact_id: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    subject: Mapped[str] = mapped_column(String(48))
    outcome: Mapped[str | None] = mapped_column(String(48))
    ticket_id: Mapped[int | None] = mapped_column(Integer)
    # What staff search by: a ticket's ISP protocol, a bill's number (never a tax id or a password).
    reference: Mapped[str | None] = mapped_column(String(64))
    # complaint, request or contested_charge: the regulation's deadline; when it runs out, when settled.
    deadline: Mapped[str | None] = mapped_column(String(24))
    due_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    settled_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    warned_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
