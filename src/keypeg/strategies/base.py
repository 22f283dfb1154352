"""The codebreaker interface, the position it decides from, and the conventions that change totals.

Every strategy answers one question, :meth:`Strategy.rank`: from a position, the
:class:`~keypeg.strategies.choice.Choice` of its guess, with the runners-up and the
figures behind them when asked for.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt

from keypeg.code import Code
from keypeg.errors import InvalidCodeError, KeypegError
from keypeg.kernels import CodeSpace, Index, TreeRule
from keypeg.knowledge import Knowledge
from keypeg.rules import Rules
from keypeg.strategies.choice import Choice, Ranked, rank_guesses
from keypeg.symmetry import permutations_of, representatives

__all__ = ["Position", "Strategy", "Pool", "Tie", "Convention", "SYMMETRY_MIN_CANDIDATES", "members"]

Pool = Literal["all", "consistent"]
Tie = Literal["first", "last", "random"]
Convention = Literal["kooi", "mmstrat"]
"""How the one-step heuristics rate a split (``--scoring``): as in Kooi (2005), or as fancidev's mmstrat does (its
``minmax`` compares every part size, largest first; its ``entropy`` counts a fitting guess 2 bits
better and prefers no fitting guess on a tie)."""
SYMMETRY_MIN_CANDIDATES = 32
"""Below this many fitting codes, scoring every guess is cheaper than finding classes."""
KERNEL_SYMMETRY_MIN_CANDIDATES = 96
"""The same for the tree kernel, which scores guesses faster (measured on 5x8 most parts: 32 costs
about a third more than 96, 1000 a tenth more)."""

Rated = list[tuple[int, float | None]]
"""Guesses as (code index, cost), in the strategy's order."""
Ranking = Callable[[int], Rated]
"""Given ``n``, the chosen guess then up to ``n`` runners-up."""


@dataclass(frozen=True, eq=False)
class Position:
    """A decision point: the scored guesses (as indices and ordinals) and the fitting codes."""

    space: CodeSpace
    history: tuple[tuple[int, int], ...]
    candidates: Index

    @property
    def depth(self) -> int:
        """Guesses played so far."""
        return len(self.history)

    @classmethod
    def from_knowledge(cls, knowledge: Knowledge) -> Position:
        """The position a :class:`Knowledge` describes."""
        return cls(knowledge.space, knowledge.indexed, knowledge.candidates)


