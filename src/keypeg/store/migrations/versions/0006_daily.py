"""The daily puzzle: the server's keys (the daily secrets derive from one), and games marked with the
puzzle they are (``YYYY-MM-DD preset``), one per player and puzzle.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("daily", sa.String(80), nullable=True))
        batch.create_index("ix_games_daily_attempt", ["player_id", "daily"], unique=True)
        batch.create_index("ix_games_daily", ["daily"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_daily")
        batch.drop_index("ix_games_daily_attempt")
        batch.drop_column("daily")
    op.drop_table("server_keys")
