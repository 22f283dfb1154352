"""The fast path: one typed door to the numba kernels.

:class:`CodeSpace` (every code of a rule set, enumerated once) owns the codes, their bit
encodings and, for small games, the feedback table; it offers feedbacks, partition counts
and costs, consistent filtering, splits and symmetry classes over code indices.
:class:`Scorer` does the scoring for codes given as colour rows, in games too large to
enumerate. :class:`ExactSearch` is the kernel side of the optimal search. The numba
modules (``_score``, ``_select``, ``_symmetry``, ``_optimal``, ``_tree``, ...) are private to this
package: outside it, what is compiled is named by :class:`Kernel` (``Kernel.SCORING``, ``Kernel.TREES``,
...), and :func:`cold_kernels` says which numba's cache lacks.

Codes are identified by their index in the lexicographic enumeration of the code space
(index order is numeric order), feedback by the ordinal ``black * (pegs + 1) + white``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property, lru_cache
from typing import NamedTuple

import numba
import numpy as np
import numpy.typing as npt

from keypeg import limits
from keypeg.code import Code, Feedback
from keypeg.errors import InvalidCodeError, TooLargeError
from keypeg.kernels import _clock, _fit, _score, _select, _symmetry, _tree
from keypeg.kernels._cache import EVERYDAY as EVERYDAY_KERNELS
from keypeg.kernels._cache import Kernel, compile_seconds
from keypeg.kernels._cache import cold as cold_kernels
from keypeg.kernels._clock import compiling_seconds
from keypeg.kernels._jit import load_cache_cheaply
from keypeg.kernels._prewarm import compile_tree_kernel
from keypeg.kernels._space import code_keys, encode, enumerate_codes
from keypeg.kernels.exact import ExactSearch, SearchCounters
from keypeg.rules import Rules

__all__ = [
    "CodeSpace",
    "Scorer",
    "Encoded",
    "Index",
    "COSTS",
    "ExactSearch",
    "SearchCounters",
    "TreeRule",
    "FlatSubtree",
    "threads",
    "set_threads",
    "compile_tree_kernel",
    "Kernel",
    "EVERYDAY_KERNELS",
    "cold_kernels",
    "compile_seconds",
    "compiling_seconds",
    "warm_up",
    "feedback_ordinal",
    "ordinal_feedback",
    "FitCount",
    "count_fitting",
]

Index = npt.NDArray[np.intp]
Words = npt.NDArray[np.uint64]

load_cache_cheaply()  # before the first call of a kernel
_clock.listen()  # compile time is counted apart: no time budget counts it


def feedback_ordinal(feedback: Feedback, pegs: int) -> int:
    """The kernels' number for a feedback."""
    return feedback.black * (pegs + 1) + feedback.white


def ordinal_feedback(ordinal: int, pegs: int) -> Feedback:
    """The feedback a kernel ordinal stands for."""
    black, white = divmod(int(ordinal), pegs + 1)
    return Feedback(black, white)


class FitCount(NamedTuple):
    """What :func:`count_fitting` found: ``codes`` fit (all of them when ``complete``, else at least
    that many), after visiting ``nodes`` nodes of the search."""

    codes: int
    complete: bool
    nodes: int


def count_fitting(rules: Rules, history: Sequence[tuple[Code, Feedback]], *, limit: int, budget: int) -> FitCount:
    """The codes of ``rules`` that fit ``history``, counted up to ``limit`` by a depth-first search over
    the pegs that visits at most ``budget`` nodes (any size of game: nothing is enumerated). Under the
    ``colours`` feedback a code is its colours: only sorted codes are counted."""
    guesses = np.array([g.colors for g, _ in history], dtype=np.int64).reshape(len(history), rules.pegs)
    blacks = np.array([f.black for _, f in history], dtype=np.int64)
    keys = np.array([f.black + f.white for _, f in history], dtype=np.int64)
    mode = _fit.MODES[rules.feedback]
    found, nodes, complete = _fit.count_fitting(
        guesses, blacks, keys, rules.num_colors, rules.repeats, limit, budget, mode
    )
    return FitCount(int(found), bool(complete), int(nodes))


