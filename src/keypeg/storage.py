"""Where keypeg keeps files between runs: solved strategies (cache) and, later, the database (data)."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """The folder for solved strategies: ``$KEYPEG_CACHE`` if set, else the user's cache folder."""
    override = os.environ.get("KEYPEG_CACHE")
    return Path(override) if override else Path(user_cache_dir("keypeg"))
