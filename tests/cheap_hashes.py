"""The tests' password hashes: argon2id at its lowest cost, in the test process and in every process it starts.

The tests register and log in players hundreds of times (directly, over the API, through servers they
start); argon2's default cost (three passes over 64 MiB, four lanes) is about 0.2 s of CPU for a hash and
as much for a check on 2 cores. The store's code runs as in production (``PasswordHasher()``, here a
subclass with other defaults): the hashes are argon2id all the same, and any hash verifies whatever its
cost. ``tests/children/sitecustomize.py`` installs it in the processes the tests start (conftest's
``environment()`` puts that folder first on their ``PYTHONPATH``).
"""

from __future__ import annotations

from typing import Any

import argon2

CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}
"""argon2's lowest cost: one pass over 8 KiB, one lane."""


class CheapHasher(argon2.PasswordHasher):
    """argon2's ``PasswordHasher`` with :data:`CHEAP` as its defaults."""

    def __init__(self, **given: Any) -> None:
        super().__init__(**{**CHEAP, **given})


def install() -> None:
    """Make ``argon2.PasswordHasher`` the cheap one in this process."""
    argon2.PasswordHasher = CheapHasher  # type: ignore[misc, assignment]
