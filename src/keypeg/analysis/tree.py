"""The strategy tree: a strategy played against every secret at once.

Secrets are grouped by the feedback seen so far; each group gets one guess and is
split by its feedback, until every secret is guessed. The tree holds the guess
for every history that can happen.

Strategies whose decision the tree kernel makes (:meth:`Strategy.tree_rule`) grow
their subtrees in compiled code (:meth:`CodeSpace.grow`), the subtrees after the
first guess (and, on several threads, after the first two) side by side; the others,
and every strategy with ``compiled=False`` (the reference the kernel is tested
against), decide node by node in Python.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

import numpy as np
import numpy.typing as npt

from keypeg.errors import KeypegError
from keypeg.kernels import CodeSpace, Grown, Index, TreeRule, ordinal_feedback, threads
from keypeg.rules import Rules
from keypeg.strategies.base import Position, Strategy
from keypeg.strategy_tree import FlatNodes, Node, StrategyTree, TreeStats

__all__ = ["build_tree", "MAX_DEPTH", "Node", "StrategyTree", "TreeStats"]

MAX_DEPTH = 64
"""A strategy still guessing this deep is making no progress."""
TASKS_PER_THREAD = 4
"""On several threads, nodes are split (down to the second guess) until no subtree left to grow holds
more than this fraction of a thread's share of the secrets."""

ProgressCallback = Callable[[int], None]
Task = tuple[tuple[int, ...], Index, int, int, int]
"""A subtree left to grow: the guesses before it, its codes, its parent's row, the feedback to it, its depth."""


def build_tree(
    strategy: Strategy,
    rules: Rules,
    *,
    secrets: Index | None = None,
    history: tuple[tuple[int, int], ...] = (),
    progress: ProgressCallback | None = None,
    compiled: bool = True,
) -> StrategyTree:
    """Play ``strategy`` against every secret (or the codes at ``secrets``) and keep the tree.

    ``history`` (code index, feedback ordinal pairs) is what was played before the tree
    starts; ``secrets`` must then be the codes that fit it. ``progress`` is called with
    the number of secrets newly solved as the work goes on. ``compiled=False`` decides
    every node in Python (the slow reference).
    """
    space = CodeSpace.of(rules)
    strategy.reset(rules)
    started = time.perf_counter()
    codes = space.all if secrets is None else np.asarray(secrets, dtype=np.intp)
    rule = strategy.tree_rule(rules) if compiled and space.grows_trees else None
    root: Node | FlatNodes
    if rule is None:
        root, distribution = _python_tree(strategy, space, codes, history, progress)
    else:
        root, distribution = _compiled_tree(strategy, rule, space, codes, history, progress)
    seconds = time.perf_counter() - started
    return StrategyTree(rules, root, strategy.conventions(), TreeStats.from_distribution(distribution), seconds)


def _no_progress(strategy: Strategy) -> KeypegError:
    return KeypegError(f"strategy {strategy.name!r} makes no progress after {MAX_DEPTH} guesses")


def _python_tree(
    strategy: Strategy,
    space: CodeSpace,
    codes: Index,
    history: tuple[tuple[int, int], ...],
    progress: ProgressCallback | None,
) -> tuple[Node, dict[int, int]]:
    """The tree decided node by node by :meth:`Strategy.rank`."""
    win, pegs = space.win, space.pegs
    distribution: dict[int, int] = {}

    def solved(depth: int) -> None:
        distribution[depth] = distribution.get(depth, 0) + 1
        if progress is not None:
            progress(1)

    start = len(history)

    def grow(history: tuple[tuple[int, int], ...], candidates: Index) -> Node:
        depth = len(history) + 1 - start
        if depth > MAX_DEPTH:
            raise _no_progress(strategy)
        choice = strategy.rank(Position(space, history, candidates))
        guess = choice.index if choice.index is not None else space.index(choice.guess)
        node = Node(choice.guess, int(candidates.size))
        for value, part in space.split(guess, candidates):
            if value == win:
                solved(depth)
            elif part.size == 1:  # the strategy guesses a lone fitting code
                node.children[ordinal_feedback(value, pegs)] = Node(space.code(int(part[0])), 1)
                solved(depth + 1)
            else:
                child = grow((*history, (guess, value)), part)
                node.children[ordinal_feedback(value, pegs)] = child
        return node

    return grow(history, codes), distribution


