"""Codebreakers, found by name in a registry; each answers :meth:`Strategy.rank` with a :class:`Choice`.

The registry is light: a strategy's module (and the kernels) load only when the strategy
is asked for, so the command line can list the names without loading numba.

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

import importlib
from typing import TYPE_CHECKING, Any

from keypeg.errors import UnknownStrategyError
from keypeg.limits import LOOKAHEAD_LIMIT
from keypeg.text import plural

if TYPE_CHECKING:
    from keypeg.rules import Rules
    from keypeg.strategies.base import Pool, Position, Strategy, Tie
    from keypeg.strategies.choice import Choice, Figures, Ranked, partition_figures, split_figures

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
    "REGISTRY",
    "NAMES",
    "STRATEGIES",
    "UnknownStrategyError",
    "find_strategy",
    "make_strategy",
    "canonical_name",
    "playable",
    "scores_every_code",
]

REGISTRY: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "simple": ("simple", "Simple", ("shapiro",)),
    "random": ("simple", "RandomConsistent", ("random-consistent",)),
    "careless": ("careless", "Careless", ("beatable",)),
    "worst-case": ("lookahead", "WorstCase", ("knuth", "minimax")),
    "expected-size": ("lookahead", "ExpectedSize", ("irving",)),
    "entropy": ("lookahead", "Entropy", ("neuwirth",)),
    "most-parts": ("lookahead", "MostParts", ("kooi",)),
    "two-step": ("lookahead", "TwoStepMostParts", ("two-step-most-parts",)),
    "optimal": ("optimal", "Optimal", ("koyama-lai", "perfect")),
    "genetic": ("genetic", "Genetic", ("berghman", "ga")),
}
"""Each strategy's name: its module in this package, its class, and its aliases."""
NAMES = tuple(REGISTRY)

_LAZY = {
    "Pool": "base",
    "Position": "base",
    "Strategy": "base",
    "Tie": "base",
    "Choice": "choice",
    "Figures": "choice",
    "Ranked": "choice",
    "partition_figures": "choice",
    "split_figures": "choice",
}


def canonical_name(name: str) -> str:
    """The registry's name for ``name`` or one of its aliases (any case), without loading anything.

    >>> canonical_name("Knuth"), canonical_name("two_step")
    ('worst-case', 'two-step')
    """
    if not isinstance(name, str):
        raise UnknownStrategyError(f"a strategy is named by text, not {name!r:.60}; known: {', '.join(NAMES)}")
    key = name.strip().lower().replace("_", "-")
    for known, (_, _, aliases) in REGISTRY.items():
        if key == known or key in aliases:
            return known
    shown = name if len(name) <= 60 else f"{name[:60]}… ({len(name)} characters)"
    raise UnknownStrategyError(f"unknown strategy {shown!r}; known: {', '.join(NAMES)}")


def find_strategy(name: str) -> type[Strategy]:
    """The strategy class called ``name`` or one of its aliases (any case)."""
    module, cls, _ = REGISTRY[canonical_name(name)]
    found: type[Strategy] = getattr(importlib.import_module(f"keypeg.strategies.{module}"), cls)
    return found


def make_strategy(name: str, **options: object) -> Strategy:
    """A configured strategy by name (options as for :class:`Strategy`)."""
    return find_strategy(name)(**options)  # type: ignore[arg-type]


def scores_every_code(rules: Rules) -> bool:
    """Whether a strategy may score every code of ``rules`` (up to :data:`~keypeg.limits.LOOKAHEAD_LIMIT`
    codes); above that, only the genetic codebreaker plays, and no guess is reviewed or explained.

    >>> from keypeg import Rules
    >>> scores_every_code(Rules(4, 6)), scores_every_code(Rules(8, 12))
    (True, False)
    """
    return rules.size <= LOOKAHEAD_LIMIT


def playable(name: str, rules: Rules) -> tuple[str, str | None]:
    """The strategy that plays for ``name`` under ``rules``, and a note when it is another: the genetic
    codebreaker on games too large to score every code (the one place keypeg decides that fallback).

    >>> from keypeg import Rules
    >>> playable("worst-case", Rules(4, 6))
    ('worst-case', None)
    >>> playable("worst-case", Rules(8, 12))
    ('genetic', '429,981,696 codes are too many to score them all: playing the genetic codebreaker')
    """
    if name == "genetic" or scores_every_code(rules):
        return name, None
    return "genetic", f"{plural(rules.size, 'code')} are too many to score them all: playing the genetic codebreaker"


def __getattr__(name: str) -> Any:
    """The strategy types, loaded with the kernels on first use; ``STRATEGIES`` maps every name to its class."""
    if name == "STRATEGIES":
        return {known: find_strategy(known) for known in NAMES}
    if name in _LAZY:
        return getattr(importlib.import_module(f"keypeg.strategies.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
