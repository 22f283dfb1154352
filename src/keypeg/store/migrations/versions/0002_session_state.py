"""Games keep their play session's state, so another process can continue them, and whether they are rated.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE ... ADD COLUMN (no table rebuild), which every database does in place: a rebuild
    # of ``games`` on SQLite would break the guesses' foreign keys.
    op.add_column("games", sa.Column("state", sa.Text, nullable=True))
    op.add_column("games", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rated")
        batch.drop_column("state")