class _Nodes:
    """Nodes decided one at a time (the first levels), as the rows of :class:`FlatNodes`."""

    def __init__(self) -> None:
        self.guesses: list[int] = []
        self.sizes: list[int] = []
        self.parents: list[int] = []
        self.feedbacks: list[int] = []

    def add(self, guess: int, size: int, parent: int, feedback: int) -> int:
        self.guesses.append(guess)
        self.sizes.append(size)
        self.parents.append(parent)
        self.feedbacks.append(feedback)
        return len(self.guesses) - 1


def _compiled_tree(
    strategy: Strategy,
    rule: TreeRule,
    space: CodeSpace,
    codes: Index,
    history: tuple[tuple[int, int], ...],
    progress: ProgressCallback | None,
) -> tuple[FlatNodes, dict[int, int]]:
    """The tree grown by the kernel: the first levels here, their subtrees in compiled code."""
    if codes.size == 0:
        raise KeypegError("no code fits the scores given: at least one of them is wrong")
    played = tuple(g for g, _ in history)
    if not history:  # the first guess: the strategy's conventions (its first code, its symmetry classes)
        root_guess = strategy.rank(Position(space, history, codes)).index
        assert root_guess is not None
    else:
        root_guess = space.decide(rule, played, codes)
    solved = np.zeros(MAX_DEPTH + 2, dtype=np.int64)
    top = _Nodes()
    tasks: list[Task] = []

    def expand(path: tuple[int, ...], part: Index, parent: int, feedback: int, depth: int, guess: int) -> None:
        row = top.add(guess, int(part.size), parent, feedback)
        for value, piece in space.split(guess, part):
            if value == space.win:
                solved[depth] += 1
            elif piece.size == 1:
                top.add(int(piece[0]), 1, row, value)
                solved[depth + 1] += 1
            else:
                tasks.append(((*path, guess), piece, row, value, depth + 1))

    expand(played, codes, -1, -1, 1, root_guess)
    workers = threads()
    if workers > 1:
        share = codes.size / (TASKS_PER_THREAD * workers)
        while tasks:
            largest = max(range(len(tasks)), key=lambda i: tasks[i][1].size)
            path, part, parent, feedback, depth = tasks[largest]
            if part.size <= share or depth > 2:
                break
            del tasks[largest]
            expand(path, part, parent, feedback, depth, space.decide(rule, path, part))
    if progress is not None:
        progress(int(codes.size) - sum(int(t[1].size) for t in tasks))
    tasks.sort(key=lambda t: -t[1].size)  # the largest first: the threads finish together

    def run(task: Task) -> Grown:
        path, part, _, _, depth = task
        grown = space.grow(rule, path, part, max_depth=MAX_DEPTH - depth + 1)
        if grown is None:
            raise _no_progress(strategy)
        return grown

    results: list[Grown | None] = [None] * len(tasks)
    if workers > 1 and len(tasks) > 1:
        with ThreadPoolExecutor(workers) as pool:
            futures: dict[Future[Grown], int] = {pool.submit(run, task): i for i, task in enumerate(tasks)}
            pending = set(futures)
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        i = futures[future]
                        results[i] = future.result()
                        if progress is not None:
                            progress(int(tasks[i][1].size))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    else:
        for i, task in enumerate(tasks):
            results[i] = run(task)
            if progress is not None:
                progress(int(task[1].size))
    return _assemble(space, top, tasks, results, solved)


def _assemble(
    space: CodeSpace, top: _Nodes, tasks: list[Task], results: list[Grown | None], solved: npt.NDArray[np.int64]
) -> tuple[FlatNodes, dict[int, int]]:
    """One :class:`FlatNodes` from the first levels and the grown subtrees, and the secrets solved per round."""
    guesses = [np.array(top.guesses, dtype=np.int64)]
    sizes = [np.array(top.sizes, dtype=np.int64)]
    parents = [np.array(top.parents, dtype=np.int64)]
    feedbacks = [np.array(top.feedbacks, dtype=np.int64)]
    offset = len(top.guesses)
    for (_, _, parent, feedback, depth), grown in zip(tasks, results, strict=True):
        assert grown is not None
        guesses.append(grown.guesses)
        sizes.append(grown.sizes)
        above = grown.parents + offset
        above[0] = parent
        parents.append(above)
        ordinals = grown.feedbacks.copy()
        ordinals[0] = feedback
        feedbacks.append(ordinals)
        solved[depth - 1 :] += grown.solved
        offset += grown.guesses.size
    rows = np.concatenate(guesses)
    flat = FlatNodes(space.codes[rows], np.concatenate(sizes), np.concatenate(parents), np.concatenate(feedbacks))
    distribution = {int(d): int(n) for d, n in enumerate(solved.tolist()) if n}
    return flat, distribution
