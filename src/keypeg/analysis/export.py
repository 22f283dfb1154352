"""Saving and loading strategy trees: JSON, a nested text outline, and a look-up table.

JSON is the format that loads back (:func:`tree_from_json`); :func:`verify_tree`
replays a loaded tree against every secret and checks it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.storage import atomic_write
from keypeg.strategy_tree import (
    Node,
    StrategyTree,
    Verification,
    load_tree,
    misstated,
    tree_from_json,
    tree_to_json,
    verify_tree,
)

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
            walk(child, indent + "  ", f"{tree.rules.key(feedback)} ")

    walk(tree.root, "", "")
    return "\n".join(lines) + "\n"


def _conventions_text(conventions: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in conventions.items() if v is not None)


def _paths(rules: Rules, node: Node, history: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Node]]:
    yield history, node
    for feedback, child in sorted(node.children.items()):
        yield from _paths(rules, child, (*history, f"{node.guess}={rules.key(feedback)}"))


def tree_to_lookup(tree: StrategyTree) -> str:
    """A look-up table: one line per history that can happen, ``history -> next guess``; scores are written as
    :meth:`Rules.key` writes them (``AABB=1,2``; ``AABB=2`` under black or colours feedback)."""
    shape = "GUESS=B,W" if tree.rules.feedback == "standard" else "GUESS=N"
    lines = [f"# history ({shape} ...) -> next guess"]
    for history, node in _paths(tree.rules, tree.root, ()):
        lines.append(f"{' '.join(history) or '(start)'} -> {node.guess}")
    return "\n".join(lines) + "\n"


FORMATS = {"json": tree_to_json, "text": tree_to_text, "lookup": tree_to_lookup}


def save_tree(tree: StrategyTree, path: Path, fmt: str = "json") -> None:
    """Write the tree in format ``json``, ``text`` or ``lookup``."""
    if fmt not in FORMATS:
        raise KeypegError(f"unknown tree format {fmt!r}; choose from {', '.join(FORMATS)}")
    atomic_write(path, FORMATS[fmt](tree))
