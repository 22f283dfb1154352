"""The exceptions keypeg raises.

Every error keypeg raises on purpose derives from :class:`KeypegError`; errors
caused by bad input also derive from :class:`ValueError`, and their messages
quote the offending input with ``!r``.
"""

from __future__ import annotations


class KeypegError(Exception):
    """Root of every error keypeg raises on purpose."""

    exit_code: int = 2
    """The command line's exit code: 2 for bad usage or input, 1 for a failure at run time."""


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


class TooLargeError(KeypegError, ValueError):
    """A rule set whose code space is too large to enumerate."""


class IllegalMoveError(KeypegError):
    """A move a game in progress does not allow now (a guess after the end, an undo of nothing, ...)."""


class GameOverError(IllegalMoveError):
    """A move after the game has ended."""


class InconsistentScoreError(InconsistentHistoryError):
    """A score that no secret fits together with the scores before it; :attr:`consistency` names the
    score most likely wrong."""

    def __init__(self, message: str, consistency: object) -> None:
        super().__init__(message)
        self.consistency = consistency
