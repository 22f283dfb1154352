"""Whole strategy trees as tasks for :mod:`keypeg.cluster`: the same tree as :func:`build_tree`.

The positions with many codes are decided one task each (the strategy's guess there), and split
here; the smaller ones are grown whole by :func:`~keypeg.analysis.tree.build_tree`, several
siblings to a task. Tasks get small inputs (the rules, the strategy, the history, the codes as
32-bit indices) and send back compact ones (a guess index; a grown subtree as one row of four
integers a node), and the pieces are joined into one :class:`StrategyTree`, node for node the one
built in one process. A strategy that draws at random (``random``, ``careless``, ``genetic``, or a
random tie-break) depends on the order of its decisions, so its tree is one task.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from keypeg.cluster import Workers
from keypeg.kernels import CodeSpace, Index, feedback_ordinal, ordinal_feedback
from keypeg.rules import Rules
from keypeg.strategies.base import Position, Strategy
from keypeg.strategy_tree import Node, StrategyTree, TreeStats

__all__ = ["distributed_tree", "TreeTask", "Grown", "Traffic", "tree_task", "split_size", "TASKS_PER_WORKER"]

TASKS_PER_WORKER = 16
"""A position with more codes than the game's codes over this many tasks per worker is decided as a
task of its own and split; smaller ones are grown whole."""
RANDOM = frozenset({"random", "careless", "genetic"})
"""Strategies that draw at random at every turn: their tree is grown whole, as one task."""

Rows = npt.NDArray[np.int32]


class Part(NamedTuple):
    """A position to work on: the scored guesses (code index, feedback ordinal) and the codes that
    fit them (``None``: every code)."""

    history: tuple[tuple[int, int], ...]
    codes: npt.NDArray[np.int32] | None


@dataclass(frozen=True)
class TreeTask:
    """Decide the strategy's guess at one part, or grow the subtrees of every part."""

    rules: Rules
    strategy: Strategy
    decide: bool
    parts: tuple[Part, ...]


class Grown(NamedTuple):
    """A subtree as rows ``(feedback ordinal from the parent, guess index, codes, children)`` in
    depth-first order (the root's ordinal -1), and the secrets it solves in each round from its root."""

    rows: Rows
    rounds: tuple[int, ...]


Answer = tuple[int | tuple[Grown, ...], float]
"""A task's result and the seconds it took."""


def tree_task(task: TreeTask) -> Answer:
    """Run one :class:`TreeTask` (on a worker): the guess index, or the grown subtrees."""
    started = time.perf_counter()
    space = CodeSpace.of(task.rules)
    strategy = task.strategy
    if task.decide:
        (part,) = task.parts
        strategy.reset(task.rules)
        choice = strategy.rank(Position(space, part.history, _codes(space, part.codes)))
        guess = choice.index if choice.index is not None else space.index(choice.guess)
        return int(guess), time.perf_counter() - started
    from keypeg.analysis.tree import build_tree

    grown = []
    for part in task.parts:
        tree = build_tree(strategy, task.rules, secrets=_codes(space, part.codes), history=part.history)
        rounds = tree.stats.distribution
        grown.append(Grown(_encode(tree.root, space), tuple(rounds.get(r, 0) for r in range(1, tree.stats.max + 1))))
    return tuple(grown), time.perf_counter() - started


def _codes(space: CodeSpace, codes: npt.NDArray[np.int32] | None) -> Index:
    return space.all if codes is None else codes.astype(np.intp)


def _encode(root: Node, space: CodeSpace) -> Rows:
    """A subtree as :class:`Grown` rows."""
    rows: list[tuple[int, int, int]] = []
    guesses = []
    stack = [(-1, root)]
    while stack:
        ordinal, node = stack.pop()
        rows.append((ordinal, node.size, len(node.children)))
        guesses.append(node.guess)
        stack.extend((feedback_ordinal(f, space.pegs), child) for f, child in reversed(node.children.items()))
    table = np.empty((len(rows), 4), dtype=np.int32)
    table[:, [0, 2, 3]] = rows
    table[:, 1] = space.indices(guesses)
    return table


def _decode(rows: Rows, space: CodeSpace) -> Node:
    """The subtree :func:`_encode` wrote."""
    nodes = [Node(space.code(guess), size) for guess, size in rows[:, 1:3].tolist()]
    open_: list[int] = []
    left = rows[:, 3].tolist()
    for i, ordinal in enumerate(rows[:, 0].tolist()):
        if i:
            parent = open_[-1]
            nodes[parent].children[ordinal_feedback(ordinal, space.pegs)] = nodes[i]
            left[parent] -= 1
            if not left[parent]:
                open_.pop()
        if left[i]:
            open_.append(i)
    return nodes[0]


