"""Strategies side by side: each codebreaker played against every secret (its whole tree), as
``keypeg analyze --compare`` and the web's Strategies page show them.

A tree's figures (totals, worst case, secrets solved per round) are kept in the cache folder
(:func:`keypeg.storage.cache_dir`), one small JSON file per game and strategy, so that any process
(the web app's workers) finds a result another has worked out. Every big piece of work passes a check
first (see :mod:`keypeg.analysis.advice`); a strategy the check refuses, or its watch stops, is left out
with the reason, and only for this time: a refusal is never kept (it may fit another time, once the
kernels are compiled or the machine is less busy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keypeg import __version__
from keypeg.analysis.cost import Estimate, analyze_cost
from keypeg.analysis.kept import keep, kept_path, kept_stats, read_kept
from keypeg.code import Code
from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.strategies import NAMES, make_strategy
from keypeg.strategy_tree import TreeStats

if TYPE_CHECKING:
    from keypeg.strategies import Strategy
    from keypeg.strategy_tree import StrategyTree

__all__ = [
    "COMPARED",
    "EVERY",
    "SEED",
    "Summary",
    "Comparison",
    "check_trees",
    "standard_strategy",
    "tree_cost",
    "summarise",
    "compare",
    "cache_path",
]

COMPARED = ("simple", "worst-case", "expected-size", "entropy", "most-parts")
"""The strategies ``keypeg analyze --compare`` runs by default."""
EVERY = NAMES
"""Every codebreaker, as the Strategies page shows them."""
SEED = 0
"""The seed of the codebreakers that draw at random (random, careless, genetic) when results are kept:
a kept result is one that can be worked out again."""
SEEDED = frozenset({"random", "careless", "genetic"})
FORMAT = 1
"""The version of the cache files' layout."""

Check = Callable[[Estimate], None]
Watch = Callable[[float], None]
"""Called as a tree is built with the share of the secrets solved: may stop it (:class:`TooSlowError`)."""


@dataclass(frozen=True)
class Summary:
    """A strategy's tree in figures: its first guess, stats and conventions, and the seconds it took."""

    rules: Rules
    first: Code
    stats: TreeStats
    conventions: dict[str, Any]
    seconds: float
    cached: bool = False
    """Whether it was read from the cache rather than worked out now."""

    @property
    def strategy(self) -> str:
        return str(self.conventions["strategy"])

    @classmethod
    def of(cls, tree: StrategyTree) -> Summary:
        """The figures of ``tree``."""
        return cls(tree.rules, tree.first_guess, tree.stats, dict(tree.conventions), tree.seconds)

    def as_dict(self) -> dict[str, Any]:
        """The figures as ``keypeg analyze --json`` prints them."""
        data = self.stats.as_dict()
        data["seconds"] = round(self.seconds, 4)
        data["conventions"] = self.conventions
        return data


@dataclass(frozen=True)
class Comparison:
    """Strategies side by side on a rule set, and those left out with why."""

    rules: Rules
    summaries: tuple[Summary, ...]
    left_out: tuple[tuple[str, str], ...]


def check_trees(rules: Rules, names: Iterable[str], check: Check) -> None:
    """Pass each strategy's whole tree on ``rules`` through ``check`` before any is built."""
    for name in dict.fromkeys(names):
        check(analyze_cost(rules, name))


def tree_cost(rules: Rules, strategy: Strategy) -> Estimate:
    """What building ``strategy``'s tree on ``rules`` takes (:func:`~keypeg.analysis.cost.analyze_cost`).
    Compiling kernels on a first run is not part of it: no time guard counts compile time (a budget's
    clock leaves it out too, :func:`keypeg.analysis.cost.compiling_seconds`), or a first visit would
    refuse the optimal strategy, whose search takes about 14 s to compile, and go on refusing it."""
    return analyze_cost(rules, strategy.name)


