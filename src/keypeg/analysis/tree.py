"""The strategy tree: a strategy played against every secret at once.

Secrets are grouped by the feedback seen so far; each group gets one guess and is
split by its feedback, until every secret is guessed. The tree holds the guess
for every history that can happen.

Strategies whose decision the tree kernel makes (:meth:`Strategy.tree_rule`) grow
their subtrees in compiled code (:meth:`CodeSpace.grow`), the subtrees after the
first guess side by side on several threads; the others,
and every strategy with ``compiled=False`` (the reference the kernel is tested
against), decide node by node in Python.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

import numpy as np

from keypeg.errors import KeypegError
from keypeg.kernels import CodeSpace, FlatSubtree, Index, TreeRule, compile_tree_kernel, ordinal_feedback, threads
from keypeg.rules import Rules
from keypeg.strategies.base import Position, Strategy
from keypeg.strategy_tree import FlatNodes, Node, StrategyTree, TreeStats

__all__ = ["build_tree", "MAX_DEPTH", "Node", "StrategyTree", "TreeStats"]

MAX_DEPTH = 64
"""A strategy still guessing this deep is making no progress."""

ProgressCallback = Callable[[int], None]


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
    strategy.restart()
    started = time.perf_counter()
    codes = space.all if secrets is None else np.asarray(secrets, dtype=np.intp)
    rule = strategy.tree_rule(rules) if compiled and space.grows_trees else None  # as compiled() says
    root: Node | FlatNodes
    if rule is None:
        root, distribution = _python_tree(strategy, space, codes, history, progress)
    else:
        root, distribution = _compiled_tree(strategy, rule, space, codes, history, progress)
    seconds = time.perf_counter() - started
    return StrategyTree(rules, root, strategy.conventions(), TreeStats.from_distribution(distribution), seconds)


def compiled(strategy: Strategy, rules: Rules) -> bool:
    """Whether :func:`build_tree` grows ``strategy``'s trees of ``rules`` in the tree kernel (the only
    kernel module it then compiles: ``_tree``)."""
    return strategy.tree_rule(rules) is not None and CodeSpace.of(rules).grows_trees


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
            elif part.size == 1 and strategy.plays_lone_code:  # the strategy guesses a lone fitting code
                node.children[ordinal_feedback(value, pegs)] = Node(space.code(int(part[0])), 1)
                solved(depth + 1)
            else:
                child = grow((*history, (guess, value)), part)
                node.children[ordinal_feedback(value, pegs)] = child
        return node

    return grow(history, codes), distribution


def _compiled_tree(
    strategy: Strategy,
    rule: TreeRule,
    space: CodeSpace,
    codes: Index,
    history: tuple[tuple[int, int], ...],
    progress: ProgressCallback | None,
) -> tuple[FlatNodes, dict[int, int]]:
    """The tree grown by the kernel: the first guess here, then the subtree after each of its answers
    (side by side on several threads), the progress told after each."""
    if codes.size == 0:
        raise KeypegError("no code fits the scores given: at least one of them is wrong")
    played = [g for g, _ in history]
    root, pool = -1, None
    if not history:  # the first guess: the strategy's own conventions (its first code, its symmetry classes)
        if strategy.first is not None:
            root = int(strategy.rank(Position(space, history, codes)).index or 0)
        elif rule.pool_all:
            pool = strategy.pool_of(Position(space, history, codes))
    compile_tree_kernel()  # on a first run, half the kernel's callees compile in a second process
    top = space.grow(rule, played, codes, root=root, root_pool=pool, depth=1, max_depth=MAX_DEPTH)
    if top is None:
        raise _no_progress(strategy)
    stubs = np.flatnonzero(top.guesses < 0).tolist()
    stubs.sort(key=lambda row: -int(top.sizes[row]))  # the largest first: the threads finish together
    if progress is not None:
        progress(int(codes.size - top.sizes[stubs].sum()))

    def run(row: int) -> FlatSubtree:
        path = top.path(row)
        grown = space.grow(rule, played + path, top.part(row), depth=MAX_DEPTH, max_depth=MAX_DEPTH - len(path))
        if grown is None:
            raise _no_progress(strategy)
        return grown

    def grown(row: int) -> None:
        if progress is not None:
            progress(int(top.sizes[row]))

    return _assemble(space, top, _side_by_side(run, stubs, threads(), grown))


def _side_by_side(
    run: Callable[[int], FlatSubtree], rows: list[int], workers: int, done: Callable[[int], None]
) -> dict[int, FlatSubtree]:
    """``run(row)`` for every row, in that order, on ``workers`` daemon threads (the kernel releases
    the GIL), calling ``done`` here as each ends. This thread only waits, so Ctrl-C stops the work at
    once: no thread takes another row, and the process may exit without waiting for them."""
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for row in rows:
        todo.put(row)
    finished: queue.SimpleQueue[tuple[int, FlatSubtree | BaseException]] = queue.SimpleQueue()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            try:
                row = todo.get_nowait()
            except queue.Empty:
                return
            try:
                finished.put((row, run(row)))
            except BaseException as error:  # handed to the waiting thread, raised there
                stop.set()
                finished.put((row, error))

    for _ in range(min(workers, len(rows))):
        threading.Thread(target=work, daemon=True).start()
    results: dict[int, FlatSubtree] = {}
    try:
        while len(results) < len(rows):
            row, outcome = finished.get()
            if isinstance(outcome, BaseException):
                raise outcome
            results[row] = outcome
            done(row)
    finally:
        stop.set()
    return results


def _assemble(space: CodeSpace, top: FlatSubtree, grown: dict[int, FlatSubtree]) -> tuple[FlatNodes, dict[int, int]]:
    """One :class:`FlatNodes` from the first levels and the subtrees grown in place of their nodes left
    to grow, and the secrets solved per round."""
    guesses, sizes, parents, feedbacks = [top.guesses.copy()], [top.sizes], [top.parents], [top.feedbacks]
    solved = top.solved.copy()
    offset = top.guesses.size
    for row, sub in grown.items():
        guesses[0][row] = sub.guesses[0]
        level = len(top.path(row))  # guesses above it
        guesses.append(sub.guesses[1:])
        sizes.append(sub.sizes[1:])
        parents.append(np.where(sub.parents[1:] == 0, row, sub.parents[1:] + offset - 1))
        feedbacks.append(sub.feedbacks[1:])
        solved[level:] += sub.solved[: solved.size - level]
        offset += sub.guesses.size - 1
    rows = np.concatenate(guesses)
    flat = FlatNodes(space.codes[rows], np.concatenate(sizes), np.concatenate(parents), np.concatenate(feedbacks))
    distribution = {int(d): int(n) for d, n in enumerate(solved.tolist()) if n}
    return flat, distribution
