"""One-step (and two-step) look-ahead: rank every guess by how it splits the fitting codes."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import numpy.typing as npt

from keypeg.kernels import TreeRule
from keypeg.rules import Rules
from keypeg.strategies.base import Position, Rated, Strategy, members

__all__ = ["PartitionStrategy", "WorstCase", "ExpectedSize", "Entropy", "MostParts", "TwoStepMostParts"]

PERFECT_SCAN_MAX = 8
"""Up to this many fitting codes, look for a guess that splits them all apart before scoring every guess."""
MMSTRAT_ENTROPY_BONUS = 2.0
"""What mmstrat's entropy takes off a fitting guess's sum of n log n (its 2 ln 2, in bits)."""
ENTROPY_TOLERANCE = 1e-9
"""Entropy costs within this relative distance of the best count as ties."""


class PartitionStrategy(Strategy):
    """Rate each guess by a cost of its partition table; the least cost wins, ties by the conventions."""

    cost: ClassVar[str]
    """The partition cost minimised (see :data:`keypeg.kernels.COSTS`)."""
    tolerance: ClassVar[float] = 0.0

    def _mmstrat_ties(self) -> None:
        """mmstrat prefers no fitting guess on a tie (its costs of these splits favour one already)."""
        if self.convention == "mmstrat":
            self.prefer_consistent = False

    def tree_rule(self, rules: Rules) -> TreeRule | None:
        return self._kernel_rule(rules, self.cost, self.tolerance)

    def _costs(self, position: Position, guesses: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        """Each guess's cost, smaller is better."""
        return position.space.partition_costs(guesses, position.candidates, self.cost)

    def _cost(self, position: Position, guess: int) -> float | None:
        return float(self._costs(position, np.array([guess], dtype=np.intp))[0])

    def _runners_up(self, position: Position, chosen: int, n: int) -> Rated:
        return self._cheapest_runners_up(position, chosen, n, self._costs)

    def _perfect(self, position: Position) -> float:
        """The cost of a guess that splits the fitting codes into single codes."""
        n = position.candidates.size
        return {"largest-part": 1.0, "sum-of-squares": float(n), "fewest-parts": -float(n), "sum-n-log-n": 0.0}[
            self.cost
        ]

    def _decide(self, position: Position) -> int:
        fitting = position.candidates
        few = fitting.size < position.space.num_feedbacks  # only then can one guess split them all apart
        if self.pool == "consistent" or (few and self.prefer_consistent):
            # A fitting guess that splits the fitting codes into single codes cannot be
            # beaten and wins ties, so look among the fitting codes first.
            costs = self._costs(position, fitting)
            if self.prefer_consistent:
                perfect = fitting[costs <= self._perfect(position)]
                if perfect.size:
                    return self._break_tie(position, perfect)
            if self.pool == "consistent":
                return self._pick(position, fitting, costs)
        guesses = self.pool_of(position)
        if self.tie != "random" and self.convention == "kooi" and fitting.size <= PERFECT_SCAN_MAX:
            # No fitting guess splits perfectly, so the first guess in order that does wins.
            found = position.space.first_perfect_split(guesses, fitting, backwards=self.tie == "last")
            if found is not None:
                return found
        return self._pick(position, guesses, self._costs(position, guesses))

    def _pick(self, position: Position, guesses: npt.NDArray[np.intp], costs: npt.NDArray[np.float64]) -> int:
        best = costs.min()
        slack = self.tolerance * max(1.0, abs(float(best)))
        return self._break_tie(position, guesses[costs <= best + slack])


class WorstCase(PartitionStrategy):
    """Knuth's minimax: the guess whose largest part is smallest."""

    name = "worst-case"
    about = "smallest largest part (Knuth 1977)"
    cost = "largest-part"
    measure = "largest part"

    def __init__(self, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self._mmstrat_ties()

    def tree_rule(self, rules: Rules) -> TreeRule | None:
        return self._kernel_rule(rules, "all-parts") if self.convention == "mmstrat" else super().tree_rule(rules)

    def _costs(self, position: Position, guesses: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        if self.convention == "kooi":
            return super()._costs(position, guesses)
        # mmstrat's minmax: every part size compared, largest first, the part of a guess that wins left out
        counts = position.space.partition(guesses, position.candidates)
        counts[:, position.space.win] = 0
        profiles = -np.sort(-counts, axis=1)
        _, rank = np.unique(profiles, axis=0, return_inverse=True)
        return rank.reshape(-1).astype(np.float64)

    def _cost(self, position: Position, guess: int) -> float | None:
        return super()._cost(position, guess) if self.convention == "kooi" else None


class ExpectedSize(PartitionStrategy):
    """Irving's expected size: the smallest sum of squared part sizes."""

    name = "expected-size"
    about = "smallest expected part size (Irving 1979)"
    cost = "sum-of-squares"
    measure = "sum of squared part sizes"


class Entropy(PartitionStrategy):
    """Neuwirth's entropy: the most informative split (smallest sum of n log n)."""

    name = "entropy"
    about = "largest entropy of the split (Neuwirth 1982)"
    cost = "sum-n-log-n"
    measure = "sum of n log2 n over the parts (less is more entropy)"
    tolerance = ENTROPY_TOLERANCE

    def __init__(self, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self._mmstrat_ties()

    def _costs(self, position: Position, guesses: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        costs = super()._costs(position, guesses)
        if self.convention == "mmstrat":  # a guess that may win counts 2 bits better
            costs = costs - MMSTRAT_ENTROPY_BONUS * members(guesses, position.candidates)
        return costs

    def tree_rule(self, rules: Rules) -> TreeRule | None:
        rule = super().tree_rule(rules)
        return rule if rule is None or self.convention == "kooi" else rule._replace(bonus=MMSTRAT_ENTROPY_BONUS)


class MostParts(PartitionStrategy):
    """Kooi's most parts: the guess with the most possible answers."""

    name = "most-parts"
    about = "most possible answers (Kooi 2005)"
    cost = "fewest-parts"
    measure = "minus the number of parts"


class TwoStepMostParts(PartitionStrategy):
    """Most parts looking two steps ahead (Kooi's Table 12): the guess whose parts the best
    second guesses split into the most parts in all."""

    name = "two-step"
    about = "most parts after two guesses (Kooi 2005, Table 12)"
    cost = "fewest-parts"
    measure = "minus the parts after the best second guesses"

    def tree_rule(self, rules: Rules) -> TreeRule | None:
        return None

    def _costs(self, position: Position, guesses: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        space = position.space
        second = space.all if self.pool == "all" else position.candidates
        totals = space.two_step_parts(guesses, position.candidates, second)
        return -totals.astype(np.float64)
