"""The strategy tree: a strategy played against every secret at once.

Secrets are grouped by the feedback seen so far; each group gets one guess and is
split by its feedback, until every secret is guessed. The tree holds the guess
for every history that can happen.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError
from keypeg.feedback import score
from keypeg.kernels import CodeSpace, Index, feedback_ordinal, ordinal_feedback
from keypeg.rules import Rules
from keypeg.strategies.base import Position, Strategy

__all__ = ["Node", "StrategyTree", "TreeStats", "build_tree", "MAX_DEPTH"]

MAX_DEPTH = 64
"""A strategy still guessing this deep is making no progress."""


@dataclass
class Node:
    """A guess, the number of secrets that reach it, and the subtree after each non-winning feedback."""

    guess: Code
    size: int
    children: dict[Feedback, Node] = field(default_factory=dict)

    def nodes(self) -> int:
        """Nodes in this subtree."""
        return 1 + sum(child.nodes() for child in self.children.values())


@dataclass(frozen=True)
class TreeStats:
    """Totals of a strategy tree: guesses over all secrets, the worst case, and secrets solved per round."""

    secrets: int
    total: int
    max: int
    distribution: dict[int, int]

    @property
    def average(self) -> float:
        """Guesses per secret, on average."""
        return self.total / self.secrets if self.secrets else 0.0

    @classmethod
    def from_distribution(cls, distribution: dict[int, int]) -> TreeStats:
        """Stats from the count of secrets solved in each round."""
        ordered = {d: n for d, n in sorted(distribution.items()) if n}
        return cls(
            secrets=sum(ordered.values()),
            total=sum(d * n for d, n in ordered.items()),
            max=max(ordered, default=0),
            distribution=ordered,
        )

    def as_dict(self) -> dict[str, Any]:
        """The figures as JSON-ready data (``distribution`` keyed by round)."""
        return {
            "secrets": self.secrets,
            "total": self.total,
            "average": round(self.average, 6),
            "max": self.max,
            "distribution": {str(d): n for d, n in self.distribution.items()},
        }


@dataclass
class StrategyTree:
    """A complete strategy: the root node, the rules, the conventions that made it, its stats."""

    rules: Rules
    root: Node
    conventions: dict[str, Any]
    stats: TreeStats
    seconds: float = 0.0

    def replay(self, secret: Code) -> list[tuple[Code, Feedback]]:
        """The scored guesses the tree plays against ``secret``."""
        node: Node | None = self.root
        played: list[tuple[Code, Feedback]] = []
        while node is not None:
            feedback = score(secret, node.guess)
            played.append((node.guess, feedback))
            if feedback == self.rules.win:
                return played
            node = node.children.get(feedback)
        raise KeypegError(f"the tree has no guess after {_history_text(played)} (secret {str(secret)!r})")


def _history_text(played: list[tuple[Code, Feedback]]) -> str:
    return " ".join(f"{g}={f}" for g, f in played)


ProgressCallback = Callable[[int], None]


def build_tree(
    strategy: Strategy,
    rules: Rules,
    *,
    secrets: Index | None = None,
    progress: ProgressCallback | None = None,
) -> StrategyTree:
    """Play ``strategy`` against every secret (or the codes at ``secrets``) and keep the tree.

    ``progress`` is called with the number of secrets newly solved as the work goes on.
    """
    space = CodeSpace.of(rules)
    strategy.reset(rules)
    win = feedback_ordinal(rules.win, rules.pegs)
    distribution: dict[int, int] = {}
    started = time.perf_counter()

    def solved(depth: int) -> None:
        distribution[depth] = distribution.get(depth, 0) + 1
        if progress is not None:
            progress(1)

    def grow(history: tuple[tuple[int, int], ...], candidates: Index) -> Node:
        depth = len(history) + 1
        if depth > MAX_DEPTH:
            raise KeypegError(f"strategy {strategy.name!r} makes no progress after {MAX_DEPTH} guesses")
        guess = strategy.choose(Position(space, history, candidates))
        node = Node(space.code(guess), int(candidates.size))
        feedbacks = space.feedbacks(guess, candidates)
        order = np.argsort(feedbacks, kind="stable")
        values, starts = np.unique(feedbacks[order], return_index=True)
        bounds = [*starts.tolist(), int(candidates.size)]
        for k, value in enumerate(values.tolist()):
            part = candidates[order[bounds[k] : bounds[k + 1]]]
            if value == win:
                solved(depth)
            elif part.size == 1:  # the strategy guesses a lone fitting code
                node.children[ordinal_feedback(value, rules.pegs)] = Node(space.code(int(part[0])), 1)
                solved(depth + 1)
            else:
                child = grow((*history, (guess, value)), part)
                node.children[ordinal_feedback(value, rules.pegs)] = child
        return node

    root = grow((), space.all if secrets is None else np.asarray(secrets, dtype=np.intp))
    seconds = time.perf_counter() - started
    return StrategyTree(rules, root, strategy.conventions(), TreeStats.from_distribution(distribution), seconds)
