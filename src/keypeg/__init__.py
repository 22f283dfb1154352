"""keypeg: a Mastermind engine, solver and game, as a Python library.

Everything public is a name of this package, listed in ``keypeg.__all__``; the rest (every submodule
and every name not listed) is internal and may change at any release. ``import keypeg`` loads the
standard library only: the solvers, and the numba kernels under them, load on first use.

**Rules and codes.** :class:`Rules` (pegs, colours, repeats, blanks, rows, feedback), the named presets
:data:`VARIANTS` (:class:`Variant`, found by :func:`find_variant`), a :class:`Code`, its
:class:`Feedback`, and :func:`score`, the codemaker's answer to a guess.

**A game's record.** :class:`History`, the scored guesses so far (an immutable value); :class:`Game`,
one game with a secret; :class:`Match`, games played in turn; :class:`Outcome` and
:class:`Termination`, how a game ended.

**Solving a position.** :func:`fitting`, the codes that fit a history; :func:`check`, whether any does
(a :class:`Consistency`, naming the likely wrong score as a :class:`Suspect`); :func:`best_guess`, a
strategy's next guess as a :class:`Choice` of :class:`Ranked` guesses with their :class:`Figures`;
:func:`strategy_names`, the strategies' names (Knuth's ``worst-case``, Irving's ``expected-size``,
``entropy``, Kooi's ``most-parts``, ``optimal``, ``genetic``, ...).

**Whole-game analysis.** :func:`analyze`, a strategy played against every secret, and :func:`optimal`,
the exact optimum: each a :class:`StrategyTree` (the guess after every history,
:meth:`StrategyTree.next_guess`) with its figures in a :class:`TreeStats`; an optimal search reports
:class:`SearchProgress`.

**Playing.** :func:`break_code`, a :class:`BreakSession` where you guess the computer's code;
:func:`make_code`, a :class:`SolveSession` where the computer guesses yours.

**Errors.** Every error keypeg raises on purpose is a :class:`KeypegError`; errors of bad input are
also :class:`ValueError`. By kind: :class:`NotFoundError`, :class:`ForbiddenError`,
:class:`ConflictError`, :class:`RefusedError` (:class:`IllegalMoveError`, :class:`GameOverError`),
:class:`UnavailableError` (:class:`WriteError`), :class:`TooLargeError` (:class:`TooCostlyError` for
work estimated above this machine's budget, which ``force=True`` runs anyway; :class:`TooSlowError`); bad input:
:class:`InvalidRulesError`, :class:`UnknownVariantError`, :class:`InvalidCodeError`,
:class:`InvalidFeedbackError`, :class:`InconsistentHistoryError` (:class:`InconsistentScoreError`),
:class:`UnknownStrategyError`, :class:`InvalidArgumentError`.

>>> import keypeg
>>> rules = keypeg.find_variant("classic").rules
>>> keypeg.score(rules.parse("RRBB"), rules.parse("RRRB"))
Feedback(black=3, white=0)
>>> history = keypeg.History(keypeg.Rules(4, 6)).add("AABB", "1,0").add("ACDE", "0,2")
>>> len(keypeg.fitting(history)), str(keypeg.best_guess(history, strategy="knuth").guess)
(51, 'FDEB')
>>> tree = keypeg.analyze(keypeg.Rules(3, 3), "knuth")
>>> tree.stats.total, tree.stats.max, str(tree.next_guess(keypeg.History(tree.rules).add("AAB", "0,1")))
(74, 4, 'BCC')
"""

import importlib as _importlib
import typing as _typing
from typing import TYPE_CHECKING as _TYPE_CHECKING

from keypeg.code import Code, Feedback
from keypeg.errors import (
    ConflictError,
    ForbiddenError,
    GameOverError,
    IllegalMoveError,
    InconsistentHistoryError,
    InconsistentScoreError,
    InvalidArgumentError,
    InvalidCodeError,
    InvalidFeedbackError,
    InvalidRulesError,
    KeypegError,
    NotFoundError,
    RefusedError,
    TooCostlyError,
    TooLargeError,
    TooSlowError,
    UnavailableError,
    UnknownStrategyError,
    UnknownVariantError,
    WriteError,
)
from keypeg.feedback import score
from keypeg.game import Game, Match, Outcome, Termination
from keypeg.history import History
from keypeg.rules import Rules
from keypeg.variants import VARIANTS, Variant, find_variant

if _TYPE_CHECKING:
    from keypeg.api import (
        BreakSession,
        Choice,
        Consistency,
        Figures,
        Ranked,
        SearchProgress,
        SolveSession,
        StrategyTree,
        Suspect,
        TreeStats,
        analyze,
        best_guess,
        break_code,
        check,
        fitting,
        make_code,
        optimal,
        strategy_names,
    )

_LAZY = (
    "fitting",
    "check",
    "best_guess",
    "strategy_names",
    "analyze",
    "optimal",
    "break_code",
    "make_code",
    "Consistency",
    "Suspect",
    "Choice",
    "Ranked",
    "Figures",
    "StrategyTree",
    "TreeStats",
    "SearchProgress",
    "BreakSession",
    "SolveSession",
)
"""The names loaded from :mod:`keypeg.api` on first use (PEP 562), so that ``import keypeg`` stays light."""

__all__ = [
    # rules and codes
    "Rules",
    "Variant",
    "VARIANTS",
    "find_variant",
    "Code",
    "Feedback",
    "score",
    # a game's record
    "History",
    "Game",
    "Match",
    "Outcome",
    "Termination",
    # solving a position
    "fitting",
    "check",
    "best_guess",
    "strategy_names",
    "Consistency",
    "Suspect",
    "Choice",
    "Ranked",
    "Figures",
    # whole-game analysis
    "analyze",
    "optimal",
    "StrategyTree",
    "TreeStats",
    "SearchProgress",
    # playing
    "break_code",
    "make_code",
    "BreakSession",
    "SolveSession",
    # errors
    "KeypegError",
    "NotFoundError",
    "ForbiddenError",
    "ConflictError",
    "RefusedError",
    "UnavailableError",
    "TooLargeError",
    "TooCostlyError",
    "TooSlowError",
    "InvalidRulesError",
    "UnknownVariantError",
    "InvalidCodeError",
    "InvalidFeedbackError",
    "InconsistentHistoryError",
    "InconsistentScoreError",
    "IllegalMoveError",
    "GameOverError",
    "UnknownStrategyError",
    "InvalidArgumentError",
    "WriteError",
]

__version__ = "0.1.0"


if not _typing.TYPE_CHECKING:  # hidden from type checkers (who read this name only), so keypeg.fittng is an error

    def __getattr__(name: str) -> object:
        """The solver's names, loaded from :mod:`keypeg.api` when first asked for."""
        if name in _LAZY:
            value = getattr(_importlib.import_module("keypeg.api"), name)
            globals()[name] = value
            return value
        raise AttributeError(f"module 'keypeg' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names (``__all__``, the lazily loaded ones included) and the module's dunders: what
    ``dir(keypeg)`` and a shell's completion offer, never a submodule or a private name."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})
