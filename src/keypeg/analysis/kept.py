"""Figures kept in the cache folder between runs (the Strategies page's trees, every opening's tree): one
JSON file per result, named by the game, the strategy and a digest of what makes the result, read back only
for that same key and never trusted beyond its size or its figures."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.strategy_tree import TreeStats

__all__ = ["MAX_KEPT_FILE", "kept_path", "read_kept", "keep", "kept_stats"]

MAX_KEPT_FILE = 1 << 20
"""A kept file larger than this is not read (it is not one keypeg wrote)."""

log = logging.getLogger("keypeg.analysis")


def kept_path(kind: str, rules: Rules, name: str, key: Mapping[str, Any]) -> Path:
    """Where a result of ``kind`` (``analysis``, ``openings``) of strategy ``name`` on ``rules`` is kept."""
    from keypeg.storage import cache_dir

    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / f"{kind}-{rules.slug}-{name}-{digest}.json"


def read_kept(path: Path, key: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON object kept at ``path`` if it was kept for ``key``; None if missing, too large, damaged or
    another key's."""
    try:
        if path.stat().st_size > MAX_KEPT_FILE:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    return data


def keep(path: Path, data: Mapping[str, Any], what: str) -> None:
    """Write ``data`` at ``path`` atomically; a failure is logged (``cannot keep {what}``), never raised:
    the result stands whether or not it is kept."""
    from keypeg.storage import atomic_write, check_cache_folder

    try:
        check_cache_folder()
        atomic_write(path, json.dumps(data, sort_keys=True))
    except KeypegError as error:
        log.warning("cannot keep %s: %s", what, error)


def kept_stats(distribution: object, rules: Rules) -> TreeStats | None:
    """A tree's figures from a kept distribution (``{"guesses": secrets}``), if they are a whole tree of
    ``rules``: every secret once, at a depth of at least one guess."""
    try:
        counts = {int(d): int(n) for d, n in distribution.items()}  # type: ignore[attr-defined]
        stats = TreeStats.from_distribution(counts)
    except (ValueError, TypeError, AttributeError, KeypegError):
        return None
    if stats.secrets != rules.size or any(d < 1 or n < 0 for d, n in counts.items()):
        return None
    return stats