def split_size(codes: int, workers: int) -> int:
    """The most codes a position grown whole as a task has (:data:`TASKS_PER_WORKER`)."""
    return max(1, codes // (TASKS_PER_WORKER * workers))


@dataclass
class Traffic:
    """What the tasks of a tree cost and moved: per kind (``decide``, ``grow``), the tasks, their
    seconds in all and the longest, and the bytes sent and received (pickled)."""

    tasks: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    longest: dict[str, float] = field(default_factory=dict)
    sent: int = 0
    received: int = 0
    largest: int = 0
    """The most codes in a task."""

    def count(self, kind: str, seconds: float) -> None:
        """Count a finished task."""
        self.tasks[kind] = self.tasks.get(kind, 0) + 1
        self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds
        self.longest[kind] = max(self.longest.get(kind, 0.0), seconds)


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
    space = CodeSpace.of(rules)
    strategy.reset(rules)
    started = time.perf_counter()
    whole = strategy.name in RANDOM or strategy.tie == "random"
    split = rules.size if whole else split if split is not None else split_size(rules.size, workers.count)
    distribution: dict[int, int] = {}
    traffic = Traffic()
    made: list[Node] = []  # the nodes decided here, whose children arrive in any order
    top = Node(space.code(0), 0)  # holds the root as its child
    # what each task's result is for: (the parent node, the feedback to it from the parent, the part)
    waiting: dict[int, tuple[tuple[Node, int, Part], ...]] = {}

    def solved(round_: int, count: int = 1) -> None:
        distribution[round_] = distribution.get(round_, 0) + count
        if progress is not None:
            progress(count)

    with workers.queue(tree_task) as tasks:

        def send(decide: bool, places: list[tuple[Node, int, Part]]) -> None:
            task = TreeTask(rules, strategy, decide, tuple(part for _, _, part in places))
            traffic.sent += _size(task)
            traffic.largest = max(traffic.largest, sum(_count(space, part) for _, _, part in places))
            waiting[tasks.put(task, priority=1 if decide else 0)] = tuple(places)

        def share(places: list[tuple[Node, int, Part]]) -> None:
            """Hand out parts: the big ones decided one a task, the others grown
            together up to ``split`` codes a task."""
            batch: list[tuple[Node, int, Part]] = []
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

        share([(top, -1, Part((), None))])
        for key, (answer, seconds) in tasks:
            places = waiting.pop(key)
            traffic.received += _size((answer, seconds))
            if isinstance(answer, int):
                traffic.count("decide", seconds)
                ((parent, ordinal, part),) = places
                node = Node(space.code(answer), _count(space, part))
                _attach(parent, ordinal, node, rules)
                made.append(node)
                round_ = len(part.history) + 1
                below = []
                for value, codes in space.split(answer, _codes(space, part.codes)):
                    if value == space.win:
                        solved(round_)
                    elif codes.size == 1:  # the strategy guesses a lone fitting code
                        node.children[ordinal_feedback(value, rules.pegs)] = Node(space.code(int(codes[0])), 1)
                        solved(round_ + 1)
                    else:
                        history = (*part.history, (answer, value))
                        below.append((node, value, Part(history, codes.astype(np.int32))))
                share(below)
                continue
            traffic.count("grow", seconds)
            for (parent, ordinal, part), grown in zip(places, answer, strict=True):
                _attach(parent, ordinal, _decode(grown.rows, space), rules)
                for r, count in enumerate(grown.rounds, len(part.history) + 1):
                    if count:
                        solved(r, count)
    for node in made:  # children in the order of their feedback, as one process grows them
        node.children = dict(sorted(node.children.items()))
    root = top.children[_ROOT]
    stats = TreeStats.from_distribution(distribution)
    return StrategyTree(rules, root, strategy.conventions(), stats, time.perf_counter() - started), traffic


_ROOT = ordinal_feedback(0, 1)
"""Where the root hangs below the placeholder node."""


def _attach(parent: Node, ordinal: int, node: Node, rules: Rules) -> None:
    parent.children[_ROOT if ordinal < 0 else ordinal_feedback(ordinal, rules.pegs)] = node


def _count(space: CodeSpace, part: Part) -> int:
    return space.size if part.codes is None else int(part.codes.size)
