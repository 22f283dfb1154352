"""Idempotency keys of games: the key a client sent with the request that started a game, per player,
kept 24 hours, so that a retried request finds its game instead of starting another.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_keys",
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("request", sa.String(64), nullable=False),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_game_keys_created_at", "game_keys", ["created_at"])
    op.create_index("ix_game_keys_game_id", "game_keys", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_game_keys_game_id", "game_keys")
    op.drop_index("ix_game_keys_created_at", "game_keys")
    op.drop_table("game_keys")
