"""The strategy tree: a strategy played against every secret at once.

Secrets are grouped by the feedback seen so far; each group gets one guess and is
split by its feedback, until every secret is guessed. The tree holds the guess
for every history that can happen.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from keypeg.errors import KeypegError
from keypeg.kernels import CodeSpace, Index, ordinal_feedback
from keypeg.rules import Rules
from keypeg.strategies.base import Position, Strategy
from keypeg.strategy_tree import Node, StrategyTree, TreeStats

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
) -> StrategyTree:
    """Play ``strategy`` against every secret (or the codes at ``secrets``) and keep the tree.

    ``history`` (code index, feedback ordinal pairs) is what was played before the tree
    starts; ``secrets`` must then be the codes that fit it. ``progress`` is called with
    the number of secrets newly solved as the work goes on.
    """
    space = CodeSpace.of(rules)
    strategy.reset(rules)
    win = space.win
    distribution: dict[int, int] = {}
    started = time.perf_counter()

    def solved(depth: int) -> None:
        distribution[depth] = distribution.get(depth, 0) + 1
        if progress is not None:
            progress(1)

    start = len(history)

    def grow(history: tuple[tuple[int, int], ...], candidates: Index) -> Node:
        depth = len(history) + 1 - start
        if depth > MAX_DEPTH:
            raise KeypegError(f"strategy {strategy.name!r} makes no progress after {MAX_DEPTH} guesses")
        choice = strategy.rank(Position(space, history, candidates))
        guess = choice.index if choice.index is not None else space.index(choice.guess)
        node = Node(choice.guess, int(candidates.size))
        for value, part in space.split(guess, candidates):
            if value == win:
                solved(depth)
            elif part.size == 1:  # the strategy guesses a lone fitting code
                node.children[ordinal_feedback(value, rules.pegs)] = Node(space.code(int(part[0])), 1)
                solved(depth + 1)
            else:
                child = grow((*history, (guess, value)), part)
                node.children[ordinal_feedback(value, rules.pegs)] = child
        return node

    root = grow(history, space.all if secrets is None else np.asarray(secrets, dtype=np.intp))
    seconds = time.perf_counter() - started
    return StrategyTree(rules, root, strategy.conventions(), TreeStats.from_distribution(distribution), seconds)
