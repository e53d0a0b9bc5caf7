"""handoffs: conversations handed to the staff, one forum topic each

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "handoffs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("ticket_id", sa.Integer(), nullable=False),
        sa.Column("customer_code", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.BigInteger(), nullable=True),
        sa.Column("opened_at", UtcDateTime(), nullable=False),
        sa.Column("answered_at", UtcDateTime(), nullable=True),
        sa.Column("waiting_told_at", UtcDateTime(), nullable=True),
        sa.Column("closed_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_handoffs"),
    )
    op.create_index("ix_handoffs_chat_id_closed_at", "handoffs", ["chat_id", "closed_at"])
    op.create_index("ix_handoffs_topic_id", "handoffs", ["topic_id"])


def downgrade() -> None:
    op.drop_index("ix_handoffs_topic_id", table_name="handoffs")
    op.drop_index("ix_handoffs_chat_id_closed_at", table_name="handoffs")
    op.drop_table("handoffs")
