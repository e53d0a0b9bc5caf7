"""channel chats: another id of the same person

WhatsApp's usernames: a person first known by their number (``wa_id``) is later named by a
business-scoped user id as well, and only by it once their number is withheld. ``alias_of`` makes
the second id's row point at the chat of the first, so the person keeps one chat (its link, its
conversation) whichever id Meta gives.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("channel_chats", sa.Column("alias_of", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("channel_chats") as batch:
        batch.drop_column("alias_of")
