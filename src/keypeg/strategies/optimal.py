"""The optimal codebreaker: the strategy with the fewest total guesses over all secrets.

Depth-first branch and bound (the method of Koyama and Lai, 1993, with the
refinements of later solvers), run whole in numba (:mod:`keypeg.kernels._optimal`):

- a set of ``n`` codes needs at least ``LB(n)`` guesses in all, since each code is
  guessed at its own node and a node has at most ``b`` children (``b`` the number of
  feedbacks short of the win): ``LB`` fills 1, ``b``, ``b**2``, ... nodes per round;
- each guess gets the bound ``n + sum(LB(part))`` over the parts it makes, and guesses
  are tried best bound first, fitting guesses first among equals, stopping once the
  bound reaches the best total found; a part of up to 256 codes counts with the bound
  its own search starts from (below), so hopeless guesses are dropped before any part
  is searched; parts are solved smallest first, each within what the best total leaves
  it, so the large parts, which cost the most, get the tightest budgets;
- the best fitting guess is tried first on its own: when it reaches the set's lower
  bound (the least of its bound and what any other guess can reach, ``n`` plus the
  ``n`` codes spread evenly over ``b`` parts) no other guess needs scoring;
- one guess per symmetry class (:mod:`keypeg.symmetry`) on sets of 16 codes or more;
- searched sets are remembered in a transposition table of fixed size, keyed by two
  independent 64-bit hashes of the set and the rounds left, with their exact value and
  best guess, or the lower bound proved when no guess fitted the budget;
- with ``numba.get_num_threads()`` threads (no more than the cores left idle), each searches
  the same set and leaves for last a part another one is searching: they share what they
  prove through the table (the scheme of ABDADA, Weill 1996), so no thread waits for another.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from keypeg import storage
from keypeg.errors import InvalidRulesError, KeypegError
from keypeg.kernels import CodeSpace, ExactSearch, Index, ordinal_feedback
from keypeg.rules import Rules
from keypeg.strategies.base import Pool, Position, Rated, Strategy
from keypeg.strategy_tree import Node, StrategyTree, TreeStats
from keypeg.symmetry import permutations_of
from keypeg.text import plural

__all__ = [
    "OptimalSolver",
    "Optimal",
    "SearchProgress",
    "optimal_solver",
    "saved_optimal",
    "lower_bounds",
    "most_answers",
    "SECRET_SETS",
    "secret_set",
    "secret_codes",
    "save_optimal",
    "load_optimal",
    "saved_tree_path",
]

SYMMETRY_MIN_CODES = 16
"""Smaller sets are searched without symmetry classes: finding them costs more than it saves."""
BIG = ExactSearch.IMPOSSIBLE
"""Stands for 'impossible within the rounds left'; sums of it stay exact and above any real total."""
FULL_BOUNDS = 1 << 16
"""Up to this many codes the bounds cover every set size from the start; above, they grow on demand."""
POLL_SECONDS = 0.25
"""How often a running search reports progress and notices Ctrl-C."""


def lower_bounds(size: int, branching: int, rounds: int | None) -> npt.NDArray[np.int64]:
    """``LB[n]`` for ``n`` up to ``size``: the fewest total guesses any strategy can need for ``n`` codes,
    when a guess has at most ``branching`` non-winning answers; :data:`BIG` past what ``rounds`` can hold."""
    bounds = np.zeros(size + 1, dtype=np.int64)
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


def most_answers(space: CodeSpace) -> int:
    """The most non-winning answers one guess of this game can get over every code: the branching of the
    counting bound (:func:`lower_bounds`). A guess's answers depend only on its symmetry class, so one
    guess per class is scored against every code. It is below the number of feedbacks the rules allow
    when colours are few (8 pegs of 2 colours: 24, not 44), where it makes every bound stronger."""
    from keypeg.symmetry import representatives

    most = 0
    for guess in representatives(space, space.all, (), space.all):
        answers = np.unique(space.feedbacks(int(guess)))
        most = max(most, int(answers.size - np.count_nonzero(answers == space.win)))
    return max(most, 1)


@dataclass(frozen=True)
class SearchProgress:
    """A snapshot of the search, for live views."""

    nodes: int
    best: float
    bound: float
    seconds: float
    first_guesses_done: int
    first_guesses: int
    parts_done: int = 0
    parts: int = 0

    @property
    def nodes_per_second(self) -> float:
        """Sets solved or refuted per second."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


