"""link_attempts: the person an attempt was about, as a keyed hash, for limits across chats

A failed link attempt also names its target: the tax id or PPPoE login it tried, as
``tax_id:<hmac>`` or ``login:<hmac>`` (never the value itself, so the table is no list of customers),
so that failures are counted per person across every chat as well as per chat.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("link_attempts", sa.Column("target", sa.String(length=64), nullable=True))
    op.create_index("ix_link_attempts_target_at", "link_attempts", ["target", "at"])


def downgrade() -> None:
    op.drop_index("ix_link_attempts_target_at", table_name="link_attempts")
    with op.batch_alter_table("link_attempts") as batch:
        batch.drop_column("target")