class Strategy(ABC):
    """A deterministic-by-seed codebreaker that decides from a :class:`Position`.

    Args:
        first: the first guess; by default the strategy's own choice on the empty board.
        pool: guess from ``all`` codes or only ``consistent`` ones (those that still fit).
        tie: among equally good guesses (after preferring fitting ones), the ``first``
            or ``last`` in code order, or a ``random`` one (seeded).
        prefer_consistent: break ties toward guesses that could be the secret.
        seed: seed of the random generator, for ``tie="random"`` and random strategies.
        symmetry: score one guess per symmetry class (never changes a result, only speed).
        scoring: the convention the one-step heuristics rate guesses by: ``kooi``, or ``mmstrat`` for the
            costs of fancidev's solver (see :data:`Convention`); kept as :attr:`convention`.
    """

    name: ClassVar[str]
    about: ClassVar[str] = ""
    measure: ClassVar[str] = "code order"
    """What :attr:`Ranked.cost` measures (smaller is better), or how the guesses are ordered."""
    default_pool: ClassVar[Pool] = "all"
    plays_lone_code: ClassVar[bool] = True
    """Whether it guesses the one code left when only one fits (trees then count that guess without asking)."""

    def __init__(
        self,
        *,
        first: Code | None = None,
        pool: Pool | None = None,
        tie: Tie = "first",
        prefer_consistent: bool = True,
        seed: int | None = None,
        symmetry: bool = True,
        scoring: Convention = "kooi",
    ) -> None:
        if scoring not in ("kooi", "mmstrat"):
            raise KeypegError(f"scoring must be kooi or mmstrat, not {scoring!r}")
        if tie not in ("first", "last", "random"):
            raise KeypegError(f"tie-break must be first, last or random, not {tie!r}")
        pool = pool or self.default_pool
        if pool not in ("all", "consistent"):
            raise KeypegError(f"guess pool must be all or consistent, not {pool!r}")
        self.first = first
        self.pool: Pool = pool
        self.tie: Tie = tie
        self.prefer_consistent = prefer_consistent
        self.seed = seed
        self.symmetry = symmetry and tie != "random"
        self.convention: Convention = scoring
        self.rng = np.random.default_rng(seed)

    def conventions(self) -> dict[str, Any]:
        """The choices that change the totals, named in every result."""
        named = {
            "strategy": self.name,
            "first": str(self.first) if self.first is not None else None,
            "pool": self.pool,
            "tie": self.tie,
            "prefer_consistent": self.prefer_consistent,
            "seed": self.seed,
        }
        return named if self.convention == "kooi" else {**named, "scoring": self.convention}

    # -- deciding -------------------------------------------------------------------------

    def restart(self, *, rng: np.random.Generator | None = None) -> None:
        """Start again: a fresh random generator (the given one, or one from the seed), so a second run
        (a second tree, a task on a worker) draws as the first did. A strategy is ready to rank as it is
        made, for any rules: nothing needs calling first."""
        self.rng = rng if rng is not None else np.random.default_rng(self.seed)

    def rank(self, position: Position | Knowledge, *, top: int = 1) -> Choice:
        """The guess to play from ``position`` (which must have fitting codes), and up to ``top - 1``
        runners-up in the strategy's order; the figures are computed only when read, or at once
        when ``top > 1``.

        A :class:`Knowledge` stands for its position; the genetic codebreaker, given one, decides
        without enumerating the codes (any size of game; figures over its eligible set), as
        :meth:`next_guess` does.
        """
        if top < 1:
            raise KeypegError(f"top must be 1 or more, not {top!r}")
        at = Position.from_knowledge(position) if isinstance(position, Knowledge) else position
        chosen = self._choose(at)

        def ranking(n: int) -> Rated:
            return [(chosen, self._cost(at, chosen)), *(self._runners_up(at, chosen, n) if n else [])]

        return self._choice(at, chosen, top, ranking)

    def next_guess(self, knowledge: Knowledge) -> Code:
        """The guess to play after ``knowledge`` (:meth:`rank`'s guess)."""
        return self.rank(knowledge).guess

    def _choose(self, position: Position) -> int:
        """Index of the guess to play: the conventions first (first guess, two codes left), then :meth:`_decide`."""
        if position.candidates.size == 0:
            raise KeypegError("no code fits the scores given: at least one of them is wrong")
        if position.depth == 0 and self.first is not None:
            try:
                return position.space.index(self.first)
            except InvalidCodeError as error:
                raise InvalidCodeError(f"first guess: {error}") from None
        if position.candidates.size <= 2:
            return self._break_tie(position, position.candidates)
        return self._decide(position)

    def tree_rule(self, rules: Rules) -> TreeRule | None:
        """How the tree kernel makes this strategy's decisions (past the first guess), if it can."""
        return None

    def _kernel_rule(self, rules: Rules, cost: str, tolerance: float = 0.0) -> TreeRule | None:
        """The kernel's rule for ``cost`` under these conventions (none for random ties)."""
        if self.tie == "random":
            return None
        return TreeRule(
            cost,
            self.pool == "all",
            self.tie == "last",
            self.prefer_consistent,
            KERNEL_SYMMETRY_MIN_CANDIDATES if self.symmetry else 0,
            permutations_of(rules),
            tolerance,
        )

    @abstractmethod
    def _decide(self, position: Position) -> int:
        """Choose among the guesses when more than two codes fit."""

    def _cost(self, position: Position, guess: int) -> float | None:
        """The strategy's own cost of ``guess`` (smaller is better), if it has one."""
        return None

    def _runners_up(self, position: Position, chosen: int, n: int) -> Rated:
        """Up to ``n`` other guesses in the strategy's order; by default the other fitting codes in order."""
        others: Rated = [(int(g), None) for g in position.candidates[: n + 1] if g != chosen]
        return others[:n]

    def _choice(self, position: Position, chosen: int, top: int, ranking: Ranking) -> Choice:
        """The :class:`Choice` of ``chosen``, its figures over the fitting codes computed when read
        (``ranking`` is asked for runners-up only when ``top > 1``)."""

        def ranked() -> tuple[Ranked, ...]:
            entries = ranking(top - 1)[:top]
            guesses, costs = [g for g, _ in entries], [c for _, c in entries]
            return rank_guesses(position.space, position.candidates, guesses, costs)

        space, fitting = position.space, position.candidates.size
        choice = Choice(space.code(chosen), chosen, fitting, self.name, self.measure, "fitting codes", ranked)
        if top > 1:
            _ = choice.ranked  # what the caller asked for is worked out now (under its spinner, its Ctrl-C)
        return choice

    def _cheapest_runners_up(
        self,
        position: Position,
        chosen: int,
        n: int,
        cost: Callable[[Position, Index], npt.NDArray[np.float64]],
    ) -> Rated:
        """Up to ``n`` guesses of the pool other than ``chosen``, least ``cost`` first, then
        fitting guesses first, then code order."""
        if n <= 0:
            return []
        if position.candidates.size <= 2:
            return Strategy._runners_up(self, position, chosen, n)
        pool = self.pool_of(position)
        costs = cost(position, pool)
        fits = members(pool, position.candidates)
        order = np.lexsort((pool, ~fits, costs))
        ranked: Rated = [(int(pool[i]), float(costs[i])) for i in order if pool[i] != chosen]
        return ranked[:n]

    def pool_of(self, position: Position) -> Index:
        """The guesses worth scoring: the pool, one per symmetry class where that pays."""
        pool = position.space.all if self.pool == "all" else position.candidates
        if self.symmetry and position.candidates.size >= SYMMETRY_MIN_CANDIDATES:
            return representatives(
                position.space, pool, position.history, position.candidates, largest=self.tie == "last"
            )
        return pool

    def _break_tie(self, position: Position, tied: Index) -> int:
        """Pick one of equally good guesses by the conventions."""
        if self.prefer_consistent and tied is not position.candidates:
            fitting = tied[members(tied, position.candidates)]
            if fitting.size:
                tied = fitting
        if self.tie == "first":
            return int(tied.min())
        if self.tie == "last":
            return int(tied.max())
        return int(self.rng.choice(tied))


def members(codes: Index, sorted_codes: Index) -> npt.NDArray[np.bool_]:
    """Which of ``codes`` are in ``sorted_codes`` (an increasing index array)."""
    where = np.minimum(np.searchsorted(sorted_codes, codes), sorted_codes.size - 1)
    found: npt.NDArray[np.bool_] = sorted_codes[where] == codes
    return found
