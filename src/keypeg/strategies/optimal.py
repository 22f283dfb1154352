"""The optimal codebreaker: the strategy with the fewest total guesses over all secrets.

Depth-first branch and bound (the method of Koyama and Lai, 1993, with the
refinements of later solvers):

- a set of ``n`` codes needs at least ``LB(n)`` guesses in all, since each code is
  guessed at its own node and a node has at most ``b`` children (``b`` the number of
  feedbacks short of the win): ``LB`` fills 1, ``b``, ``b**2``, ... nodes per round;
- each guess gets the bound ``n + sum(LB(part))`` over the parts it makes (one kernel
  call for all guesses), and guesses are tried best bound first, fitting guesses first
  among equals, stopping once the bound reaches the best total found;
- one guess per symmetry class (:mod:`keypeg.symmetry`);
- sets that a guess splits into parts of one or two codes cost exactly their bound;
- solved sets are remembered (keyed by the set itself and the rounds left), with the
  lower bounds proved for sets that could not be solved within their budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from keypeg.errors import KeypegError
from keypeg.kernels import CodeSpace, Index, feedback_ordinal, ordinal_feedback
from keypeg.rules import Rules
from keypeg.storage import cache_dir
from keypeg.strategies.base import Pool, Position, Strategy, members
from keypeg.strategy_tree import Node, StrategyTree, TreeStats, load_tree, tree_to_json
from keypeg.symmetry import representatives

__all__ = [
    "OptimalSolver",
    "Optimal",
    "SearchProgress",
    "lower_bounds",
    "SECRET_SETS",
    "secret_set",
    "save_optimal",
    "load_optimal",
    "saved_tree_path",
]

SYMMETRY_MIN_CODES = 16
"""Smaller sets are searched without symmetry classes: finding them costs more than it saves."""
BIG = 1e12
"""Stands for 'impossible within the rounds left'; sums of it stay exact and above any real total."""


def lower_bounds(size: int, branching: int, rounds: int | None) -> npt.NDArray[np.float64]:
    """``LB[n]`` for ``n`` up to ``size``: the fewest total guesses any strategy can need for ``n`` codes,
    when a guess has at most ``branching`` non-winning answers; :data:`BIG` past what ``rounds`` can hold."""
    bounds = np.zeros(size + 1, dtype=np.float64)
    depth, room, used = 1, 1, 0
    for n in range(1, size + 1):
        while used >= room:
            depth += 1
            used, room = 0, room * branching
        used += 1
        bounds[n] = bounds[n - 1] + depth
        if rounds is not None and depth > rounds:
            bounds[n:] = BIG
            break
    return bounds


@dataclass
class SearchProgress:
    """A snapshot of the search, for live views."""

    nodes: int
    best: float
    bound: float
    seconds: float
    first_guesses_done: int
    first_guesses: int

    @property
    def nodes_per_second(self) -> float:
        """Sets solved or refuted per second."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


@dataclass
class _Entry:
    value: float
    exact: bool
    guess: int = -1


