"""The best opening: a strategy's whole tree grown from every distinct first guess, and the best kept.

Before any guess, every permutation of the colours and of the pegs maps the game onto itself, so two
first guesses with the same pattern of repeated colours (AABB, CCDD, ABAB) split the codes alike: there
is one *opening* per way of writing the pegs as colour counts (4 pegs: AAAA, AAAB, AABB, AABC, ABCD),
each named by the smallest code of its class (the largest with ``tie="last"``, as the strategy's own
symmetry classes do: :func:`keypeg.symmetry.representatives`). Without repeats there is one opening; a
blank is scored as one more colour, so it is one more colour here too; under colours-only feedback a code
is its multiset of colours and the openings are the same patterns.

:func:`openings` grows the strategy's tree from each opening (its conventions otherwise unchanged) and
:func:`best` keeps the one with the least total, then the smaller worst case, then the first in code
order. Each opening's figures are kept in the cache folder (one file per game and conventions, written
after every tree, so an interrupted run keeps what it finished), keyed like the other kept analyses by
the game, the conventions and keypeg's version.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keypeg import __version__
from keypeg.analysis.cost import Estimate, _first_guess_classes, analyze_cost
from keypeg.analysis.kept import keep, kept_path, kept_stats, read_kept
from keypeg.code import Code
from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.strategy_tree import TreeStats

if TYPE_CHECKING:
    from keypeg.strategies import Strategy

__all__ = [
    "Opening",
    "distinct_openings",
    "opening_count",
    "openings",
    "best",
    "best_opening",
    "openings_cost",
    "cache_path",
]

FORMAT = 1
"""The version of the kept openings' file layout."""

Progress = Callable[[int], None]
"""Called with the number of secrets newly solved (every opening's tree counts them all again)."""
Done = Callable[["Opening"], None]
"""Called with each opening's figures as soon as they are known (worked out or read from the cache)."""


@dataclass(frozen=True)
class Opening:
    """One first guess's tree in figures: the guess, the tree's stats, and what it cost to grow."""

    guess: Code
    stats: TreeStats
    seconds: float
    """Wall-clock seconds the tree took."""
    cpu_seconds: float
    """CPU seconds of this process (every thread) while the tree grew: what load does not distort."""
    cached: bool = field(default=False, compare=False)
    """Whether the figures were read from the cache rather than worked out now."""

    @property
    def total(self) -> int:
        """Guesses over every secret."""
        return self.stats.total

    @property
    def worst(self) -> int:
        """The most guesses any secret needs."""
        return self.stats.max

    @property
    def average(self) -> float:
        """Guesses per secret."""
        return self.stats.average

    def as_dict(self) -> dict[str, Any]:
        """The figures as ``--json`` prints them."""
        return {
            "guess": str(self.guess),
            **self.stats.as_dict(),
            "seconds": round(self.seconds, 4),
            "cpu_seconds": round(self.cpu_seconds, 4),
            "cached": self.cached,
        }


def opening_count(rules: Rules) -> int:
    """How many distinct openings ``rules`` have, without enumerating any code: the ways to write the
    pegs as at most ``num_colors`` colour counts (one way without repeats), as the cost guard counts them.

    >>> opening_count(Rules(4, 6)), opening_count(Rules(5, 8)), opening_count(Rules(4, 10, repeats=False))
    (5, 7, 1)
    """
    return _first_guess_classes(rules)


def distinct_openings(rules: Rules, *, largest: bool = False) -> tuple[Code, ...]:
    """One first guess per class of first guesses the game's symmetries make alike, in code order: the
    smallest code of each class (``largest``: the largest), as :func:`keypeg.symmetry.representatives`
    finds them for the strategies.

    >>> [str(code) for code in distinct_openings(Rules(4, 6))]
    ['AAAA', 'AAAB', 'AABB', 'AABC', 'ABCD']
    """
    from keypeg.kernels import CodeSpace
    from keypeg.symmetry import representatives

    space = CodeSpace.of(rules)
    found = representatives(space, space.all, (), space.all, largest=largest)
    return tuple(space.code(int(index)) for index in found)


def best(found: Sequence[Opening]) -> Opening:
    """The opening with the least total, then the smaller worst case, then the first in code order.

    ``found`` must be in code order (as :func:`openings` returns them).
    """
    if not found:
        raise KeypegError("no opening to choose from")
    return min(found, key=lambda o: (o.total, o.worst))  # min keeps the first of equals: code order


