"""What the store raises: :class:`StoreError` and its kinds, each also of one kind of :mod:`keypeg.errors`."""

from __future__ import annotations

from keypeg.errors import (
    ConflictError,
    ForbiddenError,
    KeypegError,
    NotFoundError,
    RefusedError,
    UnavailableError,
)

__all__ = [
    "BadStoreAddressError",
    "DamagedRecordError",
    "EmptyPasswordError",
    "MovedOnError",
    "PlayedAlreadyError",
    "StoreError",
    "StoreUnavailableError",
    "UnknownRecordError",
    "WrongPasswordError",
]


class StoreError(KeypegError):
    """Root of what the store raises; each error is also of one kind of :mod:`keypeg.errors`."""


class StoreUnavailableError(StoreError, UnavailableError):
    """The database cannot be used now: locked, corrupt, unreachable, full, read-only, newer schema."""


class BadStoreAddressError(StoreError, ValueError):
    """A database asked for wrongly: a bad URL, a driver not installed, a folder that is not there."""


class UnknownRecordError(StoreError, NotFoundError):
    """No such player, game or match (or not one the asker may see: the same answer)."""


class MovedOnError(StoreError, ConflictError):
    """A record was changed elsewhere since it was loaded (its version moved on): this copy is not kept."""


class PlayedAlreadyError(StoreError, RefusedError):
    """A second attempt at a daily puzzle (refused: one attempt per player and puzzle)."""


class WrongPasswordError(StoreError, ForbiddenError):
    """A player's password did not match (or was not given for a protected player)."""


class EmptyPasswordError(StoreError, ValueError):
    """A password that is empty."""


class DamagedRecordError(KeypegError, ValueError):
    """A stored game whose values cannot be rules or moves (a hand-edited database): the store reports it
    as :class:`StoreUnavailableError`."""
