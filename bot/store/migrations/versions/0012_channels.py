"""channels: the inbox names each update's channel; chats and updates of channels whose ids are not
Telegram's numbers; the delivery statuses those channels report

``inbox.channel`` (``telegram`` for every row there already) tells the processor which adapter reads
an update. ``channel_chats`` gives a WhatsApp sender an internal chat id above Telegram's 52 bits;
``channel_updates`` keeps a WhatsApp ``wamid`` once (Meta redelivers for days) and gives its update an
inbox id above them too; ``message_statuses`` keeps the last status of each message the bot sent.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("inbox", sa.Column("channel", sa.String(16), nullable=False, server_default="telegram"))
    op.create_table(
        "channel_chats",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("external_id", sa.String(160), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_channel_chats"),
    )
    op.create_index("uq_channel_chats_channel_external_id", "channel_chats", ["channel", "external_id"], unique=True)
    op.create_table(
        "channel_updates",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("external_id", sa.String(200), nullable=False),
        sa.Column("received_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_channel_updates"),
    )
    op.create_index(
        "uq_channel_updates_channel_external_id", "channel_updates", ["channel", "external_id"], unique=True,
    )
    op.create_index("ix_channel_updates_received_at", "channel_updates", ["received_at"])
    op.create_table(
        "message_statuses",
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("external_id", sa.String(200), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.String(200), nullable=True),
        sa.Column("at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("channel", "external_id", name="pk_message_statuses"),
    )
    op.create_index("ix_message_statuses_chat_id", "message_statuses", ["chat_id"])


def downgrade() -> None:
    op.drop_index("ix_message_statuses_chat_id", table_name="message_statuses")
    op.drop_table("message_statuses")
    op.drop_index("ix_channel_updates_received_at", table_name="channel_updates")
    op.drop_index("uq_channel_updates_channel_external_id", table_name="channel_updates")
    op.drop_table("channel_updates")
    op.drop_index("uq_channel_chats_channel_external_id", table_name="channel_chats")
    op.drop_table("channel_chats")
    with op.batch_alter_table("inbox") as batch:
        batch.drop_column("channel")
