"""The exceptions keypeg raises.

Every error keypeg raises on purpose derives from :class:`KeypegError`; errors
caused by bad input also derive from :class:`ValueError`, and their messages
quote the offending input with ``!r``. Besides bad input, an error is of one of
the kinds below, which each face maps in one table (the command line to exit
codes, the web to statuses): :class:`NotFoundError`, :class:`ForbiddenError`,
:class:`ConflictError`, :class:`RefusedError`, :class:`UnavailableError`, and
:class:`TooLargeError` for work too costly to do.
"""

from __future__ import annotations


class KeypegError(Exception):
    """Root of every error keypeg raises on purpose."""


class NotFoundError(KeypegError):
    """What was asked for is not there (a game, a match, a player), or is someone else's: the same answer,
    so that nobody learns what others have."""


class ForbiddenError(KeypegError):
    """The one asking may not do this (a wrong password, a move in another player's seat)."""


class ConflictError(KeypegError):
    """Someone acted first: what was loaded has changed since (load it again and look)."""


class RefusedError(KeypegError):
    """A rule of the game says no (a second attempt at a daily puzzle, a guess after the end)."""


class UnavailableError(KeypegError):
    """Something keypeg needs cannot be used now (the database, a file, a worker, a cluster): a failure
    at run time, not a fault of the request."""


class WriteError(UnavailableError):
    """A file keypeg could not write: the cache folder, a saved tree (a failure at run time)."""


class InvalidRulesError(KeypegError, ValueError):
    """A rule set that makes no sense (0 pegs, 5 pegs from 3 colours without repeats, ...)."""


class UnknownVariantError(KeypegError, ValueError):
    """A variant name that is not in the registry."""


class InvalidCodeError(KeypegError, ValueError):
    """A code of the wrong length, with unknown colours or forbidden repeats."""


class InvalidFeedbackError(KeypegError, ValueError):
    """A score that cannot happen under the rules (e.g. 3 black 1 white on 4 pegs)."""


class InconsistentHistoryError(KeypegError, ValueError):
    """Scored guesses that no secret fits: some score must be wrong."""


class InvalidArgumentError(KeypegError, ValueError):
    """An argument of a public function outside its range: a limit below 0, an unknown objective or pool."""


class TooLargeError(KeypegError, ValueError):
    """Work too costly to do: a rule set whose code space is too large to enumerate, or a task over a
    limit of memory or time."""


class IllegalMoveError(RefusedError):
    """A move a game in progress does not allow now (a guess after the end, an undo of nothing, ...)."""


class GameOverError(IllegalMoveError):
    """A move after the game has ended."""


class InconsistentScoreError(InconsistentHistoryError):
    """A score that no secret fits together with the scores before it; :attr:`consistency` names the
    score most likely wrong."""

    def __init__(self, message: str, consistency: object) -> None:
        super().__init__(message)
        self.consistency = consistency


class UnknownStrategyError(KeypegError, ValueError):
    """A strategy name that is not in the registry (nor an alias of one)."""


class TooCostlyError(TooLargeError):
    """Work estimated to take more memory or time than keypeg allows itself unforced."""


class TooSlowError(TooCostlyError):
    """Work stopped because it took longer than its budget: the constraint solver behind
    :func:`keypeg.fitting` and :func:`keypeg.check` past its time, or a web request past the app's."""

    def __init__(self, message: str, conclusive: bool) -> None:
        super().__init__(message)
        self.conclusive = conclusive
        """Whether the work had (nearly) the whole budget and still ran out of it (it is never kept: with
        the kernels compiled, or on a quieter machine, it may fit another time)."""
