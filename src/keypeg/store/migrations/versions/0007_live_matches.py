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
    # plain ADD COLUMN (SQLite would otherwise copy the tables, which its foreign keys refuse)
    op.add_column("matches", sa.Column("opponent_id", sa.Integer, nullable=True))
    op.add_column("matches", sa.Column("version", sa.Integer, nullable=False, server_default="0"))
    op.add_column("matches", sa.Column("seen_first", sa.DateTime(timezone=True), nullable=True))
    op.add_column("matches", sa.Column("seen_second", sa.DateTime(timezone=True), nullable=True))
    op.add_column("games", sa.Column("maker_id", sa.Integer, nullable=True))
    op.create_index("ix_games_maker_id", "games", ["maker_id"])
    if op.get_bind().dialect.name != "sqlite":
        op.create_foreign_key("fk_matches_opponent_id", "matches", "players", ["opponent_id"], ["id"])
        op.create_foreign_key("fk_games_maker_id", "games", "players", ["maker_id"], ["id"])


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("fk_games_maker_id", "games", type_="foreignkey")
        op.drop_constraint("fk_matches_opponent_id", "matches", type_="foreignkey")
    op.drop_index("ix_games_maker_id", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("maker_id")
    with op.batch_alter_table("matches") as batch:
        for column in ("seen_second", "seen_first", "version", "opponent_id"):
            batch.drop_column(column)
