"""keypeg: a Mastermind engine, solver and game.

The core (this package's top level) uses only the standard library; the fast
kernels live in :mod:`keypeg.kernels` and are imported only when needed.

>>> from keypeg import find_variant, score
>>> rules = find_variant("classic").rules
>>> score(rules.parse("RRBB"), rules.parse("RRRB"))
Feedback(black=3, white=0)
"""

from __future__ import annotations

from keypeg.code import Code, Feedback
from keypeg.errors import (
    GameOverError,
    IllegalMoveError,
    InconsistentHistoryError,
    InconsistentScoreError,
    InvalidCodeError,
    InvalidFeedbackError,
    InvalidRulesError,
    KeypegError,
    TooLargeError,
    UnknownVariantError,
)
from keypeg.feedback import score
from keypeg.game import Game, Match, Outcome, Termination
from keypeg.rules import Rules
from keypeg.variants import VARIANTS, Variant, find_variant

__all__ = [
    "Code",
    "Feedback",
    "Game",
    "Match",
    "Outcome",
    "Termination",
    "Rules",
    "Variant",
    "VARIANTS",
    "find_variant",
    "score",
    "KeypegError",
    "InvalidRulesError",
    "InvalidCodeError",
    "InvalidFeedbackError",
    "InconsistentHistoryError",
    "InconsistentScoreError",
    "IllegalMoveError",
    "GameOverError",
    "TooLargeError",
    "UnknownVariantError",
]

__version__ = "0.1.0"
