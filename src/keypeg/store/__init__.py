"""keypeg's store: every finished game in a real database, for stats, history and the top 10.

SQLite in the user's data folder by default; any SQLAlchemy URL by ``--db`` or
``$KEYPEG_DB`` (PostgreSQL included). The schema upgrades itself on start (Alembic).
"""

from __future__ import annotations

from keypeg.store.database import (
    BadStoreAddressError,
    EmptyPasswordError,
    GameRecord,
    Move,
    MovedOnError,
    PlayedAlreadyError,
    PlayerStats,
    Ranking,
    SavedGame,
    Store,
    StoreError,
    StoreUnavailableError,
    UnknownRecordError,
    WrongPasswordError,
    default_url,
    safe_url,
)
from keypeg.store.names import InvalidNameError, name_key, player_name

__all__ = [
    "BadStoreAddressError",
    "EmptyPasswordError",
    "MovedOnError",
    "StoreUnavailableError",
    "UnknownRecordError",
    "GameRecord",
    "InvalidNameError",
    "Move",
    "PlayedAlreadyError",
    "PlayerStats",
    "Ranking",
    "SavedGame",
    "Store",
    "StoreError",
    "WrongPasswordError",
    "default_url",
    "name_key",
    "player_name",
    "safe_url",
]
