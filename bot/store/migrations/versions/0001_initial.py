"""initial schema: chats, links, link attempts, processed updates, inbox, outbox, invites

Revision ID: 0001
Revises:
Create Date: 2025-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime, json_type

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies of the vocabularies as they were at this revision (bot.store.enums may grow later).
ROLES = "role IN ('subscriber', 'technician', 'staff')"


def _created_at() -> sa.Column[object]:
    return sa.Column("created_at", UtcDateTime(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "chats",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("language", sa.String(16), nullable=True),
        sa.Column("flow", sa.String(64), nullable=True),
        sa.Column("step", sa.String(64), nullable=True),
        sa.Column("data", json_type(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("current_ticket", sa.Integer(), nullable=True),
        sa.Column("handoff_topic", sa.BigInteger(), nullable=True),
        _created_at(),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name="pk_chats"),
        sa.CheckConstraint(ROLES, name="ck_chats_role"),
    )
    op.create_table(
        "links",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("customer_code", sa.Integer(), nullable=True),
        sa.Column("authentication_id", sa.Integer(), nullable=True),
        sa.Column("contract", sa.Integer(), nullable=True),
        sa.Column("system_user", sa.String(128), nullable=True),
        sa.Column("proof", sa.String(16), nullable=False),
        sa.Column("proved_at", UtcDateTime(), nullable=False),
        sa.Column("unlinked_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_links"),
        sa.CheckConstraint(ROLES, name="ck_links_role"),
        sa.CheckConstraint("proof IN ('contact_phone', 'pppoe_password', 'invite')", name="ck_links_proof"),
        sa.CheckConstraint(
            "customer_code IS NOT NULL OR authentication_id IS NOT NULL OR system_user IS NOT NULL",
            name="ck_links_target",
        ),
    )
    op.create_index(
        "uq_links_active_chat", "links", ["chat_id"], unique=True,
        sqlite_where=sa.text("unlinked_at IS NULL"), postgresql_where=sa.text("unlinked_at IS NULL"),
    )
    op.create_index("ix_links_customer_code", "links", ["customer_code"])

    op.create_table(
        "link_attempts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("at", UtcDateTime(), nullable=False),
        sa.Column("succeeded", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_link_attempts"),
    )
    op.create_index("ix_link_attempts_chat_id_at", "link_attempts", ["chat_id", "at"])

    op.create_table(
        "processed_updates",
        sa.Column("update_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("processed_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("update_id", name="pk_processed_updates"),
    )
    op.create_index("ix_processed_updates_processed_at", "processed_updates", ["processed_at"])

    op.create_table(
        "inbox",
        sa.Column("update_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=True),
        sa.Column("payload", json_type(), nullable=False),
        sa.Column("received_at", UtcDateTime(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("available_at", UtcDateTime(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("processed_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("update_id", name="pk_inbox"),
        sa.CheckConstraint("state IN ('pending', 'done', 'failed')", name="ck_inbox_state"),
    )
    op.create_index("ix_inbox_state_available_at", "inbox", ["state", "available_at"])
    op.create_index("ix_inbox_chat_id_update_id", "inbox", ["chat_id", "update_id"])

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("ticket_id", sa.Integer(), nullable=False),
        sa.Column("customer", sa.Integer(), nullable=False),
        sa.Column("record", UtcDateTime(), nullable=False),
        sa.Column("attendant", sa.String(128), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("origin", sa.String(1), nullable=False),
        sa.Column("contact", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", UtcDateTime(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        _created_at(),
        sa.Column("sent_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_outbox"),
        sa.CheckConstraint("state IN ('pending', 'sent', 'dead')", name="ck_outbox_state"),
        sa.CheckConstraint("origin IN ('C', 'A', 'S')", name="ck_outbox_origin"),
    )
    op.create_index("ix_outbox_state_next_attempt_at", "outbox", ["state", "next_attempt_at"])
    op.create_index("ix_outbox_ticket_id_id", "outbox", ["ticket_id", "id"])

    op.create_table(
        "invites",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("system_user", sa.String(128), nullable=False),
        _created_at(),
        sa.Column("expires_at", UtcDateTime(), nullable=False),
        sa.Column("used_at", UtcDateTime(), nullable=True),
        sa.Column("used_by_chat", sa.BigInteger(), nullable=True),
        sa.Column("revoked_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_invites"),
        sa.CheckConstraint("role IN ('technician', 'staff')", name="ck_invites_role"),
    )
    op.create_index("uq_invites_code_hash", "invites", ["code_hash"], unique=True)


def downgrade() -> None:
    for table in ("invites", "outbox", "inbox", "processed_updates", "link_attempts", "links", "chats"):
        op.drop_table(table)
