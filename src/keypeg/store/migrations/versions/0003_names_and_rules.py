"""One name, one player: players get a comparison key (unique); games keep their full rules.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from keypeg.errors import KeypegError
from keypeg.store.names import name_key

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("key", sa.String(128), nullable=True))
    op.add_column("games", sa.Column("rules", sa.Text, nullable=True))
    players = sa.table(
        "players", sa.column("id", sa.Integer), sa.column("name", sa.String), sa.column("key", sa.String)
    )
    connection = op.get_bind()
    taken: set[str] = set()
    for player_id, name in connection.execute(sa.select(players.c.id, players.c.name).order_by(players.c.id)):
        try:
            key = name_key(name)
        except KeypegError:
            key = f"{name.casefold()}#{player_id}"  # a name keypeg no longer accepts: kept, never matched
        if key in taken:
            key = f"{key}#{player_id}"  # an older twin of a player: its games stay, its name is the first one's
        taken.add(key)
        connection.execute(players.update().where(players.c.id == player_id).values(key=key))
    op.create_index("ix_players_key", "players", ["key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_players_key", "players")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rules")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("key")
