"""outage watches (who asked to hear when an outage ends) and trust unblocks (the operator's
once-per-N-days policy)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "outage_watches",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("notified_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_outage_watches"),
    )
    op.create_index("uq_outage_watches_chat_id_event_id", "outage_watches", ["chat_id", "event_id"], unique=True)
    op.create_index("ix_outage_watches_notified_at", "outage_watches", ["notified_at"])
    op.create_table(
        "trust_unblocks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("customer_code", sa.Integer(), nullable=False),
        sa.Column("contract", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_trust_unblocks"),
    )
    op.create_index("ix_trust_unblocks_contract_at", "trust_unblocks", ["contract", "at"])


def downgrade() -> None:
    op.drop_table("trust_unblocks")
    op.drop_table("outage_watches")