COSTS = {
    "largest-part": _select.LARGEST_PART,
    "sum-of-squares": _select.SUM_OF_SQUARES,
    "fewest-parts": _select.FEWEST_PARTS,
    "sum-n-log-n": _select.TABLE_SUM,
    "table-sum": _select.TABLE_SUM,
}
"""Partition costs the one-step strategies minimise: largest part (worst case), sum of squared
part sizes (expected size), minus the number of parts (most parts), sum of n log2 n (entropy), and the
sum over parts of ``values[size]`` for given values (``table-sum``)."""


class TreeRule(NamedTuple):
    """How the tree kernel decides at every node (see :mod:`keypeg.kernels._tree`): the cost minimised
    (a key of :data:`COSTS` but ``table-sum``; ``all-parts``, every part size compared, largest first,
    the winning part left out; or ``simple``), guesses from every code or the fitting
    ones, ties to the ``last`` code, a fitting guess preferred, symmetry classes from this many fitting
    codes (0: never) under the peg permutations ``perms``, the relative tolerance of ties, and what a
    fitting guess's cost is lowered by."""

    cost: str
    pool_all: bool
    last: bool
    prefer: bool
    symmetry_from: int
    perms: npt.NDArray[np.int64]
    tolerance: float = 0.0
    bonus: float = 0.0
    """Taken off the cost of a guess that fits."""


class FlatSubtree(NamedTuple):
    """A subtree as flat arrays, root first and each node after its parent: each node's guess (code
    index; -1 for a node left to grow), its number of secrets, its parent's row (-1 for the root),
    the feedback ordinal from the parent (-1 for the root) and where its secrets start in ``codes``;
    and ``solved[d]``, the secrets solved by the ``d``-th guess."""

    guesses: npt.NDArray[np.int64]
    sizes: npt.NDArray[np.int64]
    parents: npt.NDArray[np.int64]
    feedbacks: npt.NDArray[np.int64]
    starts: npt.NDArray[np.int64]
    codes: npt.NDArray[np.int64]
    solved: npt.NDArray[np.int64]

    def part(self, row: int) -> npt.NDArray[np.int64]:
        """The secrets that reach node ``row``, increasing."""
        return self.codes[self.starts[row] : self.starts[row] + self.sizes[row]]

    def path(self, row: int) -> list[int]:
        """The guesses played before node ``row``, from the root."""
        played = []
        while self.parents[row] >= 0:
            row = int(self.parents[row])
            played.append(int(self.guesses[row]))
        return played[::-1]


class Encoded(NamedTuple):
    """Codes as bit sets (see :mod:`keypeg.kernels._space`): ``N x W`` words each of position
    bits (their common bits count the black pegs) and count bits (black plus white)."""

    position_bits: Words
    count_bits: Words

    @property
    def size(self) -> int:
        """How many codes."""
        return int(self.position_bits.shape[0])

    def take(self, rows: Index | int) -> Encoded:
        """The codes at ``rows`` (one row gives a set of one code)."""
        picked = np.atleast_1d(np.asarray(rows, dtype=np.intp))
        return Encoded(self.position_bits[picked], self.count_bits[picked])


def threads() -> int:
    """The threads the kernels run on (see ``keypeg --threads``)."""
    return int(numba.get_num_threads())


def set_threads(count: int) -> None:
    """Run the kernels on ``count`` threads (at most the threads numba started with)."""
    numba.set_num_threads(max(1, min(count, int(numba.config.NUMBA_NUM_THREADS))))  # type: ignore[attr-defined]


def _parallel(jobs: int) -> bool:
    """Whether a kernel job of ``jobs`` code pairs is worth the other threads."""
    return jobs >= limits.PARALLEL_MIN_PAIRS


def _blocks(n: int, parallel: bool) -> npt.NDArray[np.int64]:
    """Bounds of the blocks of ``n`` jobs that threads take (a single block when serial)."""
    if not parallel:
        return np.array([0, n], dtype=np.int64)
    blocks = min(n, 8 * numba.get_num_threads())
    return np.linspace(0, n, blocks + 1).astype(np.int64)


@lru_cache(maxsize=64)
def _n_log2_n(n: int) -> npt.NDArray[np.float64]:
    """``k log2 k`` for every ``k`` from 0 to ``n``."""
    k = np.arange(n + 1, dtype=np.float64)
    values: npt.NDArray[np.float64] = k * np.log2(np.maximum(k, 1.0))
    return values


