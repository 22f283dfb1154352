"""The web app's sessions, failed logins (to limit them across workers), and games' public ids
(unguessable, for URLs and the API).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("key", sa.String(200), nullable=False, index=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False, index=True),
    )
    op.add_column("games", sa.Column("public_id", sa.String(32), nullable=True))
    op.create_index("ix_games_public_id", "games", ["public_id"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_games_public_id", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("public_id")
    op.drop_table("login_failures")
    op.drop_table("web_sessions")
