"""The fast path: a typed facade over the numba kernels.

The rest of keypeg calls this module only; the JIT functions stay private. Codes
are identified by their index in the lexicographic enumeration of the code space
(index order is numeric order), feedback by the ordinal ``black * (pegs + 1) + white``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property, lru_cache
from typing import NamedTuple

import numba
import numpy as np
import numpy.typing as npt

from keypeg.code import Code, Feedback
from keypeg.errors import InvalidCodeError, TooLargeError
from keypeg.kernels import _optimal, _score, _select, _symmetry
from keypeg.kernels._space import code_keys, encode, enumerate_codes
from keypeg.limits import EXACT_TABLE_LIMIT, MAX_SPACE, PARALLEL_MIN_PAIRS, TABLE_LIMIT
from keypeg.rules import Rules

__all__ = [
    "CodeSpace",
    "Index",
    "MAX_SPACE",
    "TABLE_LIMIT",
    "feedback_ordinal",
    "ordinal_feedback",
    "encode_codes",
    "feedback_many",
    "partition_counts",
    "consistent_mask",
    "fixing_symmetries",
    "canonical_keys",
    "extreme_mask",
    "COSTS",
    "two_step_parts",
    "history_distance",
    "ExactSearch",
    "SearchCounters",
]

Index = npt.NDArray[np.intp]


def feedback_ordinal(feedback: Feedback, pegs: int) -> int:
    """The kernels' number for a feedback."""
    return feedback.black * (pegs + 1) + feedback.white


def ordinal_feedback(ordinal: int, pegs: int) -> Feedback:
    """The feedback a kernel ordinal stands for."""
    black, white = divmod(int(ordinal), pegs + 1)
    return Feedback(black, white)


def encode_codes(codes: npt.NDArray[np.int8], rules: Rules) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Bit encodings of arbitrary codes (rows of colour numbers), for the kernels below."""
    return encode(np.ascontiguousarray(codes, dtype=np.int8), rules.num_colors, rules.repeats)


def feedback_many(
    guess: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    codes: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    pegs: int,
) -> npt.NDArray[np.uint8]:
    """Ordinal feedback of one encoded guess (1-D words) against each encoded code."""
    result: npt.NDArray[np.uint8] = _score.feedback_many(guess[0], guess[1], codes[0], codes[1], pegs)
    return result


def partition_counts(
    guesses: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    codes: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    pegs: int,
) -> npt.NDArray[np.int32]:
    """``G x F`` counts of codes per feedback ordinal for each encoded guess, parallel over guesses."""
    kernel = (
        _score.partition_counts_1w
        if guesses[0].shape[1] == 1 and guesses[1].shape[1] == 1
        else (_score.partition_counts)
    )
    result: npt.NDArray[np.int32] = kernel(guesses[0], guesses[1], codes[0], codes[1], pegs)
    return result


def consistent_mask(
    codes: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    guesses: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    ordinals: npt.NDArray[np.uint8],
    pegs: int,
) -> npt.NDArray[np.bool_]:
    """Which encoded codes give every encoded guess its recorded feedback ordinal."""
    result: npt.NDArray[np.bool_] = _score.consistent_mask(codes[0], codes[1], guesses[0], guesses[1], ordinals, pegs)
    return result


def fixing_symmetries(
    perms: npt.NDArray[np.int64], guesses: npt.NDArray[np.int64], colors: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The peg permutations (rows of ``perms``) that fix every guess, with the colour maps they force."""
    kept: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] = _symmetry.fixing_symmetries(perms, guesses, colors)
    return kept


def canonical_keys(
    codes: npt.NDArray[np.int8],
    symmetries: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]],
    free: npt.NDArray[np.bool_],
    ruled: npt.NDArray[np.bool_],
    colors: int,
    largest: bool,
) -> npt.NDArray[np.int64]:
    """Key of the smallest (``largest``) code each code maps to; see :mod:`keypeg.symmetry`."""
    parallel = codes.shape[0] * symmetries[0].shape[0] >= PARALLEL_MIN_PAIRS
    keys: npt.NDArray[np.int64] = _symmetry.canonical_keys(
        codes, symmetries[0], symmetries[1], free, ruled, colors, largest, parallel
    )
    return keys


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


def extreme_mask(
    codes: npt.NDArray[np.int8],
    symmetries: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]],
    free: npt.NDArray[np.bool_],
    ruled: npt.NDArray[np.bool_],
    colors: int,
    largest: bool,
) -> npt.NDArray[np.bool_]:
    """Which codes are the smallest (``largest``) of their class; see :mod:`keypeg.symmetry`."""
    parallel = codes.shape[0] >= PARALLEL_MIN_PAIRS // 8
    mask: npt.NDArray[np.bool_] = _symmetry.extreme_mask(
        codes, symmetries[0], symmetries[1], free, ruled, colors, largest, parallel
    )
    return mask


