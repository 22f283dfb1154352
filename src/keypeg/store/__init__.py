"""keypeg's store: every finished game in a real database, for stats, history and the top 10.

SQLite in the user's data folder by default; any SQLAlchemy URL by ``--db`` or
``$KEYPEG_DB`` (PostgreSQL included). The schema upgrades itself on start (Alembic). :class:`Store` is the
unit of work; its repositories (``store.players``, ``store.games``, ``store.records``, ``store.matches``,
``store.live``, ``store.daily``, ``store.web_sessions``, ``store.keys``) each keep one kind of record.
"""

from __future__ import annotations

from keypeg.store.database import Store, default_url, safe_url
from keypeg.store.errors import (
    BadStoreAddressError,
    EmptyPasswordError,
    MovedOnError,
    PlayedAlreadyError,
    StoreError,
    StoreUnavailableError,
    UnknownRecordError,
    WrongPasswordError,
)
from keypeg.store.names import InvalidNameError, name_key, player_name
from keypeg.store.values import GameRecord, LiveRecord, MoveRecord, PlayerStats, Ranking, SavedGame

__all__ = [
    "BadStoreAddressError",
    "EmptyPasswordError",
    "MovedOnError",
    "StoreUnavailableError",
    "UnknownRecordError",
    "GameRecord",
    "InvalidNameError",
    "LiveRecord",
    "MoveRecord",
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
