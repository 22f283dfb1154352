"""A live match no longer keeps when each seat was last seen: its clock (in the match's state) decides who
forfeits, not presence.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("seen_second")
        batch.drop_column("seen_first")


def downgrade() -> None:
    op.add_column("matches", sa.Column("seen_first", sa.DateTime(timezone=True), nullable=True))
    op.add_column("matches", sa.Column("seen_second", sa.DateTime(timezone=True), nullable=True))