def two_step_parts(
    guesses: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    codes: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    second: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    pegs: int,
) -> npt.NDArray[np.int64]:
    """For each guess, the sum over its parts of ``codes`` of the most parts one ``second`` guess makes."""
    totals: npt.NDArray[np.int64] = _select.two_step_parts(
        guesses[0], guesses[1], codes[0], codes[1], second[0], second[1], pegs
    )
    return totals


def history_distance(
    codes: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    guesses: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]],
    blacks: npt.NDArray[np.int64],
    whites: npt.NDArray[np.int64],
    pegs: int,
    weight: int = 1,
) -> npt.NDArray[np.int64]:
    """For each encoded code, ``weight * sum |black' - black| + sum |white' - white|`` over the
    encoded scored guesses: 0 exactly for the codes that fit."""
    distance: npt.NDArray[np.int64] = _score.history_distance(
        codes[0], codes[1], guesses[0], guesses[1], blacks, whites, weight, pegs
    )
    return distance


class CodeSpace:
    """Every code of a rule set, enumerated once and shared by all rules of the same game.

    >>> space = CodeSpace.of(Rules(4, 6))
    >>> space.size, str(space.code(7)), space.index(space.rules.parse("ABAB"))
    (1296, 'AABB', 37)
    """

    def __init__(self, rules: Rules) -> None:
        if rules.size > MAX_SPACE:
            raise TooLargeError(
                f"{rules.describe()} has {rules.size:,} codes, more than the {MAX_SPACE:,} keypeg enumerates"
            )
        self.rules = rules
        self.pegs = rules.pegs
        self.codes, self.position_bits, self.count_bits, self.keys = _game_arrays(
            rules.pegs, rules.num_colors, rules.repeats
        )
        self.size = int(self.codes.shape[0])
        self.all: Index = np.arange(self.size, dtype=np.intp)

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
        """The ``N x N`` feedback table, for spaces up to :data:`TABLE_LIMIT` codes."""
        if self.size > TABLE_LIMIT:
            return None
        result: npt.NDArray[np.uint8] = _score.score_table(self.position_bits, self.count_bits, self.pegs)
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
        game = (self.rules.pegs, self.rules.num_colors, self.rules.repeats)
        for code in codes:
            if (code.rules.pegs, code.rules.num_colors, code.rules.repeats) != game or len(code.colors) != self.pegs:
                raise InvalidCodeError(f"{str(code)!r} is not a code of {self.rules.describe()}")
        rows = np.array([c.colors for c in codes], dtype=np.int8).reshape(-1, self.pegs)
        keys = code_keys(rows, self.rules.num_colors)
        found = np.searchsorted(self.keys, keys)
        bad = (found >= self.size) | (self.keys[np.minimum(found, self.size - 1)] != keys)
        if bad.any():
            colors = tuple(int(c) for c in rows[int(np.argmax(bad))])
            raise InvalidCodeError(f"{self.rules.format(colors)!r} is not a code of {self.rules.describe()}")
        return found.astype(np.intp)

    def encoded(self, indices: Index) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        """The bit encodings of the codes at ``indices`` (increasing, or a single index)."""
        if indices is self.all:
            return self.position_bits, self.count_bits
        return self.position_bits[indices], self.count_bits[indices]

    # -- scoring -------------------------------------------------------------------------

    def feedbacks(self, guess: int, secrets: Index | None = None) -> npt.NDArray[np.uint8]:
        """Feedback ordinals of the code at ``guess`` against ``secrets`` (all codes by default)."""
        if self.table is not None:
            row: npt.NDArray[np.uint8] = self.table[guess]
            return row if secrets is None else row[secrets]
        codes = (self.position_bits, self.count_bits) if secrets is None else self.encoded(secrets)
        return feedback_many((self.position_bits[guess], self.count_bits[guess]), codes, self.pegs)

    def partition(self, guesses: Index, secrets: Index) -> npt.NDArray[np.int32]:
        """``G x F`` counts of ``secrets`` per feedback ordinal, for each of ``guesses``."""
        guesses = np.ascontiguousarray(guesses, dtype=np.intp)
        secrets = np.ascontiguousarray(secrets, dtype=np.intp)
        if self.table is not None:
            parallel = guesses.size * secrets.size >= PARALLEL_MIN_PAIRS
            kernel = _score.partition_counts_table if parallel else _score.partition_counts_table_serial
            result: npt.NDArray[np.int32] = kernel(self.table, guesses, secrets, self.pegs)
            return result
        return partition_counts(self.encoded(guesses), self.encoded(secrets), self.pegs)

    def partition_costs(
        self, guesses: Index, secrets: Index, cost: str, values: npt.NDArray[np.float64] | None = None
    ) -> npt.NDArray[np.float64]:
        """The cost (see :data:`COSTS`, smaller is better) of each guess's partition of ``secrets``;
        ``table-sum`` needs ``values``, one per part size from 0 to ``len(secrets)``."""
        guesses = np.ascontiguousarray(guesses, dtype=np.intp)
        secrets = np.ascontiguousarray(secrets, dtype=np.intp)
        if cost == "sum-n-log-n":
            values = n_log2_n(secrets.size)
        elif cost == "table-sum":
            if values is None or values.size <= secrets.size:
                raise ValueError("table-sum needs a value for every part size up to the number of codes")
        else:
            values = _NO_VALUES
        chunks = _blocks(guesses.size, guesses.size * secrets.size >= PARALLEL_MIN_PAIRS)
        code = COSTS[cost]
        result: npt.NDArray[np.float64]
        if self.table is not None:
            result = _select.partition_costs_table(self.table, guesses, secrets, self.pegs, code, chunks, values)
        else:
            g, s = self.encoded(guesses), self.encoded(secrets)
            result = _select.partition_costs(g[0], g[1], s[0], s[1], self.pegs, code, chunks, values)
        return result

    def first_perfect_split(self, guesses: Index, secrets: Index, *, backwards: bool = False) -> int | None:
        """The first of ``guesses`` (last if ``backwards``) that gives each of ``secrets`` a different feedback."""
        g, s = self.encoded(np.asarray(guesses, dtype=np.intp)), self.encoded(np.asarray(secrets, dtype=np.intp))
        found = int(_select.first_perfect_split(g[0], g[1], s[0], s[1], self.pegs, backwards))
        return None if found < 0 else int(guesses[found])

    def consistent(self, history: Sequence[tuple[int, int]], within: Index | None = None) -> Index:
        """Indices of the codes (among ``within``, all by default) that fit every ``(guess, ordinal)``."""
        candidates = self.all if within is None else np.asarray(within, dtype=np.intp)
        if not history:
            return candidates.copy()
        guesses = np.array([g for g, _ in history], dtype=np.intp)
        ordinals = np.array([f for _, f in history], dtype=np.uint8)
        mask = consistent_mask(self.encoded(candidates), self.encoded(guesses), ordinals, self.pegs)
        return candidates[mask]


