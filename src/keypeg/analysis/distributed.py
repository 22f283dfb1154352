"""Whole strategy trees as tasks for :mod:`keypeg.cluster`: the same tree as :func:`build_tree`.

The positions with many codes are decided one task each (the strategy's guess there), and split
here; the smaller ones are grown whole by :func:`~keypeg.analysis.tree.build_tree`, several
siblings to a task. Tasks get small inputs (the rules, the strategy, the history, the codes as
32-bit indices) and send back compact ones (a guess index; a grown subtree as
:class:`~keypeg.strategy_tree.FlatNodes` in small integers, about 10 bytes a node plus the colours),
and the pieces are joined into one :class:`StrategyTree`, node for node the one built in one process.
A strategy that draws at random (``random``, ``careless``, ``genetic``, or a random tie-break)
depends on the order of its decisions, so its tree is one task.
"""

from __future__ import annotations

import pickle
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt

from keypeg.cluster import Cluster, Workers
from keypeg.errors import InvalidRulesError, KeypegError
from keypeg.kernels import CodeSpace, Index
from keypeg.rules import Rules
from keypeg.strategies.base import Pool, Position, Strategy
from keypeg.strategy_tree import FlatNodes, StrategyTree, TreeStats

if TYPE_CHECKING:
    from keypeg.strategies.optimal import SearchProgress

__all__ = [
    "DistributedSolver",
    "distributed_tree",
    "distributed_totals",
    "check_workers",
    "distributed_optimum",
    "TreeTask",
    "SearchTask",
    "Grown",
    "Searched",
    "Traffic",
    "tree_task",
    "search_task",
    "split_size",
    "TASKS_PER_WORKER",
]

TASKS_PER_WORKER = 16
"""A position with more codes than the game's codes over this many tasks per worker is decided as a
task of its own and split; smaller ones are grown whole."""
TASKS_OUT_PER_WORKER = 2
"""The optimal search keeps this many tasks a worker out at a time, so that each is sent with a recent
best total."""
RANDOM = frozenset({"random", "careless", "genetic"})
"""Strategies that draw at random at every turn: their tree is grown whole, as one task."""


class Part(NamedTuple):
    """A position to work on: the scored guesses (code index, feedback ordinal) and the codes that
    fit them (``None``: every code)."""

    history: tuple[tuple[int, int], ...]
    codes: npt.NDArray[np.int32] | None


@dataclass(frozen=True)
class TreeTask:
    """Decide the strategy's guess at one part, or grow the subtrees of every part (with ``totals``,
    send back only the secrets each solves in each round)."""

    rules: Rules
    strategy: Strategy
    decide: bool
    parts: tuple[Part, ...]
    totals: bool = False


class Grown(NamedTuple):
    """A subtree as it travels: :class:`FlatNodes` in small integers (colours of each guess, codes,
    parent's row, feedback ordinal from the parent), and the secrets it solves in each round from its
    root."""

    colors: npt.NDArray[np.int8]
    sizes: npt.NDArray[np.int32]
    parents: npt.NDArray[np.int32]
    feedbacks: npt.NDArray[np.int8]
    rounds: tuple[int, ...]

    @classmethod
    def of(cls, tree: StrategyTree, totals: bool = False) -> Grown:
        """A tree, ready to travel (``totals``: its secrets solved in each round only, no node)."""
        rounds = tuple(tree.stats.distribution.get(r, 0) for r in range(1, tree.stats.max + 1))
        if totals:
            none = np.zeros(0, dtype=np.int32)
            return cls(np.zeros((0, tree.rules.pegs), dtype=np.int8), none, none, none.astype(np.int8), rounds)
        flat = tree.flat()
        return cls(
            flat.colors.astype(np.int8),
            flat.sizes.astype(np.int32),
            flat.parents.astype(np.int32),
            flat.feedbacks.astype(np.int8),
            rounds,
        )


Answer = tuple[int | tuple[Grown, ...], float]
"""A task's result and the processor seconds it took (its worker's, all threads: the work, however
busy the machine)."""


