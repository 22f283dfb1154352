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
    op.add_column("games", sa.Column("daily", sa.String(80), nullable=True))
    op.create_index("ix_games_daily_attempt", "games", ["player_id", "daily"], unique=True)
    op.create_index("ix_games_daily", "games", ["daily"])


def downgrade() -> None:
    op.drop_index("ix_games_daily", "games")
    op.drop_index("ix_games_daily_attempt", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("daily")
    op.drop_table("server_keys")