_NO_VALUES = np.zeros(1)
_NO_INDICES = np.zeros(0, dtype=np.int64)


@lru_cache(maxsize=64)
def n_log2_n(n: int) -> npt.NDArray[np.float64]:
    """``k log2 k`` for every ``k`` from 0 to ``n``."""
    k = np.arange(n + 1, dtype=np.float64)
    values: npt.NDArray[np.float64] = k * np.log2(np.maximum(k, 1.0))
    return values


def _blocks(n: int, parallel: bool) -> npt.NDArray[np.int64]:
    """Bounds of the blocks of ``n`` jobs that threads take (a single block when serial)."""
    if not parallel:
        return np.array([0, n], dtype=np.int64)
    blocks = min(n, 8 * numba.get_num_threads())
    return np.linspace(0, n, blocks + 1).astype(np.int64)


@lru_cache(maxsize=8)
def _game_arrays(
    pegs: int, colors: int, repeats: bool
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.int64]]:
    codes = enumerate_codes(pegs, colors, repeats)
    position, count = encode(codes, colors, repeats)
    return codes, position, count, code_keys(codes, colors)


class SearchCounters(NamedTuple):
    """Counters of a running :class:`ExactSearch`: sets searched; first guesses done and to try;
    the best total so far and the bound of the first guess being tried; parts of that first
    guess solved, and in all."""

    nodes: int
    first_done: int
    first_count: int
    best: int
    bound: int
    parts_done: int
    parts: int


