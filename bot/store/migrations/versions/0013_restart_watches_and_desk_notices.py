"""restart watches; desk jobs of kind notice

``restart_watches`` keeps a connection the bot dropped for a restart until it is seen back (or the
wait ran out) and the person told, so the turn that dropped it no longer waits for it. Desk jobs may
be ``notice``: a word to the staff about a person outside any handed-over conversation (a cancel, a
suspension, a contact deadline close to its end).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime, json_type

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WAITING = "answered_at IS NULL"


def upgrade() -> None:
    op.create_table(
        "restart_watches",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("customer_code", sa.Integer(), nullable=False),
        sa.Column("dropped", json_type(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("give_up_at", UtcDateTime(), nullable=False),
        sa.Column("next_look_at", UtcDateTime(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("answered_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_restart_watches"),
    )
    op.create_index("ix_restart_watches_next_look_at", "restart_watches", ["next_look_at"],
                    sqlite_where=sa.text(WAITING), postgresql_where=sa.text(WAITING))
    op.create_index("ix_restart_watches_chat_id", "restart_watches", ["chat_id"])
    with op.batch_alter_table("desk_jobs") as batch:
        batch.drop_constraint("ck_desk_jobs_kind", type_="check")
        batch.create_check_constraint("kind", "kind IN ('open', 'post', 'close', 'notice')")


def downgrade() -> None:
    op.execute("DELETE FROM desk_jobs WHERE kind = 'notice'")
    with op.batch_alter_table("desk_jobs") as batch:
        batch.drop_constraint("ck_desk_jobs_kind", type_="check")
        batch.create_check_constraint("kind", "kind IN ('open', 'post', 'close')")
    op.drop_index("ix_restart_watches_chat_id", table_name="restart_watches")
    op.drop_index("ix_restart_watches_next_look_at", table_name="restart_watches")
    op.drop_table("restart_watches")
