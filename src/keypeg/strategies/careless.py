"""A beatable codebreaker: it forgets some of the scores it was given."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from keypeg.strategies.base import Pool, Position, Strategy

__all__ = ["Careless"]


class Careless(Strategy):
    """Guesses a random code that fits the scores it remembers; each past score is forgotten
    with probability ``forget`` (seeded), so it sometimes wastes guesses, as a person might."""

    name = "careless"
    about = "a random code fitting the scores it remembers; forgets each score with probability 1/3"
    measure = "a random code fitting the scores it remembers (runners-up: the fitting codes in order)"
    default_pool: ClassVar[Pool] = "consistent"
    forget: ClassVar[float] = 1 / 3

    def _decide(self, position: Position) -> int:
        remembered = tuple(h for h in position.history[:-1] if self.rng.random() >= self.forget)
        if position.history:
            remembered = (*remembered, position.history[-1])  # the last score is always in mind
        fits = position.space.consistent(remembered)
        played = {g for g, _ in position.history}
        fresh = fits[~np.isin(fits, list(played))] if played else fits
        return int(self.rng.choice(fresh if fresh.size else position.candidates))
