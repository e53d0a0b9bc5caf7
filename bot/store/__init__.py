"""Storage: conversation state, links, contacts, deduplication, inbox, outbox and invites (SQLAlchemy 2
async, Alembic migrations). Imports nothing else of the project."""

from bot.store.chats import ChatState, ChatStates
from bot.store.contacts import KEPT_YEARS, Contact, ContactEvent, Contacts
from bot.store.contested import ContestedBill, ContestedBills
from bot.store.db import Database
from bot.store.desk_jobs import DeskJobEntry, DeskJobs, NewDeskJob
from bot.store.enums import DeskJobKind, DeskJobState, InboxState, Origin, OutboxState, Proof, Role
from bot.store.errors import (
    DatabaseAheadError,
    DatabaseBehindError,
    DatabaseRevisionError,
    InviteError,
    InviteExpiredError,
    InviteNotFoundError,
    InviteRevokedError,
    InviteUsedError,
    StaleStateError,
    StoreError,
    UpdateTakenError,
)
from bot.store.handoffs import UNIDENTIFIED, Handoffs, StaffHandoff
from bot.store.inbox import Answered, Inbox, InboxItem
from bot.store.invites import Invite, Invites, IssuedInvite
from bot.store.link_attempts import LinkAttempts, LinkLock, Reservation
from bot.store.links import Link, Links
from bot.store.notices import (
    ALL_KINDS,
    NoticeClaims,
    NoticeOptOuts,
    NoticeRound,
    NoticeRounds,
    linked_subscribers,
    opted_out,
)
from bot.store.outbox import NewMessage, Outbox, OutboxEntry, OutboxStats
from bot.store.restarts import RestartWatch, RestartWatches
from bot.store.types import utcnow
from bot.store.updates import ProcessedUpdates
from bot.store.urls import DEFAULT_URL
from bot.store.watches import OutageWatches, TrustUnblocks

__all__ = [
    "ALL_KINDS",
    "DEFAULT_URL",
    "KEPT_YEARS",
    "UNIDENTIFIED",
    "Answered",
    "ChatState",
    "ChatStates",
    "Contact",
    "ContactEvent",
    "Contacts",
    "ContestedBill",
    "ContestedBills",
    "Database",
    "DatabaseAheadError",
    "DatabaseBehindError",
    "DatabaseRevisionError",
    "DeskJobEntry",
    "DeskJobKind",
    "DeskJobState",
    "DeskJobs",
    "Handoffs",
    "Inbox",
    "InboxItem",
    "InboxState",
    "Invite",
    "InviteError",
    "InviteExpiredError",
    "InviteNotFoundError",
    "InviteRevokedError",
    "InviteUsedError",
    "Invites",
    "IssuedInvite",
    "Link",
    "LinkAttempts",
    "LinkLock",
    "Links",
    "NewDeskJob",
    "NewMessage",
    "NoticeClaims",
    "NoticeOptOuts",
    "NoticeRound",
    "NoticeRounds",
    "Origin",
    "OutageWatches",
    "Outbox",
    "OutboxEntry",
    "OutboxState",
    "OutboxStats",
    "ProcessedUpdates",
    "Proof",
    "Reservation",
    "RestartWatch",
    "RestartWatches",
    "Role",
    "StaffHandoff",
    "StaleStateError",
    "StoreError",
    "TrustUnblocks",
    "UpdateTakenError",
    "linked_subscribers",
    "opted_out",
    "utcnow",
]
