"""contested bills

``contested_bills`` keeps each bill a subscriber contested in the chat (customer, bill number, when,
the ticket's protocol), so every list and card of bills shows it as contested.

Revision ID: 0018
Revises: 0016
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime

revision: str = "0018"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "contested_bills",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("customer_code", sa.Integer(), nullable=False),
        sa.Column("document", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("ticket_id", sa.Integer(), nullable=True),
        sa.Column("protocol", sa.String(32), nullable=True),
        sa.Column("at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_contested_bills"),
    )
    op.create_index("ix_contested_bills_customer_code_document", "contested_bills", ["customer_code", "document"])


def downgrade() -> None:
    op.drop_index("ix_contested_bills_customer_code_document", table_name="contested_bills")
    op.drop_table("contested_bills")
