"""Matches played on the web: an unguessable public id and the player whose match it is.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN (SQLite would otherwise copy the table, which its foreign keys refuse)
    op.add_column("matches", sa.Column("public_id", sa.String(32), nullable=True))
    op.add_column("matches", sa.Column("player_id", sa.Integer, nullable=True))
    op.create_index("ix_matches_public_id", "matches", ["public_id"], unique=True)
    if op.get_bind().dialect.name != "sqlite":
        op.create_foreign_key("fk_matches_player_id", "matches", "players", ["player_id"], ["id"])


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("fk_matches_player_id", "matches", type_="foreignkey")
    op.drop_index("ix_matches_public_id", "matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("player_id")
        batch.drop_column("public_id")
