"""Codebreakers, found by name in a registry; each answers :meth:`Strategy.rank` with a :class:`Choice`.

>>> find_strategy("knuth").name
'worst-case'
>>> from keypeg import Rules
>>> from keypeg.knowledge import Knowledge
>>> choice = make_strategy("knuth").rank(Knowledge(Rules(4, 6)), top=2)
>>> str(choice.guess), choice.fitting, choice.measure
('AABB', 1296, 'largest part')
>>> [(str(r.guess), r.largest, r.number_of_parts, r.fits) for r in choice.ranked]
[('AABB', 256, 13, True), ('AABC', 276, 14, True)]
"""

from __future__ import annotations

from keypeg.errors import KeypegError
from keypeg.strategies.base import Pool, Position, Strategy, Tie
from keypeg.strategies.careless import Careless
from keypeg.strategies.choice import Choice, Figures, Ranked, partition_figures, split_figures
from keypeg.strategies.genetic import Genetic
from keypeg.strategies.lookahead import Entropy, ExpectedSize, MostParts, TwoStepMostParts, WorstCase
from keypeg.strategies.optimal import Optimal
from keypeg.strategies.simple import RandomConsistent, Simple

__all__ = [
    "Choice",
    "Figures",
    "Ranked",
    "split_figures",
    "partition_figures",
    "Pool",
    "Position",
    "Strategy",
    "Tie",
    "STRATEGIES",
    "UnknownStrategyError",
    "find_strategy",
    "make_strategy",
]

STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls
    for cls in (
        Simple,
        RandomConsistent,
        Careless,
        WorstCase,
        ExpectedSize,
        Entropy,
        MostParts,
        TwoStepMostParts,
        Optimal,
        Genetic,
    )
}


class UnknownStrategyError(KeypegError, ValueError):
    """A strategy name that is not in the registry."""


def find_strategy(name: str) -> type[Strategy]:
    """The strategy class called ``name`` or one of its aliases (any case)."""
    key = name.strip().lower().replace("_", "-")
    for cls in STRATEGIES.values():
        if key == cls.name or key in cls.aliases:
            return cls
    raise UnknownStrategyError(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}")


def make_strategy(name: str, **options: object) -> Strategy:
    """A configured strategy by name (options as for :class:`Strategy`)."""
    return find_strategy(name)(**options)  # type: ignore[arg-type]
