"""A proven lower bound on the optimal total (the fewest guesses in all over every secret).

The bound is built from two facts, each proven in ``docs/super-mastermind.md``:

1. **The counting bound.** A guess has at most ``b + 1`` answers (``b = len(rules.feedbacks()) - 1``
   besides the win), so a strategy for ``n`` codes has at most ``b**(d-1)`` nodes at depth ``d`` and
   each code is guessed at a node of its own: ``T(n) >= LB(n)``, ``LB`` filling the levels in order
   (:func:`keypeg.strategies.optimal.lower_bounds`).
2. **One guess deeper.** Any strategy for a set ``S`` starts with some guess ``g``; every code of ``S``
   makes that guess, and the codes of each non-winning part ``P`` of ``g`` are then solved by a
   strategy for ``P``, so ``T(S) = |S| + sum over parts of T(P) >= min over g of (|S| + sum of B(P))``
   for any valid bound ``B`` of the parts. Guesses that a symmetry of the position maps onto each other
   split ``S`` alike, so one guess per symmetry class is enough (:func:`keypeg.symmetry.representatives`).

:func:`lower_bound` applies fact 2 ``levels`` times over the counting bound, a branch and bound: a
guess's one-level bound (its parts' counting bounds) is a bound of its deeper bound too, so guesses are
taken in increasing order of it and the search stops once it reaches the best deeper bound found.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from keypeg.kernels import CodeSpace, Index
from keypeg.rules import Rules
from keypeg.strategies.optimal import lower_bounds
from keypeg.symmetry import representatives

__all__ = ["Bound", "OpeningBound", "lower_bound", "counting_bound"]

History = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class OpeningBound:
    """The bound with a given first guess: the guesses in all any strategy opening with it needs at least."""

    guess: str
    bound: int
    counting: int
    """The one-level bound (its parts' counting bounds), the cheaper one."""
    exact: bool
    """Whether ``bound`` went ``levels`` deep (else it is the one-level bound, already no better than the best)."""


@dataclass(frozen=True)
class Bound:
    """A proven lower bound on the optimal total of ``rules`` and how it was reached."""

    rules: Rules
    levels: int
    total: int
    counting: int
    """The counting bound of the whole code space, the weakest."""
    openings: tuple[OpeningBound, ...] = field(default=())
    sets: int = 0
    """Sets whose bound was worked out one level deeper."""
    seconds: float = 0.0
    """CPU seconds."""

    @property
    def average(self) -> float:
        """The bound per secret."""
        return self.total / self.rules.size

    def as_dict(self) -> dict[str, object]:
        """The bound as JSON-ready data."""
        return {
            "game": self.rules.slug,
            "secrets": self.rules.size,
            "levels": self.levels,
            "total": self.total,
            "average": round(self.average, 6),
            "counting": self.counting,
            "openings": [
                {"guess": o.guess, "bound": o.bound, "one_level": o.counting, "deep": o.exact} for o in self.openings
            ],
            "sets": self.sets,
            "cpu_seconds": round(self.seconds, 3),
        }


def counting_bound(rules: Rules, n: int) -> int:
    """The counting bound (fact 1) of a set of ``n`` codes of ``rules``, any number of rounds."""
    branching = len(rules.feedbacks()) - 1
    return int(lower_bounds(n, branching, None)[n])


class _Bounder:
    def __init__(self, rules: Rules, progress: Callable[[int], None] | None) -> None:
        self.rules = rules
        self.space = CodeSpace.of(rules)
        self.lb = lower_bounds(self.space.size, len(rules.feedbacks()) - 1, None)
        self.progress = progress
        self.sets = 0

    def one_level(self, guesses: Index, part: Index) -> npt.NDArray[np.int64]:
        """For each guess, ``|part|`` plus the counting bounds of the non-winning parts it makes."""
        counts = self.space.partition(guesses, part).astype(np.int64)
        counts[:, self.space.win] = 0
        result: npt.NDArray[np.int64] = part.size + self.lb[counts].sum(axis=1)
        return result

    def bound(self, history: History, part: Index, levels: int) -> int:
        """A lower bound of the optimal total of ``part`` after ``history``, fact 2 applied ``levels`` times."""
        n = int(part.size)
        floor = int(self.lb[n])
        if levels == 0 or n <= 2:
            return floor if n > 2 else (1 if n == 1 else 3 if n == 2 else 0)
        self.sets += 1
        guesses = representatives(self.space, self.space.all, history, part)
        cheap = self.one_level(guesses, part)
        if levels == 1:
            return max(floor, int(cheap.min()))
        best = None
        for i in np.argsort(cheap, kind="stable").tolist():
            if best is not None and cheap[i] >= best:
                break
            deeper = self.deep(history, part, int(guesses[i]), levels - 1, best)
            best = deeper if best is None else min(best, deeper)
        assert best is not None
        return max(floor, best)

    def deep(self, history: History, part: Index, guess: int, levels: int, enough: int | None) -> int:
        """``|part|`` plus the ``levels``-deep bounds of the parts ``guess`` leaves (summing stops early,
        still a valid bound, once it reaches ``enough``, a bound already found no worse)."""
        total = int(part.size)
        for ordinal, sub in self.space.split(guess, part, keep_win=False):
            total += self.bound((*history, (guess, ordinal)), sub, levels)
            if enough is not None and total >= enough:
                break
        return total


def lower_bound(rules: Rules, *, levels: int = 2, progress: Callable[[int], None] | None = None) -> Bound:
    """A proven lower bound on the fewest guesses in all any strategy needs over every code of ``rules``:
    fact 2 of the module's documentation applied ``levels`` times over the counting bound, each first
    guess (one per symmetry class: :func:`keypeg.analysis.openings.distinct_openings`, counted by
    :func:`~keypeg.analysis.openings.opening_count`) bounded in turn. ``progress`` is called with 1 after each
    first guess."""
    started = time.process_time()
    bounder = _Bounder(rules, progress)
    space = bounder.space
    everything = space.all
    counting = int(bounder.lb[space.size])
    if levels <= 0:
        return Bound(rules, 0, counting, counting, (), 0, time.process_time() - started)
    firsts = representatives(space, space.all, (), everything)
    cheap = bounder.one_level(firsts, everything)
    openings: list[OpeningBound] = []
    best: int | None = None
    for i in np.argsort(cheap, kind="stable").tolist():
        guess = int(firsts[i])
        one = int(cheap[i])
        if levels == 1 or (best is not None and one >= best):
            value, deep = one, levels == 1
        else:
            value, deep = bounder.deep((), everything, guess, levels - 1, None), True
        best = value if best is None else min(best, value)
        openings.append(OpeningBound(str(space.code(guess)), value, one, deep))
        if progress is not None:
            progress(1)
    assert best is not None
    openings.sort(key=lambda o: (o.bound, o.guess))
    return Bound(
        rules, levels, max(counting, best), counting, tuple(openings), bounder.sets, time.process_time() - started
    )
