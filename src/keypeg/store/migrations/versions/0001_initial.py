"""The first tables: players, matches, games, guesses.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True, index=True),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False, index=True),
        sa.Column("variant", sa.String(64), nullable=False, index=True),
        sa.Column("pegs", sa.Integer, nullable=False),
        sa.Column("colors", sa.Integer, nullable=False),
        sa.Column("repeats", sa.Boolean, nullable=False),
        sa.Column("blanks", sa.Boolean, nullable=False),
        sa.Column("rows", sa.Integer, nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("level", sa.Integer, nullable=True),
        sa.Column("secret", sa.String(64), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=True, index=True),
        sa.Column("guesses", sa.Integer, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), nullable=True),
    )
    op.create_table(
        "guesses",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("guess", sa.String(64), nullable=False),
        sa.Column("black", sa.Integer, nullable=False),
        sa.Column("white", sa.Integer, nullable=False),
        sa.Column("made_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "number"),
    )


def downgrade() -> None:
    op.drop_table("guesses")
    op.drop_table("games")
    op.drop_table("matches")
    op.drop_table("players")
