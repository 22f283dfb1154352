"""Matches between two people on the web: the second seat, a version
bumped at every move (for live updates), when each seat was last seen (for forfeits); and who set the
code of a game between people.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column(
                "opponent_id", sa.Integer, sa.ForeignKey("players.id", name="fk_matches_opponent_id"), nullable=True
            )
        )
        batch.add_column(sa.Column("version", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("seen_first", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("seen_second", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("maker_id", sa.Integer, sa.ForeignKey("players.id", name="fk_games_maker_id"), nullable=True)
        )
        batch.create_index("ix_games_maker_id", ["maker_id"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_maker_id")
        batch.drop_column("maker_id")
    with op.batch_alter_table("matches") as batch:
        for column in ("seen_second", "seen_first", "version", "opponent_id"):
            batch.drop_column(column)
