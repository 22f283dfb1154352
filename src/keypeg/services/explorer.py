"""The strategy explorer: a strategy's whole tree on a game, one node at a time, for every face.

A node is where a game stands after some answers: the guess the strategy plays there and the secrets it
splits by answer, each part with its count and the guesses its secrets need (on average and at worst,
counted from the start of the game). A node is named by its *path*, the answers given since the start
(``1,0/2,1``: the first guess scored 1 black 0 white, the second 2 black 1 white).

The trees are :func:`keypeg.analysis.tree.build_tree`'s, as ``keypeg analyze`` and the Strategies page
build them (each strategy with its standard conventions, :func:`keypeg.analysis.compare.standard_strategy`).
A tree is built once: its figures per node are worked out then, in arrays, so that a node is read in the
time of its children. Trees are kept in memory (the last :data:`KEPT_TREES`) and in the cache folder
(:func:`keypeg.storage.cache_dir`), where any process finds a tree another has built; a tree to build
passes ``check`` (a face's budget and gate) first, and ``watch`` as it grows, a tree kept never does.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from keypeg import __version__
from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError, NotFoundError, UnknownVariantError
from keypeg.rules import Rules
from keypeg.strategy_tree import TreeStats
from keypeg.text import visible
from keypeg.variants import VARIANTS, find_variant

__all__ = [
    "Branch",
    "Explored",
    "ExploredNode",
    "KEPT_TREES",
    "LISTED",
    "MAX_PATH",
    "Step",
    "explore",
    "explored_tree",
    "forget",
    "game_name",
    "parse_path",
    "path_text",
    "rules_named",
    "strategy_named",
]

KEPT_TREES = 12
"""Trees kept in memory per process (the least recently read go first)."""
MAX_PATH = 64
"""Answers a path may hold (no tree is deeper: :data:`keypeg.analysis.tree.MAX_DEPTH`)."""
FORMAT = 1
"""The version of the cache files' layout."""
MAX_CACHE_FILE = 256 << 20
"""A cache file larger than this is not read."""
CUSTOM = re.compile(r"(\d{1,2})x(\d{1,2})(-norepeats)?(-blanks)?(?:-(colours|colors|black))?")
"""A game of one's own as a path names it: ``5x7``, ``4x10-norepeats``, ``4x6-blanks``, ``4x6-colours``,
``4x6-black`` (:attr:`Rules.slug`)."""
ANSWER = re.compile(r"(\d{1,2})(?:,(\d{1,2}))?")
LISTED = 24
"""A node reached by at most this many secrets lists them."""
CUSTOM_ROWS = 12
"""The rows of a game of one's own (they matter only to the optimal strategy)."""

if TYPE_CHECKING:
    from keypeg.analysis.cost import Estimate

Check = Callable[[Any], None]
Watch = Callable[[float], None]
Ints = npt.NDArray[np.int64]

log = logging.getLogger("keypeg.services")


# -- naming games and nodes -------------------------------------------------------------------------


def rules_named(name: str) -> Rules:
    """The rules a path's first part names: a preset (or an alias of one), else a game of one's own written
    as :attr:`Rules.slug` writes it (``5x7-norepeats``, 12 rows; a feedback variant, ``4x6-black``, has the rows
    of its standard game, ``4x6``: 10). :class:`NotFoundError` for anything else, :class:`InvalidRulesError` for a
    game the rules refuse (``1x2``)."""
    if len(name) <= 40:
        try:
            return find_variant(name).rules
        except UnknownVariantError:
            pass
        custom = CUSTOM.fullmatch(name)
        if custom is not None:
            pegs, colors, norepeats, blanks, feedback = custom.groups()
            standard = name[: custom.start(5) - 1] if feedback else None  # 4x6-black: 4x6
            return Rules(
                int(pegs),
                int(colors),
                repeats=not norepeats,
                blanks=bool(blanks),
                rows=CUSTOM_ROWS if standard is None else rules_named(standard).rows,
                feedback=feedback or "standard",
            )
    raise NotFoundError(
        f"no game called {visible(name, 40)!r}: name a preset ({', '.join(list(VARIANTS)[:7])}, ...) "
        "or pegs x colours such as 5x7, 4x10-norepeats, 4x6-blanks or 4x6-colours"
    )