def tree_task(task: TreeTask) -> Answer:
    """Run one :class:`TreeTask` (on a worker): the guess index, or the grown subtrees."""
    started = time.process_time()
    space = CodeSpace.of(task.rules)
    strategy = task.strategy
    if task.decide:
        (part,) = task.parts
        return _decide(space, strategy, part), time.process_time() - started
    from keypeg.analysis.tree import build_tree

    grown = tuple(
        Grown.of(build_tree(strategy, task.rules, secrets=_codes(space, part.codes), history=part.history), task.totals)
        for part in task.parts
    )
    return grown, time.process_time() - started


def _decide(space: CodeSpace, strategy: Strategy, part: Part) -> int:
    """The strategy's guess at ``part``: below the root, the tree kernel's decision where it makes it
    (as :func:`~keypeg.analysis.tree.build_tree` does: the same guess as :meth:`Strategy.rank`, without a
    Python pass over every guess: at 7x10 a part has up to a million codes and the pool ten million)."""
    codes = _codes(space, part.codes)
    rule = strategy.tree_rule(space.rules) if part.history else None
    if rule is not None and space.grows_trees:
        from keypeg.kernels import compile_tree_kernel

        compile_tree_kernel()
        played = [g for g, _ in part.history]
        top = space.grow(rule, played, codes, depth=1, max_depth=1)
        if top is not None:
            return int(top.guesses[0])
    strategy.restart()
    choice = strategy.rank(Position(space, part.history, codes))
    return int(choice.index if choice.index is not None else space.index(choice.guess))


def _codes(space: CodeSpace, codes: npt.NDArray[np.int32] | None) -> Index:
    return space.all if codes is None else codes.astype(np.intp)


Wide = npt.NDArray[np.int64]


class _Rows:
    """A tree put together from nodes decided here and subtrees grown elsewhere, as the rows of
    :class:`FlatNodes` (each after its parent), and the secrets solved in each round."""

    def __init__(self, space: CodeSpace, progress: Callable[[int], None] | None, keep: bool = True) -> None:
        self.space = space
        self.progress = progress
        self.keep = keep
        """Whether the rows are kept (else only counted, and the secrets solved in each round)."""
        self.pieces: list[
            tuple[npt.NDArray[np.int8], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]
        ] = []
        self.rows = 0
        self.distribution: dict[int, int] = {}

    def solved(self, round_: int, count: int = 1) -> None:
        """Count secrets solved by the ``round_``-th guess."""
        self.distribution[round_] = self.distribution.get(round_, 0) + count
        if self.progress is not None:
            self.progress(count)

    def node(self, guess: int, size: int, parent: int, feedback: int) -> int:
        """Add a node (its guess a code index) below row ``parent``; its row."""
        one = np.ones(1, dtype=np.int64)
        if self.keep:
            self.pieces.append((self.space.codes[[guess]], one * size, one * parent, one * feedback))
        self.rows += 1
        return self.rows - 1

    def subtree(self, grown: Grown, parent: int, feedback: int, depth: int) -> None:
        """Add a subtree below row ``parent``, its root played after ``depth`` guesses."""
        if self.keep:
            parents = grown.parents.astype(np.int64) + self.rows
            parents[0] = parent
            feedbacks = grown.feedbacks.astype(np.int64)
            feedbacks[0] = feedback
            self.pieces.append((grown.colors, grown.sizes.astype(np.int64), parents, feedbacks))
        self.rows += grown.sizes.size
        for r, count in enumerate(grown.rounds, depth + 1):
            if count:
                self.solved(r, count)

    def flat(self) -> FlatNodes:
        """Every row, in the order added."""
        colors, sizes, parents, feedbacks = zip(*self.pieces, strict=True)
        return FlatNodes(
            np.concatenate(colors), np.concatenate(sizes), np.concatenate(parents), np.concatenate(feedbacks)
        )


