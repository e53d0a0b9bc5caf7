"""inbox: the pending updates in order, and the unsent answers, in partial indexes of their own

A claim looks for the oldest due heads (``bot.store.queue``): ``ORDER BY update_id LIMIT n`` over the
pending updates. Through ``(state, available_at)`` SQLite read every due update and sorted them at
each claim (in a burst, thousands for each claim of a dozen), and PostgreSQL walked the primary key
through every finished update since the last prune. Walking ``ix_inbox_pending`` in order, a claim
reads about as many updates as it takes. ``(state, available_at)`` served the claim and the resend
sweep; the sweep now has ``ix_inbox_unsent``, and without it SQLite no longer prefers it for a claim.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PENDING = "state = 'pending'"  # bot.store.models.INBOX_PENDING when written
UNSENT = "answer IS NOT NULL"  # bot.store.models.INBOX_UNSENT when written


def upgrade() -> None:
    op.create_index("ix_inbox_pending", "inbox", ["update_id", "chat_id", "available_at"],
                    sqlite_where=sa.text(PENDING), postgresql_where=sa.text(PENDING))
    op.create_index("ix_inbox_unsent", "inbox", ["available_at"],
                    sqlite_where=sa.text(UNSENT), postgresql_where=sa.text(UNSENT))
    op.drop_index("ix_inbox_state_available_at", table_name="inbox")


def downgrade() -> None:
    op.create_index("ix_inbox_state_available_at", "inbox", ["state", "available_at"])
    op.drop_index("ix_inbox_unsent", table_name="inbox")
    op.drop_index("ix_inbox_pending", table_name="inbox")