class ExactSearch:
    """The kernel side of the exact optimal search (:mod:`keypeg.strategies.optimal`): the feedback
    table, the lower bounds, the memo of searched sets and the counters a live view reads.

    Args:
        space: the code space.
        bounds: ``bounds[r, n]``, the fewest total guesses ``n`` codes can need within ``r`` rounds,
            :data:`IMPOSSIBLE` or more where no strategy fits in ``r`` rounds.
        pool_all: guesses from every code (else only from the codes still possible).
        perms: the peg permutations that symmetry may use.
        symmetry_min: sets this large or larger are searched one guess per symmetry class.
    """

    IMPOSSIBLE = _optimal.BIG
    UNBOUNDED = _optimal.UNBOUNDED

    def __init__(
        self,
        space: CodeSpace,
        bounds: npt.NDArray[np.int64],
        pool_all: bool,
        perms: npt.NDArray[np.int64],
        symmetry_min: int,
    ) -> None:
        self.space = space
        if space.table is not None:
            table = space.table
        elif space.size <= EXACT_TABLE_LIMIT:
            table = _score.score_table(space.position_bits, space.count_bits, space.pegs)
        else:
            table = np.zeros((0, 0), dtype=np.uint8)
        rules = space.rules
        self.stats = np.zeros(_optimal.STAT_SLOTS, dtype=np.int64)
        self.halt = np.zeros(1, dtype=np.int64)
        self.memo = _optimal.new_memo()
        self.hist = np.zeros((rules.rows + 1, space.pegs), dtype=np.int8)
        self._bounds = np.ascontiguousarray(bounds, dtype=np.int64)
        self._ctx = (  # in the order of the field constants of keypeg.kernels._optimal
            table,
            space.position_bits,
            space.count_bits,
            space.pegs + 1,
            space.codes,
            perms,
            self._bounds,
            feedback_ordinal(rules.win, rules.pegs),
            pool_all,
            symmetry_min,
            rules.num_colors,
            len(rules.feedbacks()) - 1,
            self.hist,
            self.stats,
            self.halt,
            self.memo,
        )

    def solve(self, codes: Index, guesses: Sequence[int], rounds: int, budget: int) -> tuple[int, int]:
        """The fewest total guesses for ``codes`` (increasing indices) after ``guesses`` within
        ``rounds``, exactly if below ``budget`` (with an optimal guess), else a lower bound of at
        least ``budget`` (and guess -1)."""
        depth = len(guesses)
        self.hist[:depth] = self.space.codes[list(guesses)]
        self.stats[_optimal.ROOT_DEPTH] = depth
        self.stats[_optimal.ROOT_BEST] = self.UNBOUNDED
        for slot in (_optimal.ROOT_DONE, _optimal.ROOT_COUNT, _optimal.PART_DONE, _optimal.PART_COUNT):
            self.stats[slot] = 0
        sorted_codes = np.ascontiguousarray(codes, dtype=np.int64)
        value, guess = _optimal.solve(self._ctx, sorted_codes, depth, rounds, budget, _NO_INDICES)
        return int(value), int(guess)

    @property
    def largest(self) -> int:
        """The largest set the bounds cover."""
        return int(self._bounds.shape[1]) - 1

    def strategy(self, codes: Index, rounds: int) -> npt.NDArray[np.int64]:
        """The optimal strategy for ``codes`` (solved by :meth:`solve` already) as rows
        ``(parent row, feedback ordinal, guess, number of codes)``, parents first; a guess of -1
        marks a set left unsolved."""
        nodes: npt.NDArray[np.int64] = _optimal.strategy(self._ctx, np.ascontiguousarray(codes, dtype=np.int64), rounds)
        return nodes

    def stop(self) -> None:
        """Ask a running :meth:`solve` (in another thread) to unwind at once; it then stays stopped
        until :meth:`go_on`."""
        self.halt[0] = 1

    def go_on(self) -> None:
        """Let :meth:`solve` run again after :meth:`stop` (what it proved before stays)."""
        self.halt[0] = 0
        self.stats[_optimal.ABORTED] = 0

    def counters(self) -> SearchCounters:
        """What the search has done so far (safe to read while it runs)."""
        s = self.stats
        return SearchCounters(
            nodes=int(s[_optimal.NODES]),
            first_done=int(s[_optimal.ROOT_DONE]),
            first_count=int(s[_optimal.ROOT_COUNT]),
            best=int(s[_optimal.ROOT_BEST]),
            bound=int(s[_optimal.ROOT_BOUND]),
            parts_done=int(s[_optimal.PART_DONE]),
            parts=int(s[_optimal.PART_COUNT]),
        )

    def memo_arrays(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The memo as (keys, entries) arrays, to save it."""
        arrays: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] = _optimal.memo_arrays(self.memo)
        return arrays

    def load_memo(self, keys: npt.NDArray[np.int64], entries: npt.NDArray[np.int64]) -> None:
        """Add saved memo entries (from :meth:`memo_arrays`)."""
        _optimal.memo_load(self.memo, np.ascontiguousarray(keys, np.int64), np.ascontiguousarray(entries, np.int64))

    def __len__(self) -> int:
        return len(self.memo)
