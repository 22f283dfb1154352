"""Rooms: 2 to 8 players playing rounds on the same code (the room's state, its private side, version and
host), the seats taken in each (a player's rooms are found by them), and the games that are its boards.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(32), nullable=False),
        sa.Column("host_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("secret", sa.Text, nullable=True),
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rooms_public_id", "rooms", ["public_id"], unique=True)
    op.create_index("ix_rooms_host_id", "rooms", ["host_id"])
    op.create_table(
        "room_seats",
        sa.Column("room_id", sa.Integer, sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_room_seats_player_id", "room_seats", ["player_id"])
    op.create_table(
        "room_games",
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("room_id", sa.Integer, sa.ForeignKey("rooms.id"), nullable=False),
    )
    op.create_index("ix_room_games_room_id", "room_games", ["room_id"])


def downgrade() -> None:
    op.drop_index("ix_room_games_room_id", "room_games")
    op.drop_table("room_games")
    op.drop_index("ix_room_seats_player_id", "room_seats")
    op.drop_table("room_seats")
    op.drop_index("ix_rooms_host_id", "rooms")
    op.drop_index("ix_rooms_public_id", "rooms")
    op.drop_table("rooms")