@dataclass
class OptimalSolver:
    """Exact search for the fewest total guesses, with a memo shared by every question asked of it.

    The search runs in numba (:class:`keypeg.kernels.ExactSearch`) on a worker thread, so the
    caller keeps reporting progress and Ctrl-C stops it at once. After Ctrl-C, :meth:`checkpoint`
    saves every set proven so far, and a solver made with ``resume=True`` for the same rules and
    pool starts from them.

    Args:
        rules: the rule set; ``rules.rows`` limits the guesses per secret.
        pool: guesses from ``all`` codes or only ``consistent`` ones.
        secrets: indices of the codes the secret is drawn from (all by default).
        progress: called now and then with a :class:`SearchProgress`.
        resume: start from the memo an interrupted search left, if any.
        threads: threads searching together (default: ``numba.get_num_threads()`` in the calling
            thread, fewer when the machine's other work leaves fewer cores idle).
    """

    rules: Rules
    pool: Pool = "all"
    secrets: Index | None = None
    progress: Callable[[SearchProgress], None] | None = None
    resume: bool = False
    threads: int | None = None
    space: CodeSpace = field(init=False)
    resumed: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.space = CodeSpace.of(self.rules)
        self.branching = most_answers(self.space)
        self._search = self._new_search(self.space.size if self.space.size <= FULL_BOUNDS else self.root().size)
        self._started = time.perf_counter()
        if self.resume:
            self._load_checkpoint()

    def _new_search(self, largest: int) -> ExactSearch:
        rows = self.rules.rows
        bounds = np.stack([lower_bounds(largest, self.branching, r) for r in range(rows + 1)])
        perms = permutations_of(self.rules)
        return ExactSearch(self.space, bounds, self.pool == "all", perms, SYMMETRY_MIN_CODES, self.branching)

    @property
    def nodes(self) -> int:
        """Sets searched so far."""
        return self._search.counters().nodes

    # -- the search -----------------------------------------------------------------------

    def root(self) -> Index:
        """The codes the secret is drawn from."""
        return self.space.all if self.secrets is None else np.sort(np.asarray(self.secrets, dtype=np.intp))

    def solve(self, upper: float = float("inf")) -> int:
        """The optimal total over all secrets (``BIG`` or more if the rows are too few)."""
        self._started = time.perf_counter()
        return self.value(self.root(), (), self.rules.rows, upper)[0]

    def value(
        self, codes: Index, history: tuple[tuple[int, int], ...], rounds: int, budget: float = float("inf")
    ) -> tuple[int, int]:
        """The fewest total guesses for ``codes`` within ``rounds`` and an optimal guess, exactly if
        below ``budget``; otherwise a lower bound of at least ``budget`` and guess -1."""
        if codes.size > self._search.largest:
            self._search = self._new_search(codes.size)
        limit = ExactSearch.UNBOUNDED if budget == float("inf") else int(budget)
        guesses = [g for g, _ in history]
        self._search.go_on()  # a search stopped earlier (Ctrl-C in play) may be asked again
        answer: list[tuple[int, int]] = []
        threads = self.threads or ExactSearch.threads()  # numba keeps it per thread: the caller's
        worker = threading.Thread(
            target=lambda: answer.append(self._search.solve(codes, guesses, rounds, limit, threads)), daemon=True
        )
        worker.start()
        try:
            while worker.is_alive():
                worker.join(POLL_SECONDS)
                self._report()
        except KeyboardInterrupt:
            self._search.stop()
            worker.join()
            raise
        return answer[0]

    def fewest_rounds(self) -> tuple[int, int]:
        """The fewest guesses that always suffice (at most the rules' rows) and the least total
        within them (the worst case first, then the total)."""
        for rounds in range(1, self.rules.rows + 1):
            total = self.value(self.root(), (), rounds)[0]
            if total < BIG:
                return rounds, total
        raise InvalidRulesError(f"no strategy solves every secret within {plural(self.rules.rows, 'guess', 'guesses')}")

    def _report(self) -> None:
        if self.progress is None:
            return
        counters = self._search.counters()
        self.progress(
            SearchProgress(
                nodes=counters.nodes,
                best=float(counters.best) if counters.best < BIG else float("inf"),
                bound=float(counters.bound),
                seconds=time.perf_counter() - self._started,
                first_guesses_done=counters.first_done,
                first_guesses=counters.first_count,
                parts_done=counters.parts_done,
                parts=counters.parts,
            )
        )

    # -- stopping and resuming ------------------------------------------------------------

    def checkpoint_path(self) -> Path:
        """Where an interrupted search leaves its memo (it does not depend on the secret set)."""
        return storage.checkpoint_path(self.rules, self.pool)

    def checkpoint(self) -> Path | None:
        """Save the memo (every set proven so far) for a later :attr:`resume`; ``None`` if unsaved."""
        if len(self._search) == 0:
            return None
        keys, entries = self._search.memo_arrays()
        try:
            return storage.save_checkpoint(self.rules, self.pool, keys, entries)
        except KeypegError:
            return None

    def _load_checkpoint(self) -> None:
        saved = storage.load_checkpoint(self.rules, self.pool)
        if saved is None:
            return
        keys, entries = saved
        self._search.load_memo(keys, entries)
        self.resumed = int(keys.shape[0])

    def forget_checkpoint(self) -> None:
        """Delete the saved memo of an interrupted search (once the search has finished)."""
        storage.forget_checkpoint(self.rules, self.pool)

    # -- the answer -----------------------------------------------------------------------

    def guess(self, codes: Index, history: tuple[tuple[int, int], ...], rounds: int) -> int:
        """The optimal guess for ``codes`` (solving the set if it is not known yet)."""
        if codes.size <= 2:
            return int(codes[0])
        value, guess = self.value(codes, history, rounds)
        if value >= BIG:
            within = plural(rounds, "more guess", "more guesses")
            raise InvalidRulesError(f"no strategy solves these {plural(int(codes.size), 'code')} within {within}")
        return guess

    def tree(self) -> StrategyTree:
        """The optimal strategy as a tree (solving first if needed)."""
        started = time.perf_counter()
        total = self.solve()
        if total >= BIG:
            within = plural(self.rules.rows, "guess", "guesses")
            raise InvalidRulesError(f"no strategy solves every secret within {within}")
        distribution: dict[int, int] = {}
        made: list[Node] = []
        depths: list[int] = []
        for parent, ordinal, guess, size in self._walk(self.root(), (), self.rules.rows):
            node = Node(self.space.code(guess), size)
            depth = 1 if parent < 0 else depths[parent] + 1
            if parent >= 0:
                made[parent].children[ordinal_feedback(ordinal, self.rules.pegs)] = node
            made.append(node)
            depths.append(depth)
        for node, depth in zip(made, depths, strict=True):
            if node.size > sum(child.size for child in node.children.values()):  # its guess is a secret
                distribution[depth] = distribution.get(depth, 0) + 1
        root = made[0]
        stats = TreeStats.from_distribution(distribution)
        if stats.total != int(total):
            raise KeypegError(f"internal error: tree total {stats.total} differs from the search's {total}")
        conventions = {"strategy": "optimal", "pool": self.pool, "rows": self.rules.rows}
        if self.secrets is not None:
            conventions["secrets"] = int(self.root().size)
        return StrategyTree(self.rules, root, conventions, stats, time.perf_counter() - started)

    def _walk(self, codes: Index, history: tuple[tuple[int, int], ...], rounds: int) -> list[list[int]]:
        """The solved strategy for ``codes`` as rows ``[parent row, feedback ordinal, guess, codes]``,
        parents first (see :meth:`ExactSearch.strategy`). A set that lost its place in the search's
        table is solved again and walked on its own, so the walk ends however small the table."""
        rows: list[list[int]] = self._search.strategy(codes, rounds).tolist()
        for lost in [r for r, row in enumerate(rows) if row[2] < 0]:
            path = []
            row = lost
            while rows[row][0] >= 0:
                path.append(row)
                row = rows[row][0]
            part, steps = codes, list(history)
            for child in reversed(path):
                guess, ordinal = rows[rows[child][0]][2], rows[child][1]
                part = part[self.space.feedbacks(guess, part) == ordinal]
                steps.append((guess, ordinal))
            left = rounds - len(path)
            self.value(part, tuple(steps), left)
            sub = self._walk(part, tuple(steps), left)
            rows[lost][2] = sub[0][2]
            offset = len(rows) - 1
            rows.extend([lost if p == 0 else p + offset, f, g, n] for p, f, g, n in sub[1:])
        return rows


