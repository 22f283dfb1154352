"""The codebreaker interface, the position it decides from, and the conventions that change totals."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol

import numpy as np
import numpy.typing as npt

from keypeg.code import Code
from keypeg.errors import InvalidCodeError, KeypegError
from keypeg.kernels import CodeSpace, Index
from keypeg.knowledge import Knowledge
from keypeg.rules import Rules
from keypeg.symmetry import representatives

__all__ = ["Codebreaker", "Position", "Strategy", "Pool", "Tie", "SYMMETRY_MIN_CANDIDATES", "members"]

Pool = Literal["all", "consistent"]
Tie = Literal["first", "last", "random"]
SYMMETRY_MIN_CANDIDATES = 32
"""Below this many fitting codes, scoring every guess is cheaper than finding classes."""


class Codebreaker(Protocol):
    """Anything that can play the codebreaker."""

    def reset(self, rules: Rules, *, rng: np.random.Generator | None = None) -> None:
        """Start a new game under ``rules``."""

    def next_guess(self, knowledge: Knowledge) -> Code:
        """The guess to play after the scored guesses in ``knowledge``."""


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
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    about: ClassVar[str] = ""
    default_pool: ClassVar[Pool] = "all"

    def __init__(
        self,
        *,
        first: Code | None = None,
        pool: Pool | None = None,
        tie: Tie = "first",
        prefer_consistent: bool = True,
        seed: int | None = None,
        symmetry: bool = True,
    ) -> None:
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
        self.rng = np.random.default_rng(seed)

    def conventions(self) -> dict[str, Any]:
        """The choices that change the totals, named in every result."""
        return {
            "strategy": self.name,
            "first": str(self.first) if self.first is not None else None,
            "pool": self.pool,
            "tie": self.tie,
            "prefer_consistent": self.prefer_consistent,
            "seed": self.seed,
        }

    # -- the Codebreaker protocol -------------------------------------------------------

    def reset(self, rules: Rules, *, rng: np.random.Generator | None = None) -> None:
        """Start again: a fresh random generator (the given one, or one from the seed)."""
        self.rng = rng if rng is not None else np.random.default_rng(self.seed)
        if self.first is not None:
            rules.code(self.first.colors)

    def next_guess(self, knowledge: Knowledge) -> Code:
        """The guess to play after ``knowledge``."""
        return knowledge.space.code(self.choose(Position.from_knowledge(knowledge)))

    # -- deciding -------------------------------------------------------------------------

    def choose(self, position: Position) -> int:
        """Index of the guess to play from ``position`` (which must have fitting codes)."""
        if position.candidates.size == 0:
            raise KeypegError("no code fits the scores given: at least one of them is wrong")
        if position.depth == 0 and self.first is not None:
            try:
                return position.space.index(self.first)
            except InvalidCodeError as error:
                raise InvalidCodeError(f"first guess: {error}") from None
        if position.candidates.size <= 2:
            return self._break_tie(position, position.candidates)
        return self.decide(position)

    @abstractmethod
    def decide(self, position: Position) -> int:
        """Choose among the guesses when more than two codes fit."""

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