@dataclass
class OptimalSolver:
    """Exact search for the fewest total guesses, with a memo shared by every question asked of it.

    Args:
        rules: the rule set; ``rules.rows`` limits the guesses per secret.
        pool: guesses from ``all`` codes or only ``consistent`` ones.
        secrets: indices of the codes the secret is drawn from (all by default).
        progress: called now and then with a :class:`SearchProgress`.
    """

    rules: Rules
    pool: Pool = "all"
    secrets: Index | None = None
    progress: Callable[[SearchProgress], None] | None = None
    space: CodeSpace = field(init=False)
    memo: dict[tuple[bytes, int], _Entry] = field(init=False, default_factory=dict)
    nodes: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.space = CodeSpace.of(self.rules)
        self.branching = len(self.rules.feedbacks()) - 1
        self.win = feedback_ordinal(self.rules.win, self.rules.pegs)
        self._bounds: dict[int, npt.NDArray[np.float64]] = {}
        self._started = time.perf_counter()
        self._root_done = 0
        self._root_count = 0
        self._best_root = float("inf")

    # -- bounds ---------------------------------------------------------------------------

    def bounds(self, rounds: int) -> npt.NDArray[np.float64]:
        """``LB`` for sets solved within ``rounds`` guesses."""
        if rounds not in self._bounds:
            self._bounds[rounds] = lower_bounds(self.space.size, self.branching, rounds)
        return self._bounds[rounds]

    # -- the search -----------------------------------------------------------------------

    def root(self) -> Index:
        """The codes the secret is drawn from."""
        return self.space.all if self.secrets is None else np.sort(np.asarray(self.secrets, dtype=np.intp))

    def solve(self, upper: float = float("inf")) -> float:
        """The optimal total over all secrets (``BIG`` or more if the rows are too few)."""
        self._started = time.perf_counter()
        return self.value(self.root(), (), self.rules.rows, upper)

    def value(
        self, codes: Index, history: tuple[tuple[int, int], ...], rounds: int, budget: float = float("inf")
    ) -> float:
        """The fewest total guesses for ``codes`` within ``rounds``, exactly if below ``budget``;
        otherwise a lower bound of at least ``budget``."""
        n = codes.size
        if n <= 2:
            return float(self.bounds(rounds)[n]) if n < 2 or rounds >= 2 else BIG
        if rounds <= 1:
            return BIG
        key = (codes.astype(np.int32).tobytes(), rounds)
        entry = self.memo.get(key)
        if entry is not None and (entry.exact or entry.value >= budget):
            return entry.value
        bound = float(self.bounds(rounds)[n])
        if bound >= budget:
            return bound
        value, guess = self._search(codes, history, rounds, budget)
        self.memo[key] = _Entry(value, guess >= 0, guess)
        return value

    def _candidates(
        self, codes: Index, history: tuple[tuple[int, int], ...], rounds: int, budget: float
    ) -> tuple[Index, npt.NDArray[np.float64], float]:
        """Guesses whose bound is below ``budget``, best bound first, with their bounds; and the
        lowest bound of all."""
        space = self.space
        pool = space.all if self.pool == "all" else codes
        guesses = representatives(space, pool, history, codes) if codes.size >= SYMMETRY_MIN_CODES else pool
        below = self.bounds(rounds - 1)
        sums = space.partition_costs(guesses, codes, "table-sum", below)
        fits = members(guesses, codes)
        # the winning part (one code, for a fitting guess) costs nothing more
        bounds = codes.size + sums - np.where(fits, below[1], 0.0)
        lowest = float(bounds.min()) if bounds.size else BIG
        keep = bounds < min(budget, BIG)
        guesses, fits, bounds = guesses[keep], fits[keep], bounds[keep]
        order = np.lexsort((guesses, ~fits, bounds))
        return guesses[order], bounds[order], lowest

    def _search(
        self, codes: Index, history: tuple[tuple[int, int], ...], rounds: int, budget: float
    ) -> tuple[float, int]:
        self.nodes += 1
        top = not history
        if codes.size <= self.branching + 1:
            shortcut = self._perfect_split(codes)
            if shortcut is not None:
                return shortcut
        guesses, bounds, lowest = self._candidates(codes, history, rounds, budget)
        if top:
            self._root_count = int(guesses.size)
        best, chosen = budget, -1
        below = self.bounds(rounds - 1)
        for guess, bound in zip(guesses.tolist(), bounds.tolist(), strict=True):
            if bound >= best or bound >= BIG:
                break
            total = self._try(guess, codes, history, rounds, best, below)
            if total < best:
                best, chosen = total, guess
            if top:
                self._root_done += 1
                self._best_root = min(self._best_root, best)
                self._report(bound)
        if chosen < 0:
            return max(budget, lowest), -1
        return best, chosen

    def _perfect_split(self, codes: Index) -> tuple[float, int] | None:
        """The exact value of a small set that one guess splits apart: ``2n - 1`` when a fitting guess
        does (the least possible), else ``2n`` when any guess does (the least once no fitting guess can)."""
        n = codes.size
        found = self.space.first_perfect_split(codes, codes)
        if found is not None:
            return float(2 * n - 1), found
        if self.pool == "all" and n <= self.branching:
            found = self.space.first_perfect_split(self.space.all, codes)
            if found is not None:
                return float(2 * n), found
        return None

    def _try(
        self,
        guess: int,
        codes: Index,
        history: tuple[tuple[int, int], ...],
        rounds: int,
        best: float,
        below: npt.NDArray[np.float64],
    ) -> float:
        """Total guesses with ``guess`` played on ``codes`` now, if below ``best``; else at least ``best``."""
        parts = self.split(guess, codes)
        parts.sort(key=lambda item: -item[1].size)
        total = float(codes.size)
        rest = sum(float(below[p.size]) for _, p in parts)
        for ordinal, part in parts:
            rest -= float(below[part.size])
            allowed = best - total - rest
            value = self.value(part, (*history, (guess, ordinal)), rounds - 1, allowed)
            total += value
            if value >= allowed:
                return max(total + rest, best)
        if self.nodes % 512 == 0:
            self._report(float("nan"))
        return total

    def split(self, guess: int, codes: Index) -> list[tuple[int, Index]]:
        """The parts (feedback ordinal, codes) a guess makes of ``codes``, the win left out."""
        feedbacks = self.space.feedbacks(guess, codes)
        order = np.argsort(feedbacks, kind="stable")
        values, starts = np.unique(feedbacks[order], return_index=True)
        ends = [*starts[1:].tolist(), codes.size]
        return [
            (int(v), codes[order[s:e]])
            for v, s, e in zip(values.tolist(), starts.tolist(), ends, strict=True)
            if v != self.win
        ]

    def _report(self, bound: float) -> None:
        if self.progress is not None:
            self.progress(
                SearchProgress(
                    nodes=self.nodes,
                    best=self._best_root,
                    bound=bound,
                    seconds=time.perf_counter() - self._started,
                    first_guesses_done=self._root_done,
                    first_guesses=self._root_count,
                )
            )

    # -- the answer -----------------------------------------------------------------------

    def guess(self, codes: Index, history: tuple[tuple[int, int], ...], rounds: int) -> int:
        """The optimal guess for ``codes`` (solving the set if it is not known yet)."""
        if codes.size <= 2:
            return int(codes[0])
        key = (codes.astype(np.int32).tobytes(), rounds)
        entry = self.memo.get(key)
        if entry is None or not entry.exact:
            value = self.value(codes, history, rounds)
            if value >= BIG:
                raise KeypegError(f"no strategy solves these {codes.size} codes within {rounds} more guesses")
            entry = self.memo[key]
        return entry.guess

    def tree(self) -> StrategyTree:
        """The optimal strategy as a tree (solving first if needed)."""
        started = time.perf_counter()
        total = self.solve()
        if total >= BIG:
            raise KeypegError(f"no strategy solves every secret within {self.rules.rows} guesses")
        distribution: dict[int, int] = {}

        def grow(codes: Index, history: tuple[tuple[int, int], ...], rounds: int, depth: int) -> Node:
            guess = self.guess(codes, history, rounds)
            node = Node(self.space.code(guess), int(codes.size))
            if guess in codes:
                distribution[depth] = distribution.get(depth, 0) + 1
            for ordinal, part in self.split(guess, codes):
                feedback = ordinal_feedback(ordinal, self.rules.pegs)
                node.children[feedback] = grow(part, (*history, (guess, ordinal)), rounds - 1, depth + 1)
            return node

        root = grow(self.root(), (), self.rules.rows, 1)
        stats = TreeStats.from_distribution(distribution)
        if stats.total != int(total):
            raise KeypegError(f"internal error: tree total {stats.total} differs from the search's {total}")
        conventions = {"strategy": "optimal", "pool": self.pool, "rows": self.rules.rows}
        if self.secrets is not None:
            conventions["secrets"] = int(self.root().size)
        return StrategyTree(self.rules, root, conventions, stats, time.perf_counter() - started)


