"""dead letters: found by chat

A WhatsApp message held outside the 24-hour window (no template for it) goes as it was when the
person writes again: each turn of theirs looks for their chat's held letters.

Revision ID: 0020
Revises: 0018
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0020"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_dead_letters_chat", "dead_letters", ["chat_id"])


def downgrade() -> None:
    op.drop_index("ix_dead_letters_chat", table_name="dead_letters")
