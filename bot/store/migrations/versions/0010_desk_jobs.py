"""desk jobs: calls to the staff desk carried out after the turn commits; a handoff's desk reference

Opening a forum topic was a Telegram call made inside the turn's transaction, with the chat's row
locked. A turn now writes what the desk must do (open, post, close) as ``desk_jobs`` rows, and
``bot.desks.worker`` carries them out, in order per chat, with retries. A handoff keeps the desk's
reference of its conversation as text (a topic's thread id, a Chatwoot conversation id), in place
of ``topic_id``: the open handoffs' topics are carried over.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime, json_type

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "desk_jobs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("handoff_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("payload", json_type(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", UtcDateTime(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("done_at", UtcDateTime(), nullable=True),
        sa.CheckConstraint("state IN ('pending', 'done', 'dead')", name="ck_desk_jobs_state"),
        sa.CheckConstraint("kind IN ('open', 'post', 'close')", name="ck_desk_jobs_kind"),
        sa.PrimaryKeyConstraint("id", name="pk_desk_jobs"),
    )
    op.create_index("ix_desk_jobs_state_next_attempt_at", "desk_jobs", ["state", "next_attempt_at"])
    op.create_index("ix_desk_jobs_chat_id_state_id", "desk_jobs", ["chat_id", "state", "id"])
    with op.batch_alter_table("handoffs") as batch:
        batch.add_column(sa.Column("desk_ref", sa.String(length=64), nullable=True))
    op.execute("UPDATE handoffs SET desk_ref = CAST(topic_id AS VARCHAR(64)) WHERE topic_id IS NOT NULL")
    op.drop_index("ix_handoffs_topic_id", table_name="handoffs")
    with op.batch_alter_table("handoffs") as batch:
        batch.drop_column("topic_id")
    op.create_index("ix_handoffs_desk_ref", "handoffs", ["desk_ref"])


def downgrade() -> None:
    op.drop_index("ix_handoffs_desk_ref", table_name="handoffs")
    with op.batch_alter_table("handoffs") as batch:
        batch.add_column(sa.Column("topic_id", sa.BigInteger(), nullable=True))
    # The old code knew only forum topics: a downgrade is for a bot whose desk is Telegram's.
    op.execute("UPDATE handoffs SET topic_id = CAST(desk_ref AS BIGINT) WHERE desk_ref IS NOT NULL")
    with op.batch_alter_table("handoffs") as batch:
        batch.drop_column("desk_ref")
    op.create_index("ix_handoffs_topic_id", "handoffs", ["topic_id"])
    op.drop_index("ix_desk_jobs_chat_id_state_id", table_name="desk_jobs")
    op.drop_index("ix_desk_jobs_state_next_attempt_at", table_name="desk_jobs")
    op.drop_table("desk_jobs")
