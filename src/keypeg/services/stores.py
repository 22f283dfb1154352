"""The store as the faces open it, and the store's values and names the faces show.

The faces never import :mod:`keypeg.store`: they open the database here and hand the :class:`Store` to the
use cases.
"""

from __future__ import annotations

from keypeg.store import (
    GameRecord,
    InvalidNameError,
    PlayerStats,
    Ranking,
    Store,
    StoreError,
    WrongPasswordError,
    default_url,
    name_key,
    player_name,
    safe_url,
)
from keypeg.store.names import GUEST_PREFIX

__all__ = [
    "GUEST_PREFIX",
    "GameRecord",
    "InvalidNameError",
    "PlayerStats",
    "Ranking",
    "Store",
    "StoreError",
    "WrongPasswordError",
    "default_url",
    "name_key",
    "open_store",
    "player_name",
    "safe_url",
]


def open_store(url: str | None = None) -> Store:
    """The store at ``url`` (``None``: ``$KEYPEG_DB`` as the faces read it, else the default SQLite file in
    the user's data folder); its schema is brought up to date."""
    return Store(url)