def strategy_named(name: str) -> str:
    """The registry's name of the strategy a path's second part names (an alias too: ``knuth``);
    :class:`NotFoundError` when there is none."""
    from keypeg.strategies import UnknownStrategyError, canonical_name

    try:
        return canonical_name(name)
    except UnknownStrategyError as unknown:
        raise NotFoundError(str(unknown)) from None


def game_name(rules: Rules) -> str:
    """The name a path gives ``rules``: its preset's, else its slug (``5x7-norepeats``)."""
    for variant in VARIANTS.values():
        if variant.rules == rules:
            return variant.name
    return rules.slug


def parse_path(text: str, rules: Rules | None = None) -> tuple[Feedback, ...]:
    """The answers of a path (``1,0/2,1``; empty for the start; under ``rules`` of black or colours feedback one
    number, ``2``, is ``2,0`` as :meth:`Rules.key` writes it), each checked for form only; :class:`KeypegError`
    (a bad request) for anything else."""
    single = rules is not None and rules.feedback != "standard"
    text = text.strip().strip("/")
    if not text:
        return ()
    parts = text.split("/")
    if len(parts) > MAX_PATH:
        raise KeypegError(f"a path of {len(parts):,} answers: no game goes past {MAX_PATH}")
    answers = []
    for part in parts:
        found = ANSWER.fullmatch(part)
        if found is None or (found[2] is None and not single):
            raise KeypegError(f"{visible(part, 20)!r} is not an answer: write each as black,white (such as 1,0)")
        answers.append(Feedback(int(found[1]), int(found[2] or 0)))
    return tuple(answers)


def path_text(path: tuple[Feedback, ...], rules: Rules | None = None) -> str:
    """A path as addresses write it: ``1,0/2,1`` (empty for the start); under ``rules`` of black or colours
    feedback one number an answer (``2/1``, :meth:`Rules.key`)."""
    return "/".join(str(answer) if rules is None else rules.key(answer) for answer in path)


# -- a tree and its figures per node ------------------------------------------------------------------


class Explored:
    """A strategy's whole tree on a game as arrays, one row per node (root first, each node after its
    parent), with each node's figures worked out once: its round (the number of its guess), its secrets, the
    guesses they need in all and at worst (counted from the start), and its children in answer order."""

    def __init__(
        self,
        rules: Rules,
        strategy: str,
        colors: npt.NDArray[np.int8],
        sizes: Ints,
        parents: Ints,
        feedbacks: Ints,
        seconds: float,
        cached: bool = False,
    ) -> None:
        self.rules, self.strategy, self.seconds, self.cached = rules, strategy, seconds, cached
        self.colors, self.sizes, self.parents, self.feedbacks = colors, sizes, parents, feedbacks
        n = sizes.size
        below = np.bincount(parents[1:], weights=sizes[1:], minlength=n).astype(np.int64)
        self.solved: Ints = sizes - below
        """1 where the node's guess is one of its secrets (broken there), else 0."""
        self.depth = _depths(parents)
        self.total: Ints = self.solved * self.depth
        self.worst: Ints = np.where(self.solved > 0, self.depth, 0)
        for level in range(int(self.depth.max()), 1, -1):  # the deepest first: each level adds to its parents
            rows = np.flatnonzero(self.depth == level)
            np.add.at(self.total, parents[rows], self.total[rows])
            np.maximum.at(self.worst, parents[rows], self.worst[rows])
        order = np.lexsort((feedbacks, parents))[1:]  # the root (parent -1) first: left out
        self._children = order
        self._first = np.searchsorted(parents[order], np.arange(n + 1))
        distribution = np.bincount(self.depth, weights=self.solved).astype(np.int64)
        self.stats = TreeStats.from_distribution({d: int(k) for d, k in enumerate(distribution.tolist()) if k})

    @property
    def nodes(self) -> int:
        """Nodes in the tree."""
        return int(self.sizes.size)

    def children(self, row: int) -> list[int]:
        """The rows of a node's children, in answer order."""
        return self._children[self._first[row] : self._first[row + 1]].tolist()  # type: ignore[no-any-return]

    def answer(self, row: int) -> Feedback:
        """The answer that leads to a node from its parent."""
        return Feedback(*divmod(int(self.feedbacks[row]), self.rules.pegs + 1))

    def guess(self, row: int) -> Code:
        """A node's guess."""
        return Code(tuple(self.colors[row].tolist()), self.rules)

    def secrets(self, row: int) -> list[Code]:
        """The secrets that reach a node, in code order: the guesses of its subtree that break the code
        (each secret is broken at one node, by a guess that is the secret), read in the time of the subtree."""
        found, todo = [], [row]
        while todo:
            here = todo.pop()
            if self.solved[here]:
                found.append(tuple(self.colors[here].tolist()))
            todo.extend(self.children(here))
        return [Code(colors, self.rules) for colors in sorted(found)]

    def row(self, path: tuple[Feedback, ...]) -> tuple[int, list[tuple[Code, Feedback]]]:
        """The node a path leads to and the guesses played on the way, each with its answer;
        :class:`NotFoundError` when an answer cannot come after its guess."""
        row, trail = 0, list[tuple[Code, Feedback]]()
        stride = self.rules.pegs + 1
        for answer in path:
            guess = self.guess(row)
            if answer == self.rules.win:
                raise NotFoundError(f"{answer} breaks the code at {guess}: nothing follows it")
            ordinal = answer.black * stride + answer.white
            found = [child for child in self.children(row) if int(self.feedbacks[child]) == ordinal]
            if not found:
                after = " ".join(f"{g}={f}" for g, f in [*trail, (guess, answer)])
                raise NotFoundError(f"no secret gets {after} with this strategy: no such node")
            trail.append((guess, answer))
            row = found[0]
        return row, trail


