"""The kernel side of the exact optimal search (:mod:`keypeg.strategies.optimal`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt

from keypeg import limits
from keypeg.kernels import _optimal, _score

if TYPE_CHECKING:
    from keypeg.kernels import CodeSpace, Index

__all__ = ["ExactSearch", "SearchCounters"]

_NO_INDICES = np.zeros(0, dtype=np.int64)


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
    """The kernel side of the exact optimal search: the feedback table, the lower bounds, the memo
    of searched sets and the counters a live view reads.

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
        bits = space.encoded()
        if space.table is not None:
            table = space.table
        elif space.size <= limits.EXACT_TABLE_LIMIT:
            table = _score.score_table(bits.position_bits, bits.count_bits, space.pegs)
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
            bits.position_bits,
            bits.count_bits,
            space.pegs + 1,
            space.codes,
            perms,
            self._bounds,
            space.win,
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
