"""inbox: a partial index on the rows that hold their chat's later updates back

A claim takes a chat's oldest pending update only if ``NOT EXISTS`` an older one still waiting
(pending, or answered but not yet accepted by Telegram). With only ``(chat_id, update_id)`` that
walked every update the chat had since the last prune (a day of a busy chat, the staff group's
thousands); the partial index holds only the waiting rows, so it is one lookup.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WAITING = "state = 'pending' OR answer IS NOT NULL"  # bot.store.models.INBOX_WAITING when written


def upgrade() -> None:
    op.create_index(
        "ix_inbox_waiting", "inbox", ["chat_id", "update_id"],
        sqlite_where=sa.text(WAITING), postgresql_where=sa.text(WAITING),
    )


def downgrade() -> None:
    op.drop_index("ix_inbox_waiting", table_name="inbox")
