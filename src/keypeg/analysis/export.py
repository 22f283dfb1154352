"""Saving and loading strategy trees: JSON, a nested text outline, and a look-up table.

JSON is the format that loads back (:func:`tree_from_json`); :func:`verify_tree`
replays a loaded tree against every secret and checks it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError
from keypeg.kernels import CodeSpace, Index, ordinal_feedback
from keypeg.storage import atomic_write
from keypeg.strategy_tree import Node, StrategyTree, TreeStats, load_tree, tree_from_json, tree_to_json
from keypeg.text import plural, visible

__all__ = [
    "FORMATS",
    "tree_to_json",
    "tree_to_text",
    "tree_to_lookup",
    "tree_from_json",
    "load_tree",
    "save_tree",
    "verify_tree",
    "Verification",
    "misstated",
]


def tree_to_text(tree: StrategyTree) -> str:
    """A nested outline in the manner of Irving and Koyama: each guess, then per answer the next guess.

    ::

        AABB (1296)
          0,0 CDEF (256)
            ...
    """
    lines = [f"# {tree.rules.describe()}; {_conventions_text(tree.conventions)}"]

    def walk(node: Node, indent: str, answer: str) -> None:
        lines.append(f"{indent}{answer}{node.guess} ({node.size})")
        for feedback, child in sorted(node.children.items()):
            walk(child, indent + "  ", f"{feedback} ")

    walk(tree.root, "", "")
    return "\n".join(lines) + "\n"


def _conventions_text(conventions: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in conventions.items() if v is not None)


def _paths(node: Node, history: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Node]]:
    yield history, node
    for feedback, child in sorted(node.children.items()):
        yield from _paths(child, (*history, f"{node.guess}={feedback}"))


def tree_to_lookup(tree: StrategyTree) -> str:
    """A look-up table: one line per history that can happen, ``history -> next guess``."""
    lines = ["# history (GUESS=B,W ...) -> next guess"]
    for history, node in _paths(tree.root, ()):
        lines.append(f"{' '.join(history) or '(start)'} -> {node.guess}")
    return "\n".join(lines) + "\n"


FORMATS = {"json": tree_to_json, "text": tree_to_text, "lookup": tree_to_lookup}


def save_tree(tree: StrategyTree, path: Path, fmt: str = "json") -> None:
    """Write the tree in format ``json``, ``text`` or ``lookup``."""
    if fmt not in FORMATS:
        raise KeypegError(f"unknown tree format {fmt!r}; choose from {', '.join(FORMATS)}")
    atomic_write(path, FORMATS[fmt](tree))


@dataclass
class Verification:
    """What replaying a tree against every secret found: the figures worked out from the tree itself."""

    stats: TreeStats
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every secret was solved, every branch reached and every figure the file states matches."""
        return not self.problems


STATED = {"secrets": "secrets", "total": "guesses in all", "average": "guesses on average", "max": "guesses at worst"}
"""The single figures a tree file states (beside its secrets per round), and what each counts."""


def misstated(stated: dict[str, Any], stats: TreeStats) -> list[str]:
    """Each figure of ``stated`` (a tree file's, :attr:`StrategyTree.stated`) that ``stats`` contradicts.

    >>> stats = TreeStats.from_distribution({1: 1, 2: 3})
    >>> misstated({"total": 7, "average": 1.75, "max": 2, "distribution": {1: 1, 2: 3}}, stats)
    []
    >>> for wrong in misstated({"total": 5, "distribution": {1: 1, 2: 2}}, stats):
    ...     print(wrong)
    the file states 5 guesses in all; the tree gives 7
    the file states 2 secrets solved in round 2; the tree gives 3
    """
    actual = {"secrets": stats.secrets, "total": stats.total, "average": stats.average, "max": stats.max}
    wrong = []
    for key, what in STATED.items():
        if key not in stated:
            continue
        claim, real = stated[key], actual[key]
        if key == "average":
            same = type(claim) in (int, float) and abs(claim - real) <= 1e-6
        else:
            same = type(claim) is int and claim == real
        if not same:
            shown = repr(claim) if key != "average" and type(claim) is float else _figure(claim)  # 5668.0
            wrong.append(f"the file states {shown} {what}; the tree gives {_figure(real)}")
    claimed: dict[int, int] = stated.get("distribution", stats.distribution)
    for depth in sorted(claimed.keys() | stats.distribution.keys()):
        claim, real = claimed.get(depth, 0), stats.distribution.get(depth, 0)
        if claim != real:
            wrong.append(f"the file states {plural(claim, 'secret')} solved in round {depth}; the tree gives {real:,}")
    return wrong


def _figure(value: object) -> str:
    """A stated or worked-out figure as the messages show it."""
    if type(value) is float:
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return f"{value:,}" if type(value) is int else visible(repr(value), 40)


def _drawn_from(tree: StrategyTree, space: CodeSpace) -> Index:
    """The secrets a tree is for: every code, or the set its optimal search was asked for (``secret_set``)."""
    from keypeg.strategies.optimal import secret_set

    chosen = secret_set(space, str(tree.conventions.get("secret_set", "all")))
    return space.all if chosen is None else chosen


def _then(history: str, node: Node, feedback: Feedback) -> str:
    """``history`` with the node's guess scored ``feedback`` added."""
    return f"{history} {node.guess}={feedback}".lstrip()


def verify_tree(
    tree: StrategyTree,
    secrets: list[Code] | None = None,
    *,
    max_problems: int = 20,
    progress: Callable[[int], None] | None = None,
) -> Verification:
    """Replay ``tree`` against every secret it is for (or ``secrets``): every guess legal, every secret
    solved, every branch reached by the secrets its size claims, and every figure its file states.

    The secrets go down the tree together, split by the kernels at each guess (8 bytes a secret a
    round, no object per secret); ``progress`` is called with the number of secrets newly placed."""
    rules = tree.rules
    space = CodeSpace.of(rules)
    pool = _drawn_from(tree, space) if secrets is None else np.unique(space.indices(secrets))
    problems: list[str] = []
    distribution: dict[int, int] = {}

    def walk(node: Node, group: Index, depth: int, history: str) -> None:
        if len(problems) >= max_problems:
            return
        if node.size != group.size:
            problems.append(
                f"after {history or 'the start'}: {plural(int(group.size), 'secret')} "
                f"arrive{'s' if group.size == 1 else ''}, the tree says {node.size:,}"
            )
        reached: set[Feedback] = set()
        for ordinal, part in space.split(space.index(node.guess), group):
            feedback = ordinal_feedback(ordinal, rules.pegs)
            reached.add(feedback)
            if feedback == rules.win:
                distribution[depth] = distribution.get(depth, 0) + int(part.size)
                if progress is not None:
                    progress(int(part.size))
            elif feedback not in node.children:
                problems.append(f"after {_then(history, node, feedback)}: no guess for {plural(part.size, 'secret')}")
                if progress is not None:
                    progress(int(part.size))
            else:
                walk(node.children[feedback], part, depth + 1, _then(history, node, feedback))
        for feedback in sorted(node.children.keys() - reached):
            problems.append(f"after {_then(history, node, feedback)}: a branch no secret reaches")

    walk(tree.root, pool, 1, "")
    stats = TreeStats.from_distribution(distribution)
    if stats.max > rules.rows:
        over = sum(count for depth, count in distribution.items() if depth > rules.rows)
        rows = plural(rules.rows, "row")
        problems.append(f"{plural(over, 'secret')} need more guesses than the rules' {rows} (up to {stats.max})")
    problems.extend(misstated(tree.stated, stats))
    return Verification(stats, problems[:max_problems])