def standard_strategy(name: str) -> Strategy:
    """The strategy as results are kept: its own conventions, seeded with :data:`SEED` if it draws at random."""
    return make_strategy(name, seed=SEED) if name in SEEDED else make_strategy(name)


def cache_path(rules: Rules, strategy: Strategy) -> Path:
    """Where the figures of ``strategy`` on ``rules`` are kept: named by the game and the strategy, and a
    digest of what makes the result (the game, the conventions, the rows for the optimal strategy, whose
    tree depends on them, and keypeg's version)."""
    return kept_path("analysis", rules, strategy.name, _key(rules, strategy))


def _key(rules: Rules, strategy: Strategy) -> dict[str, Any]:
    pegs, colors, repeats, blanks, feedback = rules.game
    key: dict[str, Any] = {
        "format": FORMAT,
        "keypeg": __version__,
        "game": [pegs, colors, repeats, blanks],
        "conventions": strategy.conventions(),
    }
    if feedback != "standard":  # a standard game's key (and its cached figures) as before
        key["feedback"] = feedback
    if strategy.name == "optimal":
        key["rows"] = rules.rows
    return key


def _load(path: Path, rules: Rules, key: dict[str, Any]) -> Summary | None:
    """The kept figures at ``path`` if they are keypeg's for ``key`` (anything else is ignored, such as a
    refusal an older keypeg kept: it is worked out again)."""
    data = read_kept(path, key)
    if data is None:
        return None
    stats = kept_stats(data.get("distribution"), rules)
    try:
        first = rules.code([int(c) for c in data["first"]])
        seconds = float(data["seconds"])
    except (ValueError, TypeError, KeyError, AttributeError, KeypegError):
        return None
    if stats is None:
        return None
    return Summary(rules, first, stats, dict(key["conventions"]), seconds, cached=True)


def _save(path: Path, summary: Summary, key: dict[str, Any]) -> None:
    """Keep ``summary`` at ``path`` (a failure to write is logged, never raised: the result stands)."""
    data: dict[str, Any] = {
        "keypeg_analysis": FORMAT,
        "key": key,
        "rules": summary.rules.describe(),
        "first": list(summary.first.colors),
        "distribution": {str(d): n for d, n in summary.stats.distribution.items()},
        "seconds": round(summary.seconds, 4),
    }
    keep(path, data, "the analysis")


def summarise(rules: Rules, name: str, *, check: Check, watch: Watch | None = None) -> Summary:
    """The figures of strategy ``name``'s whole tree on ``rules`` (its standard conventions): kept ones
    when there are, else the tree built (after ``check``, and watched by ``watch``) and its figures
    kept. Only figures are kept: a refusal (:class:`TooCostlyError`, from ``check`` or ``watch``) is
    raised and forgotten, so a later call with time to spare works the tree out."""
    strategy = standard_strategy(name)
    key = _key(rules, strategy)
    path = cache_path(rules, strategy)
    found = _load(path, rules, key)
    if found is not None:
        return found
    check(tree_cost(rules, strategy))
    from keypeg.analysis import tree

    solved = 0

    def advance(n: int) -> None:
        nonlocal solved
        solved += n
        if watch is not None:
            watch(solved / rules.size)

    summary = Summary.of(tree.build_tree(strategy, rules, progress=advance))
    _save(path, summary, key)
    return summary


def compare(rules: Rules, names: Sequence[str] = EVERY, *, check: Check, watch: Watch | None = None) -> Comparison:
    """Strategies ``names`` side by side on ``rules`` (see :func:`summarise`); one the check refuses, or
    that fails on these rules, is left out with the reason."""
    summaries, left_out = [], []
    for name in dict.fromkeys(names):
        try:
            summaries.append(summarise(rules, name, check=check, watch=watch))
        except KeypegError as refused:
            left_out.append((name, str(refused)))
    return Comparison(rules, tuple(summaries), tuple(left_out))