def openings_cost(rules: Rules, strategy: Strategy, *, use_cache: bool = True) -> Estimate:
    """What growing ``strategy``'s tree from every distinct opening takes: one tree's memory (they grow
    one at a time) and every tree's time (:func:`~keypeg.analysis.cost.analyze_cost`, times the openings not
    kept by an earlier run, or all of them without ``use_cache``). Nothing is enumerated."""
    one = analyze_cost(rules, strategy.name)
    count = opening_count(rules)
    kept = len(_load(cache_path(rules, strategy), rules, _key(rules, strategy))) if use_cache else 0
    todo = max(count - kept, 0)
    work = f"the {strategy.name} trees of {count} opening{'s' if count != 1 else ''} on {rules.describe()}"
    return Estimate(work, one.memory if todo else 0, one.seconds * todo, one.parts if todo else (), one.rough)


def openings(
    rules: Rules,
    strategy: Strategy,
    *,
    progress: Progress | None = None,
    done: Done | None = None,
    use_cache: bool = True,
) -> tuple[Opening, ...]:
    """``strategy``'s tree from every distinct opening of ``rules`` (its first guess replaced, its other
    conventions kept), in code order.

    Figures kept by an earlier run are read unless ``use_cache`` is false; each tree worked out is kept
    at once (a failure to write is logged, never raised). ``progress`` counts the secrets solved, every
    opening's tree counting them all; ``done`` hears of each opening as it is known. Pass the cost guard
    (:func:`openings_cost`) first.
    """
    from keypeg.analysis.tree import build_tree

    codes = distinct_openings(rules, largest=strategy.tie == "last")
    key = _key(rules, strategy)
    path = cache_path(rules, strategy)
    kept = _load(path, rules, key) if use_cache else {}
    found: list[Opening] = []
    for code in codes:
        opening = kept.get(code.colors)
        if opening is None:
            opening = _grow(build_tree, rules, strategy, code, progress)
            kept[code.colors] = opening
            _save(path, rules, key, kept)
        elif progress is not None:
            progress(rules.size)
        found.append(opening)
        if done is not None:
            done(opening)
    return tuple(found)


def best_opening(
    rules: Rules,
    strategy: Strategy,
    *,
    progress: Progress | None = None,
    done: Done | None = None,
    use_cache: bool = True,
) -> Opening:
    """The best of :func:`openings` (:func:`best`): the first guess that gives ``strategy`` the least total."""
    return best(openings(rules, strategy, progress=progress, done=done, use_cache=use_cache))


def _grow(
    build_tree: Callable[..., Any], rules: Rules, strategy: Strategy, code: Code, progress: Progress | None
) -> Opening:
    """The tree of ``strategy`` played from ``code`` (on a copy of it), timed."""
    played = copy.copy(strategy)
    played.first = code
    cpu = time.process_time()
    tree = build_tree(played, rules, progress=progress)
    cpu = time.process_time() - cpu
    return Opening(code, tree.stats, tree.seconds, cpu)


# -- the cache -----------------------------------------------------------------------------------


def cache_path(rules: Rules, strategy: Strategy) -> Path:
    """Where the openings of ``strategy`` on ``rules`` are kept: named by the game and the strategy, and a
    digest of what makes the figures (the game, the conventions but the first guess, keypeg's version)."""
    return kept_path("openings", rules, strategy.name, _key(rules, strategy))


def _key(rules: Rules, strategy: Strategy) -> dict[str, Any]:
    conventions = {k: v for k, v in strategy.conventions().items() if k != "first"}
    key: dict[str, Any] = {"format": FORMAT, "keypeg": __version__, "game": list(rules.game)}
    key["conventions"] = conventions
    if strategy.name == "optimal":  # its tree depends on the rows
        key["rows"] = rules.rows
    return key


def _load(path: Path, rules: Rules, key: dict[str, Any]) -> dict[tuple[int, ...], Opening]:
    """The openings kept at ``path`` for ``key`` (anything else, or damaged, is ignored)."""
    data = read_kept(path, key)
    entries = data.get("openings") if data is not None else None
    kept: dict[tuple[int, ...], Opening] = {}
    for entry in entries if isinstance(entries, list) else []:
        try:
            code = rules.code([int(c) for c in entry["guess"]])
            stats = kept_stats(entry["distribution"], rules)
            seconds, cpu_seconds = float(entry["seconds"]), float(entry["cpu_seconds"])
        except (ValueError, TypeError, KeyError, AttributeError, KeypegError):
            continue
        if stats is not None:
            kept[code.colors] = Opening(code, stats, seconds, cpu_seconds, cached=True)
    return kept


def _save(path: Path, rules: Rules, key: dict[str, Any], kept: dict[tuple[int, ...], Opening]) -> None:
    """Keep the openings known so far at ``path`` (a failure to write is logged, never raised)."""
    data = {
        "keypeg_openings": FORMAT,
        "key": key,
        "rules": rules.describe(),
        "openings": [
            {
                "guess": list(colors),
                "distribution": {str(d): n for d, n in o.stats.distribution.items()},
                "seconds": round(o.seconds, 4),
                "cpu_seconds": round(o.cpu_seconds, 4),
            }
            for colors, o in sorted(kept.items())
        ],
    }
    keep(path, data, "the openings")
