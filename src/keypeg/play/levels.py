"""The computer's levels, from beatable to perfect, as in the seed program plus one."""

from __future__ import annotations

from dataclasses import dataclass

from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.strategies import Strategy, make_strategy

__all__ = ["Level", "LEVELS", "level_strategy", "OPTIMAL_ON_DEMAND"]

OPTIMAL_ON_DEMAND = 1296
"""Level 4 solves the optimum on the spot for code spaces up to this size (a few seconds at most)."""


@dataclass(frozen=True)
class Level:
    """A named level and the strategy behind it."""

    number: int
    name: str
    strategy: str
    about: str


LEVELS = {
    1: Level(1, "not so smart", "careless", "guesses codes that fit the scores it remembers; beatable"),
    2: Level(2, "pretty smart", "simple", "the first code that fits every score"),
    3: Level(3, "smarter than you", "worst-case", "Knuth's look-ahead: the smallest worst case"),
    4: Level(4, "perfect", "optimal", "the optimal strategy where it is solved, the best heuristic where not"),
}


def level_strategy(level: int, rules: Rules, *, seed: int | None = None) -> Strategy:
    """The strategy that plays ``level`` under ``rules``."""
    if level not in LEVELS:
        raise KeypegError(f"level must be 1 to 4, not {level!r}")
    name = LEVELS[level].strategy
    if name == "optimal":
        from keypeg.strategies.optimal import load_optimal

        if rules.size > OPTIMAL_ON_DEMAND and load_optimal(rules, "all") is None:
            name = "most-parts"
    strategy = make_strategy(name, seed=seed)
    strategy.reset(rules)
    return strategy
