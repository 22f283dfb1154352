"""A version for every game, bumped at every write, so that games are compared and swapped as matches
are (a guess count did not see an undo followed by a guess).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN (SQLite would otherwise copy the table, which its foreign keys refuse)
    op.add_column("games", sa.Column("version", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("version")
