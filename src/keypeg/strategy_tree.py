"""A strategy as a tree: the guess for every history that can happen, with its statistics.

The JSON form is the one that loads back; :mod:`keypeg.analysis.export` adds a
text outline and a look-up table, and checks a tree against every secret.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from keypeg.code import Code, Feedback
from keypeg.errors import InvalidRulesError, KeypegError
from keypeg.feedback import score
from keypeg.rules import Rules

__all__ = [
    "Node",
    "StrategyTree",
    "TreeStats",
    "tree_to_json",
    "tree_from_json",
    "load_tree",
]

FORMAT_VERSION = 1


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


def _node_to_dict(node: Node) -> dict[str, Any]:
    data: dict[str, Any] = {"guess": str(node.guess), "size": node.size}
    if node.children:
        data["next"] = {str(f): _node_to_dict(child) for f, child in sorted(node.children.items())}
    return data


def tree_to_json(tree: StrategyTree) -> str:
    """The tree, its rules, conventions and stats as a JSON document."""
    return json.dumps(
        {
            "keypeg_tree": FORMAT_VERSION,
            "rules": tree.rules.as_dict(),
            "conventions": tree.conventions,
            "stats": tree.stats.as_dict(),
            "tree": _node_to_dict(tree.root),
        },
        indent=1,
    )


def tree_from_json(text: str) -> StrategyTree:
    """Load a tree written by :func:`tree_to_json`; a damaged file raises :class:`KeypegError`."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or "keypeg_tree" not in data:
            raise KeypegError("not a keypeg tree file (no 'keypeg_tree' key)")
        try:
            rules = Rules.from_dict(data["rules"])
        except InvalidRulesError as error:
            raise KeypegError(f"damaged tree file: {error}") from None

        def node(item: dict[str, Any]) -> Node:
            result = Node(rules.parse(item["guess"]), int(item["size"]))
            for answer, child in item.get("next", {}).items():
                result.children[rules.check_feedback(Feedback.parse(answer))] = node(child)
            return result

        root = node(data["tree"])
        distribution = {int(k): int(v) for k, v in data.get("stats", {}).get("distribution", {}).items()}
        return StrategyTree(rules, root, dict(data.get("conventions", {})), TreeStats.from_distribution(distribution))
    except KeypegError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise KeypegError(f"damaged tree file: {error.__class__.__name__}: {error}") from None


def load_tree(path: Path) -> StrategyTree:
    """Read a JSON tree file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise KeypegError(f"cannot read {str(path)!r}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise KeypegError(f"{str(path)!r} is not a text file") from None
    return tree_from_json(text)