def _depths(parents: Ints) -> Ints:
    """Each node's round (the root's is 1), from parents that come before their children."""
    depth = np.zeros(parents.size, dtype=np.int64)
    depth[0] = 1
    todo = np.arange(1, parents.size)
    while todo.size:  # a level a pass: each pass settles the nodes whose parent is settled
        ready = depth[parents[todo]] > 0
        depth[todo[ready]] = depth[parents[todo[ready]]] + 1
        todo = todo[~ready]
    return depth


@dataclass(frozen=True)
class Branch:
    """The secrets of a node that get one answer: how many, and the guesses they need from the start of the
    game (in all and at worst); ``row`` is the node below (``None`` when the answer breaks the code)."""

    answer: Feedback
    secrets: int
    total: int
    worst: int
    row: int | None
    next_guess: Code | None

    @property
    def expected(self) -> float:
        """Guesses on average."""
        return self.total / self.secrets

    @property
    def breaks(self) -> bool:
        """Whether the answer breaks the code (the node's guess was the secret)."""
        return self.row is None


@dataclass(frozen=True)
class Step:
    """A guess played on the way to a node, its answer, and the path of the node it was played at."""

    guess: Code
    answer: Feedback
    path: tuple[Feedback, ...]


@dataclass(frozen=True)
class ExploredNode:
    """A node of a strategy's tree: the guess played there (in round :attr:`round`), the secrets that reach
    it, the guesses they need from the start of the game, and its split by answer."""

    rules: Rules
    strategy: str
    path: tuple[Feedback, ...]
    trail: tuple[Step, ...]
    guess: Code
    round: int
    secrets: int
    total: int
    worst: int
    branches: tuple[Branch, ...]
    tree: TreeStats
    """The whole tree's figures."""
    cached: bool
    """Whether the tree was read from a process's memory or the cache folder rather than built now."""
    seconds: float
    """What building the tree took."""
    listed: tuple[Code, ...] = ()
    """The secrets that reach the node, in code order, when they are at most :data:`LISTED`."""

    @property
    def expected(self) -> float:
        """Guesses on average, from the start of the game."""
        return self.total / self.secrets

    @property
    def game(self) -> str:
        """The game as a path names it (:func:`game_name`)."""
        return game_name(self.rules)

    def address(self, path: tuple[Feedback, ...] | None = None) -> str:
        """The page of this node (or of ``path`` in the same tree): ``/explore/classic/most-parts/1,0``."""
        tail = path_text(self.path if path is None else path, self.rules)
        return f"/explore/{self.game}/{self.strategy}" + (f"/{tail}" if tail else "")