class Optimal(Strategy):
    """The exact optimum (fewest total guesses over all secrets): the saved or shipped optimal tree
    while the game follows it, else searched on demand (the solver and its memo are shared)."""

    name = "optimal"
    about = "fewest total guesses over all secrets (exact search; Koyama and Lai 1993)"
    measure = "minus the number of parts (the optimal guess is played whatever its cost)"

    def _choose(self, position: Position) -> int:
        if (position.depth == 0 and self.first is not None) or position.candidates.size == 0:
            return super()._choose(position)
        return self._decide(position)

    def searches(self, position: Position) -> bool:
        """Whether deciding at ``position`` takes an exact search: more than two codes fit and no saved
        or shipped optimal tree answers it."""
        if position.candidates.size <= 2 or (position.depth == 0 and self.first is not None):
            return False
        if self.first is None:
            saved = saved_optimal(position.space.rules, self.pool, storage.cache_dir())
            if saved is not None and _follow(saved, position) is not None:
                return False
        return True

    def _decide(self, position: Position) -> int:
        rules = position.space.rules
        if self.first is None:
            saved = saved_optimal(rules, self.pool, storage.cache_dir())
            if saved is not None:
                found = _follow(saved, position)
                if found is not None:
                    return found
        rounds = max(rules.rows - position.depth, 1)
        return optimal_solver(rules, self.pool).guess(position.candidates, position.history, rounds)

    def _cost(self, position: Position, guess: int) -> float | None:
        return float(_minus_parts(position, np.array([guess], dtype=np.intp))[0])

    def _runners_up(self, position: Position, chosen: int, n: int) -> Rated:
        return self._cheapest_runners_up(position, chosen, n, _minus_parts)


