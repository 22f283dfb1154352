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
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("public_id", sa.String(32), nullable=True))
        batch.add_column(
            sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id", name="fk_matches_player_id"), nullable=True)
        )
        batch.create_index("ix_matches_public_id", ["public_id"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_index("ix_matches_public_id")
        batch.drop_column("player_id")
        batch.drop_column("public_id")