def node_of(tree: Explored, path: tuple[Feedback, ...]) -> ExploredNode:
    """The node of ``tree`` that ``path`` leads to, with its figures (:class:`NotFoundError` when no
    secret gets there)."""
    row, trail = tree.row(path)
    branches = []
    if tree.solved[row]:
        depth = int(tree.depth[row])
        branches.append(Branch(tree.rules.win, 1, depth, depth, None, None))
    for child in tree.children(row):
        branches.append(
            Branch(
                tree.answer(child),
                int(tree.sizes[child]),
                int(tree.total[child]),
                int(tree.worst[child]),
                child,
                tree.guess(child),
            )
        )
    branches.sort(key=lambda b: (b.answer.black, b.answer.white))
    steps = tuple(Step(guess, answer, path[:k]) for k, (guess, answer) in enumerate(trail))
    return ExploredNode(
        rules=tree.rules,
        strategy=tree.strategy,
        path=path,
        trail=steps,
        guess=tree.guess(row),
        round=int(tree.depth[row]),
        secrets=int(tree.sizes[row]),
        total=int(tree.total[row]),
        worst=int(tree.worst[row]),
        branches=tuple(branches),
        tree=tree.stats,
        cached=tree.cached,
        seconds=tree.seconds,
        listed=tuple(tree.secrets(row)) if tree.sizes[row] <= LISTED else (),
    )


# -- building and keeping trees -----------------------------------------------------------------------

_kept: OrderedDict[tuple[Rules, str], Explored] = OrderedDict()
_lock = threading.Lock()


def forget() -> None:
    """Forget the trees kept in this process's memory (the cache folder's stay)."""
    with _lock:
        _kept.clear()


def _remember(key: tuple[Rules, str], tree: Explored) -> None:
    with _lock:
        _kept[key] = tree
        _kept.move_to_end(key)
        while len(_kept) > KEPT_TREES:
            _kept.popitem(last=False)


def _recall(key: tuple[Rules, str]) -> Explored | None:
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
        return found


def explored_tree(rules: Rules, name: str, *, check: Check, watch: Watch | None = None) -> Explored:
    """Strategy ``name``'s whole tree on ``rules`` with its figures per node: kept in memory, else read from
    the cache folder, else built (after ``check`` of its cost, watched by ``watch``) and kept in both."""
    name = strategy_named(name)
    key = (rules, name)
    found = _recall(key)
    if found is not None:
        return found
    from keypeg.analysis.compare import standard_strategy, tree_cost

    strategy = standard_strategy(name)
    digest = _digest(rules, strategy.conventions(), name)
    path = _cache_path(rules, name, digest)
    tree = _load(path, rules, name, digest)
    if tree is None:
        check(_solved_cost(rules) if name == "optimal" and _solved(rules, strategy) else tree_cost(rules, strategy))
        tree = _build(rules, name, strategy, watch)
        _save(path, tree, digest)
    _remember(key, tree)
    return tree


def explore(
    rules: Rules, name: str, path: tuple[Feedback, ...] = (), *, check: Check, watch: Watch | None = None
) -> ExploredNode:
    """The node ``path`` leads to in strategy ``name``'s tree on ``rules`` (see :func:`explored_tree`)."""
    return node_of(explored_tree(rules, name, check=check, watch=watch), path)


SOLVED_SECONDS_PER_SECRET = 4e-4
"""The optimal tree of a solved game, built by following its solved tree (shipped with keypeg or saved by
``keypeg optimal``) rather than searching, takes about this long a secret (measured: mini 0.37 s for
1,296, bulls-and-cows 2.6 s for 5,040, on 2 busy cores)."""


def _solved(rules: Rules, strategy: Any) -> bool:
    """Whether the optimal strategy has a solved tree for ``rules`` to follow (none to search)."""
    from keypeg.storage import cache_dir
    from keypeg.strategies.optimal import saved_optimal

    return saved_optimal(rules, strategy.pool, cache_dir()) is not None


def _solved_cost(rules: Rules) -> Estimate:
    """What building the optimal tree of a solved game takes: no search, a node a secret decided in Python."""
    from keypeg.analysis.cost import Estimate

    nodes = rules.size * 400
    work = f"the optimal tree on {rules.describe()} ({rules.size:,} codes), followed from its solved tree"
    return Estimate(work, nodes, rules.size * SOLVED_SECONDS_PER_SECRET, (("the tree's nodes", nodes),))