def split_size(codes: int, workers: int) -> int:
    """The most codes a position grown whole as a task has (:data:`TASKS_PER_WORKER`)."""
    return max(1, codes // (TASKS_PER_WORKER * workers))


@dataclass
class Traffic:
    """What the tasks of a tree cost and moved: per kind (``decide``, ``grow``, ``search``), the tasks,
    their processor seconds in all and the longest, and the bytes sent and received (pickled)."""

    tasks: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    longest: dict[str, float] = field(default_factory=dict)
    sent: int = 0
    received: int = 0
    largest: int = 0
    """The most codes in a task that grows subtrees or searches."""
    log: list[tuple[str, int, int, float]] = field(default_factory=list)
    """Every task: its kind, the guesses played before it, its codes, its processor seconds."""

    def count(self, kind: str, seconds: float, depth: int = 0, codes: int = 0) -> None:
        """Count a finished task."""
        self.tasks[kind] = self.tasks.get(kind, 0) + 1
        self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds
        self.longest[kind] = max(self.longest.get(kind, 0.0), seconds)
        self.log.append((kind, depth, codes, seconds))


def _size(value: object) -> int:
    return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def distributed_tree(
    strategy: Strategy,
    rules: Rules,
    workers: Workers,
    *,
    split: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[StrategyTree, Traffic]:
    """``strategy``'s whole tree on ``rules`` (as :func:`~keypeg.analysis.tree.build_tree` builds it),
    made by ``workers``: positions of more than ``split`` codes (by default :func:`split_size`) decided
    one task each, the others grown whole, siblings together up to ``split`` codes a task."""
    started = time.perf_counter()
    tree, traffic = _grow(strategy, rules, workers, split, progress, keep=True)
    stats = TreeStats.from_distribution(tree.distribution)
    return StrategyTree(rules, tree.flat(), strategy.conventions(), stats, time.perf_counter() - started), traffic


def distributed_totals(
    strategy: Strategy,
    rules: Rules,
    workers: Workers,
    *,
    split: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[TreeStats, Traffic]:
    """The figures of ``strategy``'s whole tree on ``rules`` (the secrets solved in each round), grown as
    :func:`distributed_tree` grows it but kept nowhere: each task sends back its figures only, so neither
    the workers (a task's subtrees at a time) nor this process (the parts waiting, 4 bytes a code) ever
    hold the tree: the way to the games of ten million codes (7x10, 8x7) and more."""
    tree, traffic = _grow(strategy, rules, workers, split, progress, keep=False)
    return TreeStats.from_distribution(tree.distribution), traffic


def check_workers(rules: Rules, strategy: Strategy, workers: Workers, split: int) -> None:
    """Refuse (:class:`~keypeg.analysis.cost.TooCostlyError`, one line) a tree whose share a worker would
    hold (:func:`~keypeg.analysis.cost.worker_tree_cost`) is more than the memory a worker has."""
    from keypeg.analysis.cost import TooCostlyError, format_bytes, worker_tree_cost

    limits = workers.memory_limits()
    if not limits:
        return
    from keypeg.machine import cores

    estimate = worker_tree_cost(rules, strategy.name, split, workers.threads or cores())
    least = min(limits.values())
    if estimate.memory > least:
        raise TooCostlyError(
            f"{estimate.work} would take about {format_bytes(estimate.memory)} of memory ({estimate.biggest()}), "
            f"more than the {format_bytes(least)} a worker has: run fewer workers on this machine, or on a "
            "cluster whose workers have more memory"
        )


def _grow(
    strategy: Strategy,
    rules: Rules,
    workers: Workers,
    split: int | None,
    progress: Callable[[int], None] | None,
    *,
    keep: bool,
) -> tuple[_Rows, Traffic]:
    """The tree's rows as the tasks send them (``keep``: kept, else only counted), and the traffic."""
    space = CodeSpace.of(rules)
    strategy.restart()
    whole = strategy.name in RANDOM or strategy.tie == "random"
    split = rules.size if whole else split if split is not None else split_size(rules.size, workers.count)
    check_workers(rules, strategy, workers, split)
    traffic = Traffic()
    tree = _Rows(space, progress, keep)
    # what each task's result is for: (the parent's row, the feedback to it from the parent, the part)
    waiting: dict[int, tuple[tuple[int, int, Part], ...]] = {}

    with workers.queue(tree_task) as tasks:

        def send(decide: bool, places: list[tuple[int, int, Part]]) -> None:
            task = TreeTask(rules, strategy, decide, tuple(part for _, _, part in places), not keep)
            traffic.sent += _size(task)
            if not decide:
                traffic.largest = max(traffic.largest, sum(_count(space, part) for _, _, part in places))
            waiting[tasks.put(task, priority=1 if decide else 0)] = tuple(places)

        def share(places: list[tuple[int, int, Part]]) -> None:
            """Hand out parts: the big ones decided one a task, the others grown together up to
            ``split`` codes a task."""
            batch: list[tuple[int, int, Part]] = []
            codes = 0
            for place in places:
                size = _count(space, place[2])
                if size > split:
                    send(True, [place])
                    continue
                if batch and codes + size > split:
                    send(False, batch)
                    batch, codes = [], 0
                batch.append(place)
                codes += size
            if batch:
                send(False, batch)

        share([(-1, -1, Part((), None))])
        for key, (answer, seconds) in tasks:
            places = waiting.pop(key)
            traffic.received += _size((answer, seconds))
            if isinstance(answer, int):
                ((parent, ordinal, part),) = places
                traffic.count("decide", seconds, len(part.history), _count(space, part))
                row = tree.node(answer, _count(space, part), parent, ordinal)
                round_ = len(part.history) + 1
                below = []
                for value, codes in space.split(answer, _codes(space, part.codes)):
                    if value == space.win:
                        tree.solved(round_)
                    elif codes.size == 1 and strategy.plays_lone_code:  # it guesses a lone fitting code
                        tree.node(int(codes[0]), 1, row, value)
                        tree.solved(round_ + 1)
                    else:
                        below.append((row, value, Part((*part.history, (answer, value)), codes.astype(np.int32))))
                share(below)
                continue
            grown_codes = sum(_count(space, part) for _, _, part in places)
            traffic.count("grow", seconds, min(len(part.history) for _, _, part in places), grown_codes)
            for (parent, ordinal, part), grown in zip(places, answer, strict=True):
                tree.subtree(grown, parent, ordinal, len(part.history))
    return tree, traffic


def _count(space: CodeSpace, part: Part) -> int:
    return space.size if part.codes is None else int(part.codes.size)


# -- the optimal search -----------------------------------------------------------------------


@dataclass(frozen=True)
class SearchTask:
    """Solve some parts of one first guess (the largest first) within what the best total found so
    far leaves them, and grow their optimal subtrees when every one fits.

    ``rest`` is the first guess's total outside these parts at its least: the codes, plus the lower
    bounds of its other parts; ``best`` the best total found when the task was sent."""

    rules: Rules
    pool: Pool
    guess: int
    parts: tuple[tuple[int, npt.NDArray[np.int32]], ...]
    rest: int
    best: int


class Searched(NamedTuple):
    """A :class:`SearchTask`'s answer: the exact value of each part, or (``refuted``) a lower bound
    of the first guess's total at least the best found; the subtrees when none is refuted; the sets
    searched; the processor seconds taken."""

    values: tuple[int, ...]
    refuted: int | None
    grown: tuple[Grown, ...]
    nodes: int
    seconds: float


def search_task(task: SearchTask) -> Searched:
    """Run one :class:`SearchTask` (on a worker, whose solver and memo serve all its tasks)."""
    from keypeg.analysis.tree import build_tree
    from keypeg.strategies.optimal import Optimal, optimal_solver

    started = time.process_time()
    rules = task.rules
    solver = optimal_solver(rules, task.pool)
    before = solver.nodes
    bounds = [_lower_bound(rules, codes.size, rules.rows - 1) for _, codes in task.parts]
    least = task.rest + sum(bounds)
    values: list[int] = []
    parts = [(((task.guess, f),), codes.astype(np.intp)) for f, codes in task.parts]
    for (history, codes), bound in zip(parts, bounds, strict=True):
        budget = task.best - (least - bound)
        value, guess = solver.value(codes, history, rules.rows - 1, budget)
        if guess < 0:
            return Searched((), least - bound + value, (), solver.nodes - before, time.process_time() - started)
        values.append(value)
        least += value - bound
    grown = tuple(
        Grown.of(build_tree(Optimal(pool=task.pool), rules, secrets=codes, history=history)) for history, codes in parts
    )
    return Searched(tuple(values), None, grown, solver.nodes - before, time.process_time() - started)


def _lower_bound(rules: Rules, size: int, rounds: int) -> int:
    from keypeg.strategies.optimal import lower_bounds

    return int(lower_bounds(size, len(rules.feedbacks()) - 1, rounds)[size])


@dataclass
class _FirstGuess:
    """What is known of one first guess: its parts, their values found so far, its subtrees."""

    guess: int
    parts: list[tuple[int, Index]]
    bounds: list[int]
    size: int
    values: dict[int, int] = field(default_factory=dict)
    grown: dict[int, Grown] = field(default_factory=dict)
    refuted: bool = False

    @property
    def least(self) -> int:
        """Its total at least: the codes, the parts solved, the lower bounds of the others."""
        return self.size + sum(self.values.get(k, bound) for k, bound in enumerate(self.bounds))

    @property
    def done(self) -> bool:
        return len(self.values) == len(self.parts)


def distributed_optimum(
    rules: Rules,
    workers: Workers,
    *,
    pool: Pool = "all",
    secrets: Index | None = None,
    split: int | None = None,
    progress: Callable[[SearchProgress], None] | None = None,
) -> tuple[StrategyTree, int, Traffic]:
    """The optimal strategy (fewest total guesses) on ``rules`` found by ``workers``: each first guess
    (one per symmetry class, the best lower bound first) split into its parts, solved as tasks of up to
    ``split`` codes. A few tasks per worker are out at a time, each sent with the best total found by
    then, and a task stops as soon as its first guess cannot beat it; the parts of a first guess that
    cannot are never sent. Returns the tree, the sets searched, and what the tasks cost and moved;
    ``progress`` is called as each task finishes."""
    from keypeg.strategies.optimal import BIG, SearchProgress
    from keypeg.symmetry import representatives

    started = time.perf_counter()
    space = CodeSpace.of(rules)
    root = space.all if secrets is None else np.sort(np.asarray(secrets, dtype=np.intp))
    n = int(root.size)
    split = split if split is not None else split_size(n, workers.count)
    traffic = Traffic()
    guesses = []
    for guess in representatives(space, space.all if pool == "all" else root, (), root).tolist():
        parts = [(f, codes) for f, codes in space.split(guess, root, keep_win=False)]
        parts.sort(key=lambda part: -part[1].size)
        bounds = [_lower_bound(rules, codes.size, rules.rows - 1) for _, codes in parts]
        guesses.append(_FirstGuess(guess, parts, bounds, n))
    guesses.sort(key=lambda g: (g.least, g.guess))
    todo: deque[tuple[_FirstGuess, list[int]]] = deque()  # the parts of each first guess, a task's worth each
    for first in guesses:
        batch: list[int] = []
        codes = 0
        for k, (_, part) in enumerate(first.parts):
            batch.append(k)
            codes += int(part.size)
            if codes >= split or k == len(first.parts) - 1:
                todo.append((first, batch))
                traffic.largest = max(traffic.largest, codes)
                batch, codes = [], 0
    best = min((g for g in guesses if g.done), key=lambda g: g.least, default=None)  # a guess that is every code
    nodes = 0
    out_at_once = TASKS_OUT_PER_WORKER * workers.count
    with workers.queue(search_task) as tasks:
        waiting: dict[int, tuple[_FirstGuess, list[int]]] = {}

        def send() -> None:
            while todo and len(waiting) < out_at_once:
                first, batch = todo.popleft()
                if first.refuted:
                    continue
                rest = first.least - sum(first.bounds[i] for i in batch)
                chosen = tuple((first.parts[i][0], first.parts[i][1].astype(np.int32)) for i in batch)
                task = SearchTask(rules, pool, first.guess, chosen, rest, best.least if best is not None else BIG)
                traffic.sent += _size(task)
                waiting[tasks.put(task)] = (first, batch)

        send()
        for key, answer in tasks:
            first, batch = waiting.pop(key)
            traffic.received += _size(answer)
            traffic.count("search", answer.seconds, 1, sum(int(first.parts[k][1].size) for k in batch))
            nodes += answer.nodes
            if answer.refuted is not None:
                first.refuted = True
            elif not first.refuted:
                first.values.update(zip(batch, answer.values, strict=True))
                first.grown.update(zip(batch, answer.grown, strict=True))
                if first.done and (best is None or first.least < best.least):
                    best = first
            limit = best.least if best is not None else BIG
            for other in guesses:
                if other is not best and other.least >= limit:
                    other.refuted = True
            send()
            if progress is not None:
                open_ = [g.least for g in guesses if not g.refuted and g is not best]
                progress(
                    SearchProgress(
                        nodes=nodes,
                        best=float(best.least) if best is not None else float("inf"),
                        bound=float(min(open_, default=limit)),
                        seconds=time.perf_counter() - started,
                        first_guesses_done=len(guesses) - len(open_),
                        first_guesses=len(guesses),
                        parts_done=traffic.tasks["search"],
                        parts=traffic.tasks["search"] + len(waiting) + len(todo),
                    )
                )
    if best is None or best.least >= BIG:
        raise InvalidRulesError(f"no strategy solves every secret within {rules.rows} guesses")
    return _optimal_tree(rules, space, best, pool, secrets, started), nodes, traffic


def _optimal_tree(
    rules: Rules, space: CodeSpace, first: _FirstGuess, pool: Pool, secrets: Index | None, started: float
) -> StrategyTree:
    """The tree of the best first guess and its subtrees."""
    tree = _Rows(space, None)
    root = tree.node(first.guess, first.size, -1, -1)
    if first.size > sum(codes.size for _, codes in first.parts):  # the first guess can be the secret
        tree.solved(1)
    for k, (value, _) in enumerate(first.parts):
        tree.subtree(first.grown[k], root, value, 1)
    stats = TreeStats.from_distribution(tree.distribution)
    if stats.total != first.least:
        raise KeypegError(f"internal error: tree total {stats.total} differs from the search's {first.least}")
    conventions: dict[str, object] = {"strategy": "optimal", "pool": pool, "rows": rules.rows}
    if secrets is not None:
        conventions["secrets"] = int(first.size)
    return StrategyTree(rules, tree.flat(), conventions, stats, time.perf_counter() - started)


class DistributedSolver:
    """:func:`distributed_optimum` behind the face of :class:`~keypeg.strategies.optimal.OptimalSolver`
    that ``keypeg optimal`` uses (nothing to resume or save: an interrupted search starts again)."""

    resumed = 0

    def __init__(
        self,
        rules: Rules,
        cluster: Cluster,
        *,
        pool: Pool = "all",
        secrets: Index | None = None,
        progress: Callable[[SearchProgress], None] | None = None,
        finished: Callable[[Workers, Traffic], None] | None = None,
    ) -> None:
        self.rules = rules
        self.cluster = cluster
        self.pool: Pool = pool
        self.secrets = secrets
        self.progress = progress
        self.finished = finished
        """Called with the workers and what the tasks cost and moved, before the cluster closes."""
        self.nodes = 0

    def tree(self) -> StrategyTree:
        """The optimal strategy, searched by the cluster's workers."""
        with self.cluster.workers() as place:
            tree, self.nodes, traffic = distributed_optimum(
                self.rules, place, pool=self.pool, secrets=self.secrets, progress=self.progress
            )
            if self.finished is not None:
                self.finished(place, traffic)
        return tree

    def checkpoint_path(self) -> Path:  # pragma: no cover - never resumed
        from keypeg.storage import checkpoint_path

        return checkpoint_path(self.rules, self.pool)

    def checkpoint(self) -> None:
        """Nothing is kept of an interrupted distributed search."""

    def forget_checkpoint(self) -> None:
        """Nothing was kept."""
