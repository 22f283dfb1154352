"""The kernel side of the exact optimal search (:mod:`keypeg.strategies.optimal`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np
import numpy.typing as npt

from keypeg import limits, machine
from keypeg.kernels import _optimal, _score

if TYPE_CHECKING:
    from keypeg.kernels import CodeSpace, Index

__all__ = ["ExactSearch", "SearchCounters"]

_NO_INDICES = np.zeros(0, dtype=np.int64)
HELPED_MIN = 64
"""Sets this large are searched by every thread numba may use; smaller ones by one."""


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
    """The kernel side of the exact optimal search: the feedback table, the lower bounds, the
    transposition table of searched sets (:func:`keypeg.limits.optimal_table_slots`) and the
    counters a live view reads.

    Args:
        space: the code space.
        bounds: ``bounds[r, n]``, the fewest total guesses ``n`` codes can need within ``r`` rounds,
            :data:`IMPOSSIBLE` or more where no strategy fits in ``r`` rounds.
        pool_all: guesses from every code (else only from the codes still possible).
        perms: the peg permutations that symmetry may use.
        symmetry_min: sets this large or larger are searched one guess per symmetry class.
        branching: the most non-winning answers a guess can get (the rules' feedbacks less the win by
            default), which ``bounds`` must have been built with.
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
        branching: int | None = None,
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
        self.halt = np.zeros(2, dtype=np.int64)
        self.memo = np.zeros((limits.optimal_table_slots(space.size), 4), dtype=np.int64)
        self._bounds = np.ascontiguousarray(bounds, dtype=np.int64)
        self._common = _optimal.Search(  # each thread's own fields set in _thread_ctx
            table=table,
            pos=bits.position_bits,
            cnt=bits.count_bits,
            stride=space.pegs + 1,
            colours=space.codes,
            perms=perms,
            bounds=self._bounds,
            win=space.win,
            pool_all=bool(pool_all),
            symmetry_min=symmetry_min,
            ncolours=rules.num_colors,
            branching=len(rules.feedbacks()) - 1 if branching is None else branching,
            hist=np.zeros((0, space.pegs), dtype=np.int8),
            stats=np.zeros(_optimal.STAT_SLOTS, dtype=np.int64),
            halt=self.halt,
            memo=self.memo,
            paths=np.zeros((1, 0, 0), dtype=np.int64),
            thread=0,
        )
        self._hists: list[npt.NDArray[np.int8]] = []  # each thread's history and counters, kept
        self._stats: list[npt.NDArray[np.int64]] = []
        self._ctxs: dict[int, list[_optimal.Search]] = {}
        self.stats = self._thread_ctx(1)[0].stats

    def _thread_ctx(self, threads: int) -> list[_optimal.Search]:
        """The search state of each of ``threads`` threads: their own history and counters, the
        table, the stop flags and the paths shared."""
        if threads not in self._ctxs:
            rows, pegs = self.space.rules.rows, self.space.pegs
            while len(self._stats) < threads:
                self._hists.append(np.zeros((rows + 1, pegs), dtype=np.int8))
                self._stats.append(np.zeros(_optimal.STAT_SLOTS, dtype=np.int64))
            paths = np.zeros((threads, rows + 2, _optimal.GUESS + 3 * (pegs + 1) ** 2), dtype=np.int64)
            self._ctxs[threads] = [
                self._common._replace(hist=self._hists[t], stats=self._stats[t], paths=paths, thread=t)
                for t in range(threads)
            ]
        return self._ctxs[threads]

    def solve(
        self, codes: Index, guesses: Sequence[int], rounds: int, budget: int, threads: int | None = None
    ) -> tuple[int, int]:
        """The fewest total guesses for ``codes`` (increasing indices) after ``guesses`` within
        ``rounds``, exactly if below ``budget`` (with an optimal guess), else a lower bound of at
        least ``budget`` (and guess -1). Sets of :data:`HELPED_MIN` codes or more are searched by
        ``threads`` threads (``numba.get_num_threads()`` by default, which numba keeps per thread),
        which share the work through the table; the answer is the calling thread's."""
        sorted_codes = np.ascontiguousarray(codes, dtype=np.int64)
        threads = (threads or self.threads()) if sorted_codes.size >= HELPED_MIN else 1
        ctxs = self._thread_ctx(threads)
        depth = len(guesses)
        for ctx in ctxs:
            hist, stats = ctx.hist, ctx.stats
            hist[:depth] = self.space.codes[list(guesses)]
            stats[_optimal.NODES + 1 :] = 0  # the sets searched add up
            stats[_optimal.ROOT_DEPTH] = depth
            stats[_optimal.ROOT_BEST] = self.UNBOUNDED
        self.stats = ctxs[0].stats
        self.halt[1] = 0
        helpers = [
            threading.Thread(
                target=_optimal.solve, args=(ctx, sorted_codes, depth, rounds, budget, _NO_INDICES), daemon=True
            )
            for ctx in ctxs[1:]
        ]
        for helper in helpers:
            helper.start()
        try:
            value, guess = _optimal.solve(ctxs[0], sorted_codes, depth, rounds, budget, _NO_INDICES)
        finally:
            self.halt[1] = 1
            for helper in helpers:
                helper.join()
        return int(value), int(guess)

    @staticmethod
    def threads() -> int:
        """The threads numba may use in the calling thread (``numba.get_num_threads()``), no more than
        the cores the machine's other work leaves idle now (:func:`keypeg.machine.busy_cores`; at least
        one): a thread that shares a core with other work only repeats the search's work."""
        wanted = int(numba.get_num_threads())
        return max(1, min(wanted, int(machine.idle_cores() + 0.5)))

    @property
    def largest(self) -> int:
        """The largest set the bounds cover."""
        return int(self._bounds.shape[1]) - 1

    def strategy(self, codes: Index, rounds: int) -> npt.NDArray[np.int64]:
        """The optimal strategy for ``codes`` (solved by :meth:`solve` already) as rows
        ``(parent row, feedback ordinal, guess, number of codes)``, parents first; a guess of -1
        marks a set the table no longer holds solved."""
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        nodes: npt.NDArray[np.int64] = _optimal.strategy(self._thread_ctx(1)[0], codes, rounds)
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
            nodes=sum(int(stats[_optimal.NODES]) for stats in self._stats),
            first_done=int(s[_optimal.ROOT_DONE]),
            first_count=int(s[_optimal.ROOT_COUNT]),
            best=int(s[_optimal.ROOT_BEST]),
            bound=int(s[_optimal.ROOT_BOUND]),
            parts_done=int(s[_optimal.PART_DONE]),
            parts=int(s[_optimal.PART_COUNT]),
        )

    def memo_arrays(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The table's entries as (keys, entries) arrays, to save them."""
        arrays: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] = _optimal.memo_arrays(self.memo)
        return arrays

    def load_memo(self, keys: npt.NDArray[np.int64], entries: npt.NDArray[np.int64]) -> None:
        """Add saved entries (from :meth:`memo_arrays`) to the table."""
        _optimal.memo_load(self.memo, np.ascontiguousarray(keys, np.int64), np.ascontiguousarray(entries, np.int64))

    def __len__(self) -> int:
        return int(_optimal.memo_count(self.memo))
