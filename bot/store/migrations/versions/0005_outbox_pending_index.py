"""outbox: an index that finds a ticket's pending entries without walking its sent ones

The mirror claims a ticket through its oldest pending entry (``NOT EXISTS`` an older pending one of
the same ticket) and then reads the ticket's other pending entries; with only ``(ticket_id, id)``
both walked every entry the ticket ever had, so each claim grew slower as entries were sent.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_outbox_ticket_id_state_id", "outbox", ["ticket_id", "state", "id"])


def downgrade() -> None:
    op.drop_index("ix_outbox_ticket_id_state_id", table_name="outbox")
