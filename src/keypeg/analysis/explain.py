"""Why a strategy chose its guess: the score-set table of its guess beside the runners-up."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from keypeg.code import Code, Feedback
from keypeg.kernels import ordinal_feedback
from keypeg.knowledge import Knowledge
from keypeg.strategies.base import Position, Strategy
from keypeg.strategies.lookahead import PartitionStrategy

__all__ = ["Explanation", "GuessFigures", "explain"]


@dataclass(frozen=True)
class GuessFigures:
    """How one guess splits the codes that fit: codes per feedback and the usual figures."""

    guess: Code
    parts: dict[Feedback, int]
    fits: bool
    score: float | None

    @property
    def largest(self) -> int:
        """The largest part."""
        return max(self.parts.values())

    @property
    def expected_size(self) -> float:
        """Expected size of the part the answer leaves."""
        total = sum(self.parts.values())
        return sum(n * n for n in self.parts.values()) / total

    @property
    def entropy(self) -> float:
        """Entropy of the split, in bits."""
        total = sum(self.parts.values())
        return -sum(n / total * math.log2(n / total) for n in self.parts.values())

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "guess": str(self.guess),
            "fits": self.fits,
            "parts": {str(f): n for f, n in sorted(self.parts.items())},
            "largest": self.largest,
            "expected_size": round(self.expected_size, 4),
            "entropy": round(self.entropy, 4),
            "number_of_parts": len(self.parts),
        }


@dataclass(frozen=True)
class Explanation:
    """The chosen guess first, then the best other guesses by the strategy's own ranking."""

    candidates: int
    guesses: list[GuessFigures]


def explain(strategy: Strategy, knowledge: Knowledge, *, top: int = 4) -> Explanation:
    """The strategy's choice after ``knowledge`` and up to ``top - 1`` runners-up, with their splits."""
    position = Position.from_knowledge(knowledge)
    chosen = strategy.choose(position)
    if isinstance(strategy, PartitionStrategy) and position.candidates.size > 2:
        pool = strategy.pool_of(position)
        scores = strategy.scores(position, pool)
        fits = np.isin(pool, position.candidates)
        order = np.lexsort((pool, ~fits, scores))
        ranked = [int(pool[i]) for i in order if pool[i] != chosen][: top - 1]
        score_of = {int(g): float(s) for g, s in zip(pool, scores, strict=True)}
    else:
        ranked = [int(c) for c in position.candidates if c != chosen][: top - 1]
        score_of = {}
    space = position.space
    counts = space.partition(np.array([chosen, *ranked], dtype=np.intp), position.candidates)
    candidates = set(position.candidates.tolist())
    figures = [
        GuessFigures(
            guess=space.code(g),
            parts={ordinal_feedback(int(o), space.pegs): int(row[o]) for o in np.nonzero(row)[0]},
            fits=g in candidates,
            score=score_of.get(g),
        )
        for g, row in zip([chosen, *ranked], counts, strict=True)
    ]
    return Explanation(int(position.candidates.size), figures)
