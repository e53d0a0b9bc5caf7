"""processes announce themselves and own their leases; dead letters of Telegram calls

``processes`` holds one row per running ``ispbot run``, refreshed every second or so; ``inbox.owner``
names the process whose claim or unsent answer a row is, so that when a heartbeat stops another
process takes that work over within seconds rather than when its lease ends. ``dead_letters`` keeps
the Bot API calls the sender could not get to Telegram within its horizon, for ``ispbot undelivered``.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime, json_type

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WAITING = "state = 'pending' OR answer IS NOT NULL"  # bot.store.models.INBOX_WAITING when written


def upgrade() -> None:
    op.create_table(
        "processes",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("started_at", UtcDateTime(), nullable=False),
        sa.Column("heartbeat_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_processes"),
    )
    op.create_table(
        "dead_letters",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("method", sa.String(64), nullable=False),
        sa.Column("params", json_type(), nullable=False),
        sa.Column("error", sa.String(200), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_dead_letters"),
    )
    op.add_column("inbox", sa.Column("owner", sa.String(36), nullable=True))
    op.create_index(
        "ix_inbox_owner", "inbox", ["owner"], sqlite_where=sa.text(WAITING), postgresql_where=sa.text(WAITING),
    )


def downgrade() -> None:
    op.drop_index("ix_inbox_owner", table_name="inbox")
    with op.batch_alter_table("inbox") as batch:
        batch.drop_column("owner")
    op.drop_table("dead_letters")
    op.drop_table("processes")