class Optimal(Strategy):
    """The exact optimum (fewest total guesses over all secrets), searched on demand and remembered."""

    name = "optimal"
    aliases = ("koyama-lai", "perfect")
    about = "fewest total guesses over all secrets (exact search; Koyama and Lai 1993)"
    solvers: ClassVar[dict[tuple[Rules, str], OptimalSolver]] = {}
    trees: ClassVar[dict[tuple[Rules, str], StrategyTree | None]] = {}

    def solver(self, rules: Rules) -> OptimalSolver:
        """The (shared) solver for these rules and pool."""
        key = (rules, self.pool)
        if key not in self.solvers:
            self.solvers[key] = OptimalSolver(rules, pool=self.pool)
        return self.solvers[key]

    def choose(self, position: Position) -> int:
        if (position.depth == 0 and self.first is not None) or position.candidates.size == 0:
            return super().choose(position)
        rules = position.space.rules
        if self.first is None:
            saved = self.saved(rules)
            if saved is not None:
                found = _follow(saved, position)
                if found is not None:
                    return found
        rounds = max(rules.rows - position.depth, 1)
        return self.solver(rules).guess(position.candidates, position.history, rounds)

    def saved(self, rules: Rules) -> StrategyTree | None:
        """The saved optimal tree for these rules, if ``keypeg optimal`` has solved them."""
        key = (rules, self.pool)
        if key not in self.trees:
            self.trees[key] = load_optimal(rules, self.pool)
        return self.trees[key]

    def decide(self, position: Position) -> int:  # pragma: no cover - choose() never calls it
        return self.choose(position)


