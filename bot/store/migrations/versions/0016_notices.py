"""notices the bot writes first: who was told what (once), who opted out, the rounds

``notices_sent`` holds one row per (kind, subject, chat): a bill's reminder or an outage's notice is
claimed there before it goes, so it goes once whatever the rounds, restarts and processes.
``notice_opt_outs`` keeps the kinds a chat asked not to receive (``all`` for every kind), and
``notice_rounds`` what each round did (``ispbot notices status``).

Revision ID: 0016
Revises: 0014
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime, json_type

revision: str = "0016"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "notices_sent",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("subject", sa.String(64), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("customer_code", sa.Integer(), nullable=False),
        sa.Column("at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_notices_sent"),
    )
    op.create_index("uq_notices_sent_kind_subject_chat_id", "notices_sent", ["kind", "subject", "chat_id"],
                    unique=True)
    op.create_index("ix_notices_sent_chat_id", "notices_sent", ["chat_id"])
    op.create_table(
        "notice_opt_outs",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "kind", name="pk_notice_opt_outs"),
    )
    op.create_table(
        "notice_rounds",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("as_of", UtcDateTime(), nullable=False),
        sa.Column("started_at", UtcDateTime(), nullable=False),
        sa.Column("finished_at", UtcDateTime(), nullable=True),
        sa.Column("sent", sa.Integer(), nullable=False),
        sa.Column("held", sa.Integer(), nullable=False),
        sa.Column("refused", sa.Integer(), nullable=False),
        sa.Column("isp_calls", sa.Integer(), nullable=False),
        sa.Column("details", json_type(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_notice_rounds"),
    )
    op.create_index("ix_notice_rounds_started_at", "notice_rounds", ["started_at"])


def downgrade() -> None:
    op.drop_index("ix_notice_rounds_started_at", table_name="notice_rounds")
    op.drop_table("notice_rounds")
    op.drop_table("notice_opt_outs")
    op.drop_index("ix_notices_sent_chat_id", table_name="notices_sent")
    op.drop_index("uq_notices_sent_kind_subject_chat_id", table_name="notices_sent")
    op.drop_table("notices_sent")