_NO_VALUES = np.zeros(1)


def _cost_values(cost: str, n: int, values: npt.NDArray[np.float64] | None) -> tuple[int, npt.NDArray[np.float64]]:
    """The kernel's number for ``cost`` and the values it reads, for partitions of ``n`` codes."""
    if cost == "sum-n-log-n":
        values = _n_log2_n(n)
    elif cost == "table-sum":
        if values is None or values.size <= n:
            raise ValueError("table-sum needs a value for every part size up to the number of codes")
        values = np.ascontiguousarray(values, dtype=np.float64)
    else:
        values = _NO_VALUES
    return COSTS[cost], values


class Scorer:
    """Scoring for the codes of one rule set given as colour rows, at any size (nothing is enumerated).

    >>> scorer = Scorer.of(Rules(4, 6))
    >>> codes = scorer.encode(np.array([[0, 0, 1, 1], [1, 0, 2, 1], [2, 2, 2, 2]]))
    >>> [str(ordinal_feedback(f, 4)) for f in scorer.feedbacks(codes.take(0), codes)]
    ['4,0', '2,1', '0,0']
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.pegs = rules.pegs

    @staticmethod
    @lru_cache(maxsize=32)
    def of(rules: Rules) -> Scorer:
        """The (cached) scorer of ``rules``."""
        return Scorer(rules)

    @property
    def num_feedbacks(self) -> int:
        """Width of a partition table: one column per feedback ordinal."""
        return (self.pegs + 1) ** 2

    def encode(self, codes: npt.NDArray[np.integer]) -> Encoded:
        """The bit encodings of codes given as rows of colour numbers."""
        rows = np.ascontiguousarray(codes, dtype=np.int8).reshape(-1, self.pegs)
        if not self.rules.ordered:
            rows = np.sort(rows, axis=1)  # a code is its colours
        return Encoded(*encode(rows, self.rules.num_colors, self.rules.repeats, self.rules.feedback))

    def feedbacks(self, guess: Encoded, codes: Encoded) -> npt.NDArray[np.uint8]:
        """Feedback ordinals of the one code of ``guess`` against each of ``codes``."""
        result: npt.NDArray[np.uint8] = _score.feedback_many(
            guess.position_bits[0], guess.count_bits[0], codes.position_bits, codes.count_bits, self.pegs
        )
        return result

    def partition(self, guesses: Encoded, codes: Encoded) -> npt.NDArray[np.int32]:
        """``G x F`` counts of ``codes`` per feedback ordinal, for each of ``guesses``."""
        one_word = guesses.position_bits.shape[1] == 1 and guesses.count_bits.shape[1] == 1
        twins = _score.partition_counts_1w if one_word else _score.partition_counts
        kernel = twins.on(_parallel(guesses.size * codes.size))
        result: npt.NDArray[np.int32] = kernel(
            guesses.position_bits, guesses.count_bits, codes.position_bits, codes.count_bits, self.pegs
        )
        return result

    def partition_costs(
        self, guesses: Encoded, codes: Encoded, cost: str, values: npt.NDArray[np.float64] | None = None
    ) -> npt.NDArray[np.float64]:
        """The cost (see :data:`COSTS`, smaller is better) of each guess's partition of ``codes``;
        ``table-sum`` needs ``values``, one per part size from 0 to ``codes.size``."""
        number, values = _cost_values(cost, codes.size, values)
        parallel = _parallel(guesses.size * codes.size)
        kernel = _select.partition_costs.on(parallel)
        g, s = guesses, codes
        result: npt.NDArray[np.float64] = kernel(
            g.position_bits,
            g.count_bits,
            s.position_bits,
            s.count_bits,
            self.pegs,
            number,
            _blocks(g.size, parallel),
            values,
        )
        return result

    def first_perfect_split(self, guesses: Encoded, codes: Encoded, *, backwards: bool = False) -> int | None:
        """The position of the first of ``guesses`` (last if ``backwards``) that gives each of ``codes`` a
        different feedback, if any."""
        g, s = guesses, codes
        found = int(
            _select.first_perfect_split(
                g.position_bits, g.count_bits, s.position_bits, s.count_bits, self.pegs, backwards
            )
        )
        return None if found < 0 else found

    def two_step_parts(self, guesses: Encoded, codes: Encoded, second: Encoded) -> npt.NDArray[np.int64]:
        """For each guess, the sum over the parts it makes of ``codes`` of the most parts one of ``second``
        splits that part into (a part of one or two codes counts its size)."""
        g, s, h = guesses, codes, second
        totals: npt.NDArray[np.int64] = _select.two_step_parts(
            g.position_bits, g.count_bits, s.position_bits, s.count_bits, h.position_bits, h.count_bits, self.pegs
        )
        return totals

    def consistent_mask(
        self, codes: Encoded, guesses: Encoded, ordinals: npt.NDArray[np.integer]
    ) -> npt.NDArray[np.bool_]:
        """Which of ``codes`` give each of ``guesses`` its feedback ordinal from ``ordinals``."""
        kernel = _score.consistent_mask.on(_parallel(codes.size * guesses.size))
        fb = np.ascontiguousarray(ordinals, dtype=np.uint8)
        mask: npt.NDArray[np.bool_] = kernel(
            codes.position_bits, codes.count_bits, guesses.position_bits, guesses.count_bits, fb, self.pegs
        )
        return mask

    def distance(
        self,
        codes: Encoded,
        guesses: Encoded,
        blacks: npt.NDArray[np.integer],
        whites: npt.NDArray[np.integer],
        weight: int = 1,
    ) -> npt.NDArray[np.int64]:
        """For each code, ``weight * sum |black' - black| + sum |white' - white|`` over the guesses
        scored ``(black, white)``, ``(black', white')`` being what the code would score: 0 exactly for
        the codes that fit."""
        b = np.ascontiguousarray(blacks, dtype=np.int64)
        w = np.ascontiguousarray(whites, dtype=np.int64)
        result: npt.NDArray[np.int64] = _score.history_distance(
            codes.position_bits, codes.count_bits, guesses.position_bits, guesses.count_bits, b, w, weight, self.pegs
        )
        return result


class CodeSpace:
    """Every code of a rule set, enumerated once and shared by all rules of the same game.

    >>> space = CodeSpace.of(Rules(4, 6))
    >>> space.size, str(space.code(7)), space.index(space.rules.parse("ABAB"))
    (1296, 'AABB', 37)
    """

    def __init__(self, rules: Rules) -> None:
        if rules.size > limits.MAX_SPACE:
            raise TooLargeError(
                f"{rules.describe()} has {rules.size:,} codes, more than the {limits.MAX_SPACE:,} keypeg enumerates"
            )
        self.rules = rules
        self.pegs = rules.pegs
        self.scorer = Scorer.of(rules)
        self.codes, position, count, self.keys = _game_arrays(
            rules.pegs, rules.num_colors, rules.repeats, rules.feedback
        )
        self._bits = Encoded(position, count)
        self.size = int(self.codes.shape[0])
        self.all: Index = np.arange(self.size, dtype=np.intp)
        self.win = feedback_ordinal(rules.win, rules.pegs)
        """The ordinal of the winning feedback."""

    @staticmethod
    @lru_cache(maxsize=32)
    def of(rules: Rules) -> CodeSpace:
        """The (cached) code space of ``rules``."""
        return CodeSpace(rules)

    @property
    def num_feedbacks(self) -> int:
        """Width of a partition table: one column per feedback ordinal."""
        return (self.pegs + 1) ** 2

    @cached_property
    def table(self) -> npt.NDArray[np.uint8] | None:
        """The ``N x N`` feedback table, for spaces up to :data:`keypeg.limits.TABLE_LIMIT` codes."""
        if self.size > limits.TABLE_LIMIT:
            return None
        result: npt.NDArray[np.uint8] = _score.score_table(self._bits.position_bits, self._bits.count_bits, self.pegs)
        return result

    # -- codes and indices ---------------------------------------------------------------

    def code(self, index: int) -> Code:
        """The code at ``index``."""
        return Code(tuple(int(c) for c in self.codes[index]), self.rules)

    def index(self, code: Code) -> int:
        """The index of ``code`` (a legal code of these rules)."""
        return int(self.indices([code])[0])

    def indices(self, codes: Iterable[Code]) -> Index:
        """The indices of many codes."""
        codes = list(codes)
        r = self.rules
        game = (r.pegs, r.num_colors, r.repeats, r.feedback)
        for code in codes:
            c = code.rules
            if (c.pegs, c.num_colors, c.repeats, c.feedback) != game or len(code.colors) != self.pegs:
                raise InvalidCodeError(f"{str(code)!r} is not a code of {self.rules.describe()}")
        rows = np.array([c.colors for c in codes], dtype=np.int8).reshape(-1, self.pegs)
        if not r.ordered:
            rows = np.sort(rows, axis=1)  # a code is its colours
        keys = code_keys(rows, self.rules.num_colors)
        found = np.searchsorted(self.keys, keys)
        bad = (found >= self.size) | (self.keys[np.minimum(found, self.size - 1)] != keys)
        if bad.any():
            colors = tuple(int(c) for c in rows[int(np.argmax(bad))])
            raise InvalidCodeError(f"{self.rules.format(colors)!r} is not a code of {self.rules.describe()}")
        return found.astype(np.intp)

    def encoded(self, indices: Index | None = None) -> Encoded:
        """The bit encodings of the codes at ``indices`` (all codes by default), for :attr:`scorer`."""
        if indices is None or indices is self.all:
            return self._bits
        return self._bits.take(indices)

    # -- scoring -------------------------------------------------------------------------

    def feedbacks(self, guess: int, secrets: Index | None = None) -> npt.NDArray[np.uint8]:
        """Feedback ordinals of the code at ``guess`` against ``secrets`` (all codes by default)."""
        if self.table is not None:
            row: npt.NDArray[np.uint8] = self.table[guess]
            return row if secrets is None else row[secrets]
        return self.scorer.feedbacks(self._bits.take(guess), self.encoded(secrets))

    def split(self, guess: int, codes: Index, *, keep_win: bool = True) -> list[tuple[int, Index]]:
        """The parts ``guess`` makes of ``codes``: ``(feedback ordinal, the codes giving it)`` by increasing
        ordinal, each part in the order of ``codes``; the winning part left out unless ``keep_win``."""
        feedbacks = self.feedbacks(guess, codes)
        order = np.argsort(feedbacks, kind="stable")
        counts = np.bincount(feedbacks, minlength=self.num_feedbacks)
        ends = np.cumsum(counts).tolist()
        return [
            (f, codes[order[ends[f] - int(counts[f]) : ends[f]]])
            for f in np.flatnonzero(counts).tolist()
            if keep_win or f != self.win
        ]

    def partition(self, guesses: Index, secrets: Index) -> npt.NDArray[np.int32]:
        """``G x F`` counts of ``secrets`` per feedback ordinal, for each of ``guesses``."""
        guesses = np.ascontiguousarray(guesses, dtype=np.intp)
        secrets = np.ascontiguousarray(secrets, dtype=np.intp)
        if self.table is not None:
            kernel = _score.partition_counts_table.on(_parallel(guesses.size * secrets.size))
            result: npt.NDArray[np.int32] = kernel(self.table, guesses, secrets, self.pegs)
            return result
        return self.scorer.partition(self.encoded(guesses), self.encoded(secrets))

    def partition_costs(
        self, guesses: Index, secrets: Index, cost: str, values: npt.NDArray[np.float64] | None = None
    ) -> npt.NDArray[np.float64]:
        """The cost (see :data:`COSTS`, smaller is better) of each guess's partition of ``secrets``;
        ``table-sum`` needs ``values``, one per part size from 0 to ``len(secrets)``."""
        guesses = np.ascontiguousarray(guesses, dtype=np.intp)
        secrets = np.ascontiguousarray(secrets, dtype=np.intp)
        if self.table is None:
            return self.scorer.partition_costs(self.encoded(guesses), self.encoded(secrets), cost, values)
        number, values = _cost_values(cost, secrets.size, values)
        parallel = _parallel(guesses.size * secrets.size)
        kernel = _select.partition_costs_table.on(parallel)
        chunks = _blocks(guesses.size, parallel)
        result: npt.NDArray[np.float64] = kernel(self.table, guesses, secrets, self.pegs, number, chunks, values)
        return result

    def first_perfect_split(self, guesses: Index, secrets: Index, *, backwards: bool = False) -> int | None:
        """The first of ``guesses`` (last if ``backwards``) that gives each of ``secrets`` a different feedback."""
        guesses = np.asarray(guesses, dtype=np.intp)
        found = self.scorer.first_perfect_split(self.encoded(guesses), self.encoded(secrets), backwards=backwards)
        return None if found is None else int(guesses[found])

    def two_step_parts(self, guesses: Index, secrets: Index, second: Index) -> npt.NDArray[np.int64]:
        """For each guess, the sum over its parts of ``secrets`` of the most parts one of ``second``
        splits that part into (see :meth:`Scorer.two_step_parts`)."""
        return self.scorer.two_step_parts(self.encoded(guesses), self.encoded(secrets), self.encoded(second))

    def consistent(self, history: Sequence[tuple[int, int]], within: Index | None = None) -> Index:
        """Indices of the codes (among ``within``, all by default) that fit every ``(guess, ordinal)``."""
        candidates = self.all if within is None else np.asarray(within, dtype=np.intp)
        if not history:
            return candidates.copy()
        guesses = np.array([g for g, _ in history], dtype=np.intp)
        ordinals = np.array([f for _, f in history], dtype=np.uint8)
        mask = self.scorer.consistent_mask(self.encoded(candidates), self.encoded(guesses), ordinals)
        return candidates[mask]

    # -- whole trees ---------------------------------------------------------------------

    @property
    def grows_trees(self) -> bool:
        """Whether the tree kernel takes these codes: every game (codes of one word each, or of several)."""
        return True

    @cached_property
    def _words(self) -> tuple[Words, Words]:
        """The encodings as the tree kernel reads them: flat arrays where each fits one word, else as they are."""
        bits = self._bits
        if not limits.one_word(self.pegs, self.rules.num_colors, self.rules.repeats):
            return bits.position_bits, bits.count_bits  # the kernel's multi-word path
        return np.ascontiguousarray(bits.position_bits[:, 0]), np.ascontiguousarray(bits.count_bits[:, 0])

    def _node_rule(self, rule: TreeRule, n: int) -> _tree.NodeRule:
        """How the tree kernel decides for ``rule`` on nodes of up to ``n`` codes."""
        pegs = self.pegs
        number = {"simple": _tree.SIMPLE, "all-parts": _tree.ALL_PARTS}.get(rule.cost) or COSTS[rule.cost]
        r = self.rules
        # every feedback but (pegs - 1, 1) under standard feedback; the counts the others give
        parts = (
            (pegs + 1) * (pegs + 2) // 2 - (1 if pegs > 1 else 0) if r.feedback == "standard" else len(r.feedbacks())
        )
        return _tree.NodeRule(
            pegs=pegs,
            colors=r.num_colors,
            cost=number,
            pool_all=bool(rule.pool_all),
            last=bool(rule.last),
            prefer=bool(rule.prefer),
            # the kernel's classes and ruled-out colours read position bits: not those of sorted codes
            symmetry_from=int(rule.symmetry_from) if r.ordered else 0,
            parts=parts,
            repeats=bool(r.repeats),
            values=_n_log2_n(n) if rule.cost == "sum-n-log-n" else _NO_VALUES,
            bonus=float(rule.bonus),
            tolerance=float(rule.tolerance),
            perms=rule.perms,
        )

    def grow(
        self,
        rule: TreeRule,
        history: Sequence[int],
        candidates: Index,
        *,
        root: int = -1,
        root_pool: Index | None = None,
        depth: int,
        max_depth: int,
        words: int = 0,
    ) -> FlatSubtree | None:
        """The subtree ``rule`` plays for the fitting codes ``candidates`` (increasing) after the
        guesses ``history`` (code indices), ``depth`` guesses deep (deeper nodes are left to grow);
        its root guesses ``root`` if not negative, else the best of ``root_pool`` (one code per
        symmetry class) if given. ``None`` if a node is deeper than ``max_depth``. Releases the GIL:
        subtrees grow on threads side by side. ``words``: read each code as at least that many words (the
        multi-word path, which wide games take, forced on any game: for tests)."""
        seg = np.ascontiguousarray(candidates, dtype=np.int64)
        pool = np.ascontiguousarray(root_pool if root_pool is not None else (), dtype=np.int64)
        count, *arrays = _tree.grow(
            _tree.Space(*_tree.widened(*self._words, words), self.codes),
            seg,
            np.asarray(history, dtype=np.int64),
            root,
            pool,
            self._node_rule(rule, seg.size),
            depth,
            max_depth,
        )
        return None if count == _tree.NO_PROGRESS else FlatSubtree(*arrays)

    # -- symmetry ------------------------------------------------------------------------

    def extreme_mask(
        self,
        pool: Index,
        guesses: Sequence[int] | Index,
        candidates: Index,
        perms: npt.NDArray[np.int64],
        *,
        largest: bool = False,
    ) -> npt.NDArray[np.bool_]:
        """Which codes of ``pool`` are the smallest (``largest``) of their symmetry class, for the
        fitting codes ``candidates`` after ``guesses`` (see :mod:`keypeg.symmetry`).

        The symmetries: the peg permutations (rows of ``perms``) that fix every guess, with the
        colour maps they force; colours in no guess but in some candidate are interchangeable, and
        so are colours in no candidate.
        """
        colors = self.rules.num_colors
        pool = np.asarray(pool, dtype=np.intp)
        if not self.rules.ordered:
            # sorted codes: no peg permutation is a symmetry; relabelling the free (ruled-out) colours in
            # order of appearance keeps a sorted code sorted only when they go to the first ones
            if largest:
                return np.ones(pool.size, dtype=np.bool_)
            perms = np.arange(self.pegs, dtype=np.int64)[None, :]
        played = self.codes[np.asarray(guesses, dtype=np.intp)].astype(np.int64).reshape(-1, self.pegs)
        kept, maps = _symmetry.fixing_symmetries(np.ascontiguousarray(perms, dtype=np.int64), played, colors)
        present = np.zeros(colors, dtype=np.bool_)
        present[self.codes[candidates].ravel()] = True  # not np.unique: it imports numpy.ma (start-up)
        used = np.zeros(colors, dtype=np.bool_)
        used[played.ravel()] = True
        parallel = _parallel(8 * pool.size)
        kernel = _symmetry.extreme_mask.on(parallel)
        mask: npt.NDArray[np.bool_] = kernel(
            self.codes[pool], kept, maps, ~used & present, ~present, largest, _blocks(pool.size, parallel)
        )
        return mask


@lru_cache(maxsize=8)
def _game_arrays(
    pegs: int, colors: int, repeats: bool, feedback: str
) -> tuple[npt.NDArray[np.int8], Words, Words, npt.NDArray[np.int64]]:
    codes = enumerate_codes(pegs, colors, repeats, ordered=feedback != "colours")
    position, count = encode(codes, colors, repeats, feedback)
    return codes, position, count, code_keys(codes, colors)


def warm_up(kernels: Iterable[Kernel] = EVERYDAY_KERNELS) -> None:
    """Load ``kernels`` from numba's cache, or compile them on a first run, by calling them on a tiny game
    with the types the engine passes (a feedback table and bit encodings alike): a server does this
    before it answers. A kernel compiled later (a parallel twin) is counted by :func:`compiling_seconds`."""
    wanted = set(kernels)
    space = CodeSpace.of(Rules(2, 3))
    every, bits = space.all, space.encoded()
    if Kernel.SCORING in wanted:
        space.partition(every, every)
        space.scorer.partition(bits, bits)
        space.scorer.feedbacks(bits.take(0), bits)
        space.consistent([(0, 0)])
    if Kernel.SELECTION in wanted:
        for cost in ("largest-part", "sum-n-log-n"):
            space.partition_costs(every, every, cost)
            space.scorer.partition_costs(bits, bits, cost)
        space.first_perfect_split(every, every)
        space.two_step_parts(every, every, every)
    if Kernel.SYMMETRY in wanted:
        space.extreme_mask(every, [0], every, np.array([[0, 1], [1, 0]], dtype=np.int64))
    if Kernel.TREES in wanted:
        compile_tree_kernel()
        perms = np.array([[0, 1]], dtype=np.int64)
        space.grow(TreeRule("largest-part", False, False, True, 0, perms), (), every, depth=8, max_depth=8)
