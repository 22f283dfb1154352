"""The computer's levels, from beatable to perfect, and the fallback for games too large to look ahead."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from keypeg.errors import KeypegError
from keypeg.limits import OPTIMAL_ON_DEMAND
from keypeg.rules import Rules

if TYPE_CHECKING:
    from keypeg.knowledge import Knowledge
    from keypeg.strategies import Choice, Strategy

__all__ = ["Level", "LEVELS", "level_strategy", "strategy_for", "level_choice", "advise_with"]


@dataclass(frozen=True)
class Level:
    """A named level and the strategy behind it."""

    number: int
    name: str
    strategy: str
    about: str


LEVELS = {
    1: Level(1, "not so smart", "careless", "a random code fitting the scores it remembers (it forgets half)"),
    2: Level(2, "pretty smart", "simple", "the first code that fits every score"),
    3: Level(3, "smarter than you", "worst-case", "Knuth's look-ahead: the smallest worst case"),
    4: Level(4, "perfect", "optimal", "the optimal strategy where it is solved, the best heuristic where not"),
}


def strategy_for(name: str, rules: Rules, *, seed: int | None = None) -> tuple[Strategy, str | None]:
    """The strategy ``name`` ready for ``rules``, or the one it falls back to, with a note saying so."""
    note = None
    if name == "optimal":
        from keypeg.storage import cache_dir
        from keypeg.strategies.optimal import saved_optimal

        if rules.size > OPTIMAL_ON_DEMAND and saved_optimal(rules, "all", cache_dir()) is None:
            name, note = "most-parts", "the optimum is not solved for these rules: playing most parts instead"
    from keypeg.strategies import make_strategy, playable

    name, too_large = playable(name, rules)
    strategy = make_strategy(name, seed=seed)
    return strategy, too_large or note


def level_strategy(level: int, rules: Rules, *, seed: int | None = None) -> Strategy:
    """The strategy that plays ``level`` under ``rules``."""
    if level not in LEVELS:
        raise KeypegError(f"level must be 1 to 4, not {level!r}")
    return strategy_for(LEVELS[level].strategy, rules, seed=seed)[0]


def advise_with(strategy: Strategy, knowledge: Knowledge, *, top: int = 1) -> Choice:
    """What ``strategy`` plays after ``knowledge``, with the figures behind up to ``top`` guesses."""
    return strategy.rank(knowledge, top=top)


def level_choice(knowledge: Knowledge, *, level: int = 3, top: int = 1) -> Choice:
    """The hint: what ``level`` would play after ``knowledge`` (which must fit some code)."""
    return advise_with(level_strategy(level, knowledge.rules), knowledge, top=top)
