"""A strategy as a tree: the guess for every history that can happen, with its statistics.

The JSON form is the one that loads back; :mod:`keypeg.analysis.export` adds a
text outline and a look-up table, and checks a tree against every secret.
"""

from __future__ import annotations

import errno
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keypeg.code import Code, Feedback
from keypeg.errors import InvalidArgumentError, InvalidRulesError, KeypegError, NotFoundError, UnavailableError
from keypeg.feedback import score
from keypeg.rules import Rules
from keypeg.text import plural, quoted, visible

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from keypeg.kernels import CodeSpace, Index

__all__ = [
    "Node",
    "StrategyTree",
    "TreeStats",
    "FlatNodes",
    "tree_to_json",
    "tree_from_json",
    "load_tree",
    "verify_tree",
    "Verification",
    "misstated",
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

    @property
    def worst(self) -> int:
        """The worst case: :attr:`max`, by the name :class:`keypeg.envs` and the README use."""
        return self.max

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


@dataclass(frozen=True, eq=False)
class FlatNodes:
    """A tree as arrays, one row per node, root first and each node after its parent: the colours of
    its guess, its number of secrets, its parent's row (-1 for the root) and the feedback ordinal
    (``black * (pegs + 1) + white``) from the parent. :class:`Node` objects are made from it when read."""

    colors: npt.NDArray[np.int8]
    sizes: npt.NDArray[np.int64]
    parents: npt.NDArray[np.int64]
    feedbacks: npt.NDArray[np.int64]

    def root(self, rules: Rules) -> Node:
        """The tree as :class:`Node` objects, children in feedback order."""
        import numpy as np

        nodes = [
            Node(Code(tuple(colors), rules), size)
            for colors, size in zip(self.colors.tolist(), self.sizes.tolist(), strict=True)
        ]
        stride = rules.pegs + 1
        answers = {o: Feedback(*divmod(o, stride)) for o in np.unique(self.feedbacks).tolist() if o >= 0}
        parents, feedbacks = self.parents.tolist(), self.feedbacks.tolist()
        for row in np.lexsort((self.feedbacks, self.parents)).tolist():
            if parents[row] >= 0:
                nodes[parents[row]].children[answers[feedbacks[row]]] = nodes[row]
        return nodes[0]


class StrategyTree:
    """A complete strategy: the root node, the rules, the conventions that made it, its stats.

    The nodes may be given as :class:`FlatNodes`; :attr:`root` then makes the :class:`Node` objects
    when first read.
    """

    def __init__(
        self,
        rules: Rules,
        root: Node | FlatNodes,
        conventions: dict[str, Any],
        stats: TreeStats,
        seconds: float = 0.0,
        stated: dict[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        self._root = root
        self.conventions = conventions
        self.stats = stats
        self.seconds = seconds
        self.stated = stated or {}
        """The figures its file states (``secrets``, ``total``, ``average``, ``max``, ``distribution``
        keyed by round), as written: :func:`verify_tree` checks them."""

    def __repr__(self) -> str:
        return f"StrategyTree({self.rules!r}, {self.conventions!r}, {self.stats!r})"

    @property
    def root(self) -> Node:
        """The root node (its guess is the first guess)."""
        if isinstance(self._root, FlatNodes):
            self._root = self._root.root(self.rules)
        return self._root

    def flat(self) -> FlatNodes:
        """The nodes as :class:`FlatNodes` (made from the :class:`Node` objects if the tree holds those,
        parents first, children in feedback order)."""
        if isinstance(self._root, FlatNodes):
            return self._root
        import numpy as np

        stride = self.rules.pegs + 1
        colors: list[tuple[int, ...]] = []
        sizes: list[int] = []
        parents: list[int] = []
        feedbacks: list[int] = []
        stack: list[tuple[Node, int, int]] = [(self._root, -1, -1)]
        while stack:
            node, parent, ordinal = stack.pop()
            row = len(sizes)
            colors.append(node.guess.colors)
            sizes.append(node.size)
            parents.append(parent)
            feedbacks.append(ordinal)
            stack.extend((child, row, f.black * stride + f.white) for f, child in reversed(node.children.items()))
        return FlatNodes(
            np.array(colors, dtype=np.int8).reshape(-1, self.rules.pegs),
            np.array(sizes, dtype=np.int64),
            np.array(parents, dtype=np.int64),
            np.array(feedbacks, dtype=np.int64),
        )

    @property
    def first_guess(self) -> Code:
        """The first guess, without making the nodes."""
        if isinstance(self._root, FlatNodes):
            return Code(tuple(self._root.colors[0].tolist()), self.rules)
        return self._root.guess

    @property
    def beyond_rows(self) -> int:
        """How many secrets the tree breaks only after more guesses than the rules' rows: a tree plays
        every secret to the end, rows or not (:func:`keypeg.analyze`'s trees; :func:`keypeg.optimal`'s
        keep within the rows), so on a short board these are the games it would lose.

        >>> from keypeg import Rules, analyze
        >>> analyze(Rules(4, 6, rows=4), "knuth").beyond_rows  # Knuth needs a 5th guess for 694 of 1,296
        694
        """
        return sum(n for rounds, n in self.stats.distribution.items() if rounds > self.rules.rows)

    def next_guess(self, history: Iterable[tuple[Code | str, Feedback]]) -> Code | None:
        """The tree's guess after ``history`` (a :class:`keypeg.History` or ``(guess, feedback)`` pairs):
        ``None`` once the code is broken, or when the history left the tree (a guess the tree does not
        play, or a score no secret of the tree gives).

        >>> from keypeg import Rules, analyze
        >>> tree = analyze(Rules(3, 3), "knuth")
        >>> str(tree.next_guess([])), str(tree.next_guess([("AAB", Feedback(0, 1))]))
        ('AAB', 'BCC')
        >>> tree.next_guess([("ABC", Feedback(0, 1))]) is None  # the tree opens with AAB
        True
        """
        if isinstance(history, str) or not isinstance(history, Iterable):
            raise InvalidArgumentError(
                f"a history is a History or (guess, feedback) pairs (History.parse reads text), not {quoted(history)}"
            )
        node: Node | None = self.root
        for move in history:
            if not isinstance(move, (tuple, list)) or len(move) != 2:
                raise InvalidArgumentError(
                    f"a move is a (guess, feedback) pair (History.parse reads text), not {quoted(move)}"
                )
            guess, feedback = move
            if node is None or node.guess != self.rules.adopt(guess) or feedback == self.rules.win:
                return None
            node = node.children.get(feedback)
        return None if node is None else node.guess

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


def _node_as_dict(node: Node) -> dict[str, Any]:
    data: dict[str, Any] = {"guess": str(node.guess), "size": node.size}
    if node.children:
        data["next"] = {str(f): _node_as_dict(child) for f, child in sorted(node.children.items())}
    return data


def tree_to_json(tree: StrategyTree) -> str:
    """The tree, its rules, conventions and stats as a JSON document."""
    return json.dumps(
        {
            "keypeg_tree": FORMAT_VERSION,
            "rules": tree.rules.as_dict(),
            "conventions": tree.conventions,
            "stats": tree.stats.as_dict(),
            "tree": _node_as_dict(tree.root),
        },
        indent=1,
    )


MAX_TREE_DEPTH = 200
"""A tree file deeper than this many guesses is refused as damaged (no strategy needs it: rules allow
at most 100 rows)."""


def _damaged(why: str) -> KeypegError:
    return KeypegError(f"damaged tree file: {why}")


def _whole(value: object, what: str, low: int, high: int) -> int:
    """``value`` if it is a whole number from ``low`` to ``high`` (JSON integers only)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        big = isinstance(value, int) and abs(value) >= 10**30
        shown = f"a number of {len(str(value))} digits" if big else visible(repr(value), 60)
        raise _damaged(f"{what} must be a whole number from {low:,} to {high:,}, not {shown}")
    return value


WHOLE_FIGURES = ("nodes", "rows", "depth", "width", "smallest", "exact_below")
"""The conventions' optional figures that are whole numbers (``cpu_seconds`` is any number); each at least 0,
or null (not recorded)."""


def _check_figures(conventions: dict[str, Any]) -> None:
    """Refuse a conventions' figure of the wrong type or below 0 (``cpu_seconds: -5``, ``nodes: "many"``)."""
    for key in WHOLE_FIGURES:
        if conventions.get(key) is not None:
            _whole(conventions[key], f"the conventions' {key}", 0, 10**18)
    seconds = conventions.get("cpu_seconds")
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds < math.inf
    ):
        shown = visible(repr(seconds), 60)
        raise _damaged(f"the conventions' cpu_seconds must be a number of seconds from 0 up, not {shown}")


def _sniff(text: str) -> str | None:
    """The export format a text that is not JSON looks like, if any."""
    head = text.lstrip()[:200]
    if head.startswith("# history"):
        return "lookup"
    if head.startswith("#"):
        return "text"
    return None


def tree_from_json(text: str) -> StrategyTree:
    """Load a tree written by :func:`tree_to_json`; a damaged file raises :class:`KeypegError`.

    The other export formats (``text``, ``lookup``) are for reading: they are recognised and refused
    with a message saying so.
    """
    try:
        data = json.loads(text)
    except RecursionError:
        raise _damaged("nested too deeply") from None
    except ValueError as error:
        sniffed = _sniff(text)
        if sniffed is not None:
            raise KeypegError(
                f"this is a tree in the {sniffed} format, which is for reading: keypeg reads back only the json format"
            ) from None
        raise _damaged(f"not JSON ({error})") from None
    if not isinstance(data, dict) or "keypeg_tree" not in data:
        raise KeypegError("not a keypeg tree file (no 'keypeg_tree' key)")
    if data["keypeg_tree"] != FORMAT_VERSION:
        raise KeypegError(
            f"a tree file of format {str(data['keypeg_tree'])[:20]!r}: this keypeg reads format {FORMAT_VERSION}"
        )
    try:
        rules = Rules.from_dict(data["rules"]) if isinstance(data.get("rules"), dict) else None
    except InvalidRulesError as error:
        raise _damaged(str(error)) from None
    if rules is None:
        raise _damaged("no rules")
    sizes = rules.size

    def node(item: object, depth: int) -> Node:
        if depth > MAX_TREE_DEPTH:
            raise _damaged(f"deeper than {MAX_TREE_DEPTH} guesses")
        if not isinstance(item, dict) or not isinstance(item.get("guess"), str):
            raise _damaged(f"a node at depth {depth} is not a guess with its size")
        try:
            guess = rules.parse(item["guess"])
        except KeypegError as error:
            raise _damaged(f"at depth {depth}: {error}") from None
        result = Node(guess, _whole(item.get("size"), "a node's size", 1, sizes))
        after = item.get("next", {})
        if not isinstance(after, dict):
            raise _damaged(f"the answers after {guess} are not a JSON object")
        for answer, child in after.items():
            try:
                feedback = rules.check_feedback(Feedback.parse(answer))
            except KeypegError as error:
                raise _damaged(f"after {guess}: {error}") from None
            result.children[feedback] = node(child, depth + 1)
        return result

    root = node(data.get("tree"), 1)
    stats = data.get("stats", {})
    distribution_data = stats.get("distribution", {}) if isinstance(stats, dict) else None
    if not isinstance(distribution_data, dict):
        raise _damaged("the stats' distribution is not a JSON object")
    distribution: dict[int, int] = {}
    for key, value in distribution_data.items():
        if not (isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 4):
            raise _damaged(f"a round of the stats must be a whole number, not {key[:20]!r}")
        distribution[_whole(int(key), "a round of the stats", 1, MAX_TREE_DEPTH)] = _whole(
            value, "the secrets of a round", 0, sizes
        )
    conventions = data.get("conventions", {})
    if not isinstance(conventions, dict):
        raise _damaged("the conventions are not a JSON object")
    _check_figures(conventions)
    stated = {key: stats[key] for key in ("secrets", "total", "average", "max") if key in stats}
    if distribution_data:
        stated["distribution"] = {d: n for d, n in sorted(distribution.items()) if n}
    return StrategyTree(rules, root, dict(conventions), TreeStats.from_distribution(distribution), stated=stated)


def load_tree(path: Path) -> StrategyTree:
    """Read a JSON tree file."""
    from keypeg.limits import JSON_LOAD_FACTOR
    from keypeg.machine import memory_budget

    budget = memory_budget()
    most = budget // JSON_LOAD_FACTOR if budget is not None else None
    try:
        if path.exists() and not path.is_file():  # a device or a pipe has no size to check: never read
            raise KeypegError(f"{visible(path)!r} is not a regular file")
        if most is not None and path.stat().st_size > most:
            raise KeypegError(
                f"{visible(path)!r} is larger than a tree keypeg can load in the memory it allows itself "
                f"({most / 2**20:,.0f} MiB of JSON; see $KEYPEG_MEMORY_LIMIT)"
            )
        raw = path.read_bytes()
    except OSError as error:
        missing = isinstance(error, (FileNotFoundError, IsADirectoryError)) or error.errno == errno.ENAMETOOLONG
        kind = NotFoundError if missing else UnavailableError  # there but unreadable: a failure at run time
        raise kind(f"cannot read {quoted(str(path))}: {error.strerror or error}") from None
    if raw[:2] == b"\x1f\x8b":  # gzipped JSON (the big trees keypeg ships): read up to the same memory bound
        raw = _gunzipped(raw, most, path)
    if b"\0" in raw[:8192]:
        raise KeypegError(f"{quoted(str(path))} is not a text file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise KeypegError(f"{quoted(str(path))} is not a text file (not UTF-8)") from None
    try:
        return tree_from_json(text)
    except KeypegError as error:
        raise KeypegError(f"{quoted(str(path))}: {error}") from None


def _gunzipped(raw: bytes, most: int | None, path: Path) -> bytes:
    """The JSON a gzipped tree file holds, refused past ``most`` bytes (a small file may unpack to a huge one)."""
    import gzip
    import io
    import zlib

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as unpacked:
            data = unpacked.read(-1 if most is None else most + 1)
    except (OSError, EOFError, zlib.error):
        raise KeypegError(f"{quoted(str(path))} is not a readable gzip file") from None
    if most is not None and len(data) > most:
        raise KeypegError(f"{quoted(str(path))} unpacks to more JSON than keypeg can load ({most / 2**20:,.0f} MiB)")
    return data


# -- replaying a tree against every secret it is for ---------------------------------------------


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
    import numpy as np

    from keypeg.kernels import CodeSpace, ordinal_feedback

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
