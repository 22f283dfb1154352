"""A beatable codebreaker: it forgets some of the scores it was given."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from keypeg.strategies.base import Pool, Position, Strategy

__all__ = ["Careless"]


class Careless(Strategy):
    """Guesses a random code, not played before, that fits the scores it remembers. At each guess every
    score given so far, the last one too, is forgotten with probability ``forget`` (seeded), and it takes
    no more care when only one or two codes fit, so it wastes guesses as a person might.

    ``forget`` is 1/2, measured against level 2 (``simple``, the first code that fits) by
    ``benchmarks/levels.py`` (``benchmarks/results/levels.md``): on classic Mastermind it needs about 6.6
    guesses on average to simple's 5.7 and breaks nearly every code within the 12 rows; it loses about one
    game in ten of Bulls and Cows and one in four of black-peg Mastermind, and half of mini's (6 rows)."""

    name = "careless"
    about = "a random code fitting the scores it remembers; forgets each score with probability 1/2"
    measure = "a random code fitting the scores it remembers (runners-up: the fitting codes in order)"
    default_pool: ClassVar[Pool] = "consistent"
    forget: ClassVar[float] = 0.5
    plays_lone_code: ClassVar[bool] = False

    def _choose(self, position: Position) -> int:
        if position.candidates.size == 0 or (position.depth == 0 and self.first is not None):
            return super()._choose(position)  # the conventions' error and first guess
        return self._decide(position)  # careless even when one or two codes fit

    def _decide(self, position: Position) -> int:
        remembered = tuple(h for h in position.history if self.rng.random() >= self.forget)
        fits = position.space.consistent(remembered)
        played = {g for g, _ in position.history}
        fresh = fits[~np.isin(fits, list(played))] if played else fits
        return int(self.rng.choice(fresh if fresh.size else position.candidates))