def _build(rules: Rules, name: str, strategy: Any, watch: Watch | None) -> Explored:
    from keypeg.analysis.tree import build_tree

    solved = 0

    def advance(n: int) -> None:
        nonlocal solved
        solved += n
        if watch is not None:
            watch(solved / rules.size)

    built = build_tree(strategy, rules, progress=advance)
    flat = built.flat()
    return Explored(
        rules,
        name,
        np.asarray(flat.colors, dtype=np.int8),
        np.asarray(flat.sizes, dtype=np.int64),
        np.asarray(flat.parents, dtype=np.int64),
        np.asarray(flat.feedbacks, dtype=np.int64),
        built.seconds,
    )


def _digest(rules: Rules, conventions: dict[str, Any], name: str) -> str:
    """What makes a tree: the game, the conventions, the rows for the optimal strategy, keypeg's version."""
    key: dict[str, Any] = {"format": FORMAT, "keypeg": __version__, "game": list(rules.game)}
    key["conventions"] = conventions
    if name == "optimal":
        key["rows"] = rules.rows
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def _cache_path(rules: Rules, name: str, digest: str) -> Path:
    from keypeg.storage import cache_dir

    return cache_dir() / f"explore-{rules.slug}-{name}-{digest}.json"


def _save(path: Path, tree: Explored, digest: str) -> None:
    """Keep ``tree`` at ``path`` (a failure to write is logged, never raised: the tree stands)."""
    from keypeg.storage import atomic_write, check_cache_folder

    data = {
        "keypeg_explorer": FORMAT,
        "digest": digest,
        "seconds": round(tree.seconds, 4),
        "colors": tree.colors.ravel().tolist(),
        "sizes": tree.sizes.tolist(),
        "parents": tree.parents.tolist(),
        "feedbacks": tree.feedbacks.tolist(),
    }
    try:
        check_cache_folder()
        atomic_write(path, json.dumps(data, separators=(",", ":")))
    except KeypegError as error:
        log.warning("cannot keep the explored tree: %s", error)


def _load(path: Path, rules: Rules, name: str, digest: str) -> Explored | None:
    """The tree kept at ``path`` if it is a whole, sound tree of these rules (anything else is ignored and
    built again: a file anyone may edit must never make a node's figures wrong or a page fail)."""
    try:
        if path.stat().st_size > MAX_CACHE_FILE:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("keypeg_explorer") != FORMAT or data.get("digest") != digest:
            return None
        sizes = np.asarray(data["sizes"], dtype=np.int64)
        n = sizes.size
        colors = np.asarray(data["colors"], dtype=np.int64).reshape(n, rules.pegs)
        parents = np.asarray(data["parents"], dtype=np.int64)
        feedbacks = np.asarray(data["feedbacks"], dtype=np.int64)
        seconds = float(data["seconds"])
    except (OSError, ValueError, TypeError, KeyError, OverflowError):
        return None
    if not _sound(rules, colors, sizes, parents, feedbacks):
        return None
    return Explored(rules, name, colors.astype(np.int8), sizes, parents, feedbacks, seconds, cached=True)


def _sound(rules: Rules, colors: Ints, sizes: Ints, parents: Ints, feedbacks: Ints) -> bool:
    """Whether arrays read back make a tree of ``rules``: parents before children, sizes that add up,
    answers that can happen and differ among siblings, colours of the game."""
    n = sizes.size
    if n == 0 or parents.shape != (n,) or feedbacks.shape != (n,) or colors.shape != (n, rules.pegs):
        return False
    stride, win = rules.pegs + 1, rules.pegs * (rules.pegs + 1)
    rows = np.arange(n)
    if parents[0] != -1 or sizes[0] != rules.size or ((parents[1:] < 0) | (parents[1:] >= rows[1:])).any():
        return False
    if (sizes < 1).any() or (colors < 0).any() or (colors >= rules.num_colors).any():
        return False
    answers = feedbacks[1:]
    wrong = (answers < 0) | (answers >= stride * stride) | (answers == win)
    if (wrong | (answers % stride + answers // stride > rules.pegs)).any():
        return False
    if np.unique(parents[1:] * stride * stride + answers).size != n - 1:
        return False
    below = np.bincount(parents[1:], weights=sizes[1:], minlength=n)
    left = sizes - below
    return bool(((left == 0) | (left == 1)).all())