def _follow(tree: StrategyTree, position: Position) -> int | None:
    """The saved tree's guess after the position's history, if the history followed the tree."""
    node: Node | None = tree.root
    space = position.space
    for guess, ordinal in position.history:
        if node is None or space.index(node.guess) != guess:
            return None
        node = node.children.get(ordinal_feedback(ordinal, space.pegs))
    if node is None or node.size != position.candidates.size:
        return None
    return space.index(node.guess)


SECRET_SETS = ("all", "two-or-more-colours")
"""Named secret sets: every code, or the codes of two or more colours (the codemaker's minimax set)."""


def secret_set(space: CodeSpace, name: str) -> Index | None:
    """Indices of a named secret set (``None`` for all codes)."""
    if name == "all":
        return None
    if name in ("two-or-more-colours", "two-or-more-colors"):
        first = space.codes[:, :1]
        result: Index = space.all[(space.codes != first).any(axis=1)]
        return result
    raise KeypegError(f"unknown secret set {name!r}; choose from {', '.join(SECRET_SETS)}")


def _stem(rules: Rules, pool: Pool, secrets: str) -> str:
    game = f"{rules.pegs}x{rules.colors}{'-norepeats' if not rules.repeats else ''}{'-blanks' if rules.blanks else ''}"
    return f"optimal-{game}-{pool}-{secrets}"


def saved_tree_path(rules: Rules, pool: Pool, secrets: str = "all") -> Path:
    """Where the optimal tree for these rules and options is saved."""
    return cache_dir() / f"{_stem(rules, pool, secrets)}-rows{rules.rows}.json"


def save_optimal(tree: StrategyTree, pool: Pool, secrets: str = "all") -> Path:
    """Save a solved tree where play and ``keypeg next`` look for it; returns the path."""
    path = saved_tree_path(tree.rules, pool, secrets)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(tree_to_json(tree), encoding="utf-8")
        tmp.replace(path)
    except OSError as error:
        raise KeypegError(f"cannot save the solved strategy to {str(path)!r}: {error.strerror}") from None
    return path


def load_optimal(rules: Rules, pool: Pool, secrets: str = "all") -> StrategyTree | None:
    """A saved optimal tree that is optimal for these rules and options, if there is one.

    Looks in the cache (``keypeg optimal`` saves there) and in the trees shipped with
    keypeg. A tree solved with ``R`` rows is optimal for ``r`` rows when it never needs
    more than ``r`` guesses and ``r <= R``.
    """
    stem = _stem(rules, pool, secrets)
    folders = [cache_dir(), Path(str(resources.files("keypeg") / "data"))]
    for folder in folders:
        for path in sorted(folder.glob(f"{stem}-rows*.json")) if folder.is_dir() else []:
            try:
                solved_rows = int(path.stem.rsplit("-rows", 1)[1])
                tree = load_tree(path)
            except (ValueError, KeypegError):
                continue
            game = (tree.rules.pegs, tree.rules.num_colors, tree.rules.repeats)
            if game == (rules.pegs, rules.num_colors, rules.repeats) and tree.stats.max <= rules.rows <= solved_rows:
                return tree
    return None
