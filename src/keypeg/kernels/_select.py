"""numba kernels that rank guesses from their partition tables (``G x F`` counts)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from keypeg.kernels._bits import popcount as _popcount
from keypeg.kernels._jit import twins
from keypeg.kernels._score import _score as _ordinal


@njit(cache=True)
def _parts_at_most(pos_h, cnt_h, pos_p, cnt_p, pegs, seen):  # type: ignore[no-untyped-def]
    """Number of parts guess ``h`` splits the codes ``p`` into (``seen`` is scratch space)."""
    stride = pegs + 1
    parts = 0
    for f in range(seen.shape[0]):
        seen[f] = False
    for s in range(pos_p.shape[0]):
        f = _ordinal(pos_h, cnt_h, pos_p[s], cnt_p[s], stride)
        if not seen[f]:
            seen[f] = True
            parts += 1
    return parts


@njit(parallel=True, cache=True)
def two_step_parts(pos_g, cnt_g, pos_s, cnt_s, pos_all, cnt_all, pegs):  # type: ignore[no-untyped-def]
    """For each guess, the sum over its parts of the most parts any second guess splits that part into."""
    stride = pegs + 1
    nf = stride * stride
    out = np.zeros(pos_g.shape[0], dtype=np.int64)
    for g in prange(pos_g.shape[0]):
        labels = np.empty(pos_s.shape[0], dtype=np.int64)
        for s in range(pos_s.shape[0]):
            labels[s] = _ordinal(pos_g[g], cnt_g[g], pos_s[s], cnt_s[s], stride)
        seen = np.empty(nf, dtype=np.bool_)
        total = 0
        for f in range(nf):
            members = np.nonzero(labels == f)[0]
            size = members.shape[0]
            if size <= 2:
                total += size
                continue
            pos_p = pos_s[members]
            cnt_p = cnt_s[members]
            best = 1
            for h in range(pos_all.shape[0]):
                parts = _parts_at_most(pos_all[h], cnt_all[h], pos_p, cnt_p, pegs, seen)
                if parts > best:
                    best = parts
                    if best == size:
                        break
            total += best
        out[g] = total
    return out


LARGEST_PART, SUM_OF_SQUARES, FEWEST_PARTS, TABLE_SUM = 0, 1, 2, 3
"""Costs of a partition, smaller is better: largest part, sum of squares, minus the number of parts, and the
sum over parts of ``values[size]`` (``n log2 n`` for entropy, a lower bound on guesses for the optimal search)."""


@njit(inline="always", cache=True)
def _part_cost(total, n, cost, values):  # type: ignore[no-untyped-def]
    """Add a part of ``n`` codes to a running cost."""
    if cost == LARGEST_PART:
        return max(total, float(n))
    if cost == SUM_OF_SQUARES:
        return total + n * n
    if cost == FEWEST_PARTS:
        return total - 1.0
    return total + values[n]


@njit(inline="always", cache=True)
def _row_cost(row, labels, n, cost, values):  # type: ignore[no-untyped-def]
    """Cost of the counts in ``row`` (labels of the ``n`` codes in ``labels``); leaves ``row`` zero."""
    total = 0.0
    if n < row.shape[0]:
        for s in range(n):
            count = row[labels[s]]
            if count:
                total = _part_cost(total, count, cost, values)
                row[labels[s]] = 0
    else:
        for f in range(row.shape[0]):
            if row[f]:
                total = _part_cost(total, row[f], cost, values)
                row[f] = 0
    return total


@njit(cache=True)
def _guess_cost(row, labels, pg, cg, pos_s, cnt_s, pegs, cost, values):  # type: ignore[no-untyped-def]
    """Cost of one guess's partition (multi-word encodings); ``row`` starts and ends all zero."""
    stride = pegs + 1
    n = pos_s.shape[0]
    for s in range(n):
        f = _ordinal(pg, cg, pos_s[s], cnt_s[s], stride)
        labels[s] = f
        row[f] += 1
    return _row_cost(row, labels, n, cost, values)


@njit(cache=True)
def _costs_block(out, lo, hi, pos_g, cnt_g, pos_s, cnt_s, pegs, cost, values):  # type: ignore[no-untyped-def]
    """Costs of guesses ``lo`` to ``hi`` into ``out``."""
    m = pos_s.shape[0]
    row = np.zeros((pegs + 1) * (pegs + 1), dtype=np.int64)
    labels = np.empty(m, dtype=np.int64)
    if pos_g.shape[1] == 1 and cnt_g.shape[1] == 1:
        for g in range(lo, hi):
            p0 = pos_g[g, 0]
            c0 = cnt_g[g, 0]
            for s in range(m):
                f = _popcount(p0 & pos_s[s, 0]) * pegs + _popcount(c0 & cnt_s[s, 0])
                labels[s] = f
                row[f] += 1
            out[g] = _row_cost(row, labels, m, cost, values)
    else:
        for g in range(lo, hi):
            out[g] = _guess_cost(row, labels, pos_g[g], cnt_g[g], pos_s, cnt_s, pegs, cost, values)


def _partition_costs(pos_g, cnt_g, pos_s, cnt_s, pegs, cost, chunks, values):  # type: ignore[no-untyped-def]
    """The cost of each guess's partition of the codes, without keeping the partition table.

    Each iteration takes the block of guesses between consecutive ``chunks`` bounds (one block
    for the serial twin, a few per thread for the parallel one).
    """
    out = np.empty(pos_g.shape[0], dtype=np.float64)
    for c in prange(chunks.shape[0] - 1):
        _costs_block(out, chunks[c], chunks[c + 1], pos_g, cnt_g, pos_s, cnt_s, pegs, cost, values)
    return out


partition_costs = twins(_partition_costs)


@njit(cache=True)
def _table_costs_block(out, lo, hi, table, guesses, secrets, pegs, cost, values):  # type: ignore[no-untyped-def]
    m = secrets.shape[0]
    row = np.zeros((pegs + 1) * (pegs + 1), dtype=np.int64)
    labels = np.empty(m, dtype=np.int64)
    for g in range(lo, hi):
        t = guesses[g]
        for s in range(m):
            f = table[t, secrets[s]]
            labels[s] = f
            row[f] += 1
        out[g] = _row_cost(row, labels, m, cost, values)


def _partition_costs_table(table, guesses, secrets, pegs, cost, chunks, values):  # type: ignore[no-untyped-def]
    """:func:`partition_costs` from a precomputed feedback table."""
    out = np.empty(guesses.shape[0], dtype=np.float64)
    for c in prange(chunks.shape[0] - 1):
        _table_costs_block(out, chunks[c], chunks[c + 1], table, guesses, secrets, pegs, cost, values)
    return out


partition_costs_table = twins(_partition_costs_table)


@njit(cache=True)
def first_perfect_split(pos_g, cnt_g, pos_s, cnt_s, pegs, backwards):  # type: ignore[no-untyped-def]
    """Position of the first guess (last if ``backwards``) that gives every code a different
    feedback, or -1 if none does."""
    stride = pegs + 1
    seen = np.zeros(stride * stride, dtype=np.bool_)
    n = pos_g.shape[0]
    m = pos_s.shape[0]
    labels = np.empty(m, dtype=np.int64)
    for k in range(n):
        g = n - 1 - k if backwards else k
        split = True
        done = 0
        for s in range(m):
            f = _ordinal(pos_g[g], cnt_g[g], pos_s[s], cnt_s[s], stride)
            labels[s] = f
            done = s + 1
            if seen[f]:
                split = False
                break
            seen[f] = True
        for s in range(done):
            seen[labels[s]] = False
        if split:
            return g
    return -1
