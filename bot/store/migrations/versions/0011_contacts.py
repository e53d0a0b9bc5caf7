"""contacts: a protocol for every contact, what it was about and came to, and its deadlines

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEADLINE_OPEN = "due_at IS NOT NULL AND settled_at IS NULL"  # bot.store.models.DEADLINE_OPEN when written


def upgrade() -> None:
    op.create_table(
        "contacts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("day", sa.String(length=8), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("customer_code", sa.Integer(), nullable=True),
        sa.Column("started_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_contacts"),
    )
    op.create_index("ix_contacts_customer_code_started_at", "contacts", ["customer_code", "started_at"])
    op.create_index("ix_contacts_chat_id_started_at", "contacts", ["chat_id", "started_at"])
    op.create_index("ix_contacts_started_at", "contacts", ["started_at"])
    op.create_table(
        "contact_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("contact_id", sa.Integer(), nullable=False),
        sa.Column("at", UtcDateTime(), nullable=False),
        sa.Column("subject", sa.String(length=48), nullable=False),
        sa.Column("outcome", sa.String(length=48), nullable=True),
        sa.Column("ticket_id", sa.Integer(), nullable=True),
        sa.Column("reference", sa.String(length=64), nullable=True),
        sa.Column("deadline", sa.String(length=24), nullable=True),
        sa.Column("due_at", UtcDateTime(), nullable=True),
        sa.Column("settled_at", UtcDateTime(), nullable=True),
        sa.Column("warned_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_contact_events"),
    )
    op.create_index("ix_contact_events_contact_id_id", "contact_events", ["contact_id", "id"])
    op.create_index(
        "ix_contact_events_due_at", "contact_events", ["due_at"],
        sqlite_where=sa.text(DEADLINE_OPEN), postgresql_where=sa.text(DEADLINE_OPEN),
    )


def downgrade() -> None:
    op.drop_index("ix_contact_events_due_at", table_name="contact_events")
    op.drop_index("ix_contact_events_contact_id_id", table_name="contact_events")
    op.drop_table("contact_events")
    op.drop_index("ix_contacts_started_at", table_name="contacts")
    op.drop_index("ix_contacts_chat_id_started_at", table_name="contacts")
    op.drop_index("ix_contacts_customer_code_started_at", table_name="contacts")
    op.drop_table("contacts")
