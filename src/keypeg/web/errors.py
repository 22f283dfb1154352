"""The one table from keypeg's errors to HTTP statuses, for every route of the pages and the API."""

from __future__ import annotations

from keypeg.errors import (
    ConflictError,
    ForbiddenError,
    InconsistentScoreError,
    KeypegError,
    NotFoundError,
    UnavailableError,
)
from keypeg.services.accounts import ThrottledError

__all__ = ["STATUSES", "retry_after", "status_of"]

STATUSES: tuple[tuple[type[Exception], int], ...] = (
    (InconsistentScoreError, 409),
    (ThrottledError, 429),
    (NotFoundError, 404),
    (ForbiddenError, 403),
    (ConflictError, 409),
    (UnavailableError, 503),
    (KeypegError, 400),
    (ValueError, 400),
)
"""The one table from keypeg's errors to HTTP statuses, the first kind that matches: a score no code
fits and a record changed meanwhile are conflicts (409); too many failed logins or registrations lately is
429 (a refusal to be tried again later, with a ``Retry-After`` header: :func:`retry_after`); bad input, a
move a rule refuses and work too costly are 400; a store or worker that is down is 503."""


def status_of(error: Exception) -> int:
    """The HTTP status of ``error``, by :data:`STATUSES`."""
    return next(status for kind, status in STATUSES if isinstance(error, kind))


def retry_after(error: Exception) -> dict[str, str] | None:
    """The ``Retry-After`` header of a refusal to be tried again later (429); ``None`` for other errors."""
    seconds = error.retry_after if isinstance(error, ThrottledError) else 0
    return {"Retry-After": str(seconds)} if seconds > 0 else None
