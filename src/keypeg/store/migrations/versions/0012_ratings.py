"""Ratings: the rated results (a match, a room, a seeding solo game), each player's rating before and after
each, and every player's current rating.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rating_results",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("event_id", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("places", sa.Text, nullable=False),
        sa.Column("fixed", sa.Text, nullable=True),
        sa.UniqueConstraint("kind", "event_id"),
    )
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("result_id", sa.Integer, sa.ForeignKey("rating_results.id"), nullable=False),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("rd_before", sa.Float, nullable=False),
        sa.Column("volatility_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("rd_after", sa.Float, nullable=False),
        sa.Column("volatility_after", sa.Float, nullable=False),
        sa.UniqueConstraint("result_id", "player_id"),
    )
    op.create_index("ix_rating_changes_result_id", "rating_changes", ["result_id"])
    op.create_index("ix_rating_changes_player_id", "rating_changes", ["player_id"])
    op.create_table(
        "player_ratings",
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("results", sa.Integer, nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_player_ratings_rating", "player_ratings", ["rating"])


def downgrade() -> None:
    op.drop_index("ix_player_ratings_rating", "player_ratings")
    op.drop_table("player_ratings")
    op.drop_index("ix_rating_changes_player_id", "rating_changes")
    op.drop_index("ix_rating_changes_result_id", "rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("rating_results")