def _minus_parts(position: Position, guesses: Index) -> npt.NDArray[np.float64]:
    return position.space.partition_costs(guesses, position.candidates, "fewest-parts")


@lru_cache(maxsize=16)
def optimal_solver(rules: Rules, pool: Pool = "all") -> OptimalSolver:
    """The solver shared by every optimal player of these rules and pool, with its memo; a search
    stopped by Ctrl-C goes on when asked again."""
    return OptimalSolver(rules, pool=pool)


@lru_cache(maxsize=32)
def saved_optimal(rules: Rules, pool: Pool, cache: Path) -> StrategyTree | None:
    """The optimal tree for these rules saved in the ``cache`` folder or shipped, read once per folder."""
    return storage.load_optimal_tree(rules, pool, cache=cache)


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


def secret_codes(rules: Rules, name: str) -> Index | None:
    """The code indices of the secret set ``name`` of ``rules`` (:func:`secret_set` on the rules' code
    space; ``None`` for all codes): what a face hands :class:`OptimalSolver` without touching the kernels."""
    return secret_set(CodeSpace.of(rules), name)


def saved_tree_path(rules: Rules, pool: Pool, secrets: str = "all") -> Path:
    """Where the optimal tree for these rules and options is saved."""
    return storage.optimal_tree_path(rules, pool, secrets)


def save_optimal(tree: StrategyTree, pool: Pool, secrets: str = "all") -> Path:
    """Save a solved tree where play and ``keypeg next`` look for it; returns the path."""
    path = storage.save_optimal_tree(tree, pool, secrets)
    saved_optimal.cache_clear()
    return path


def load_optimal(rules: Rules, pool: Pool, secrets: str = "all") -> StrategyTree | None:
    """A saved or shipped tree that is optimal for these rules and options, if there is one, in the
    rules' symbols and rows (see :func:`keypeg.storage.find_optimal_tree`)."""
    found = storage.find_optimal_tree(rules, pool, secrets)
    return None if found is None else found.for_rules(rules)
