"""numba kernels: integer arrays in, integer arrays out, no validation inside.

Kernels that small jobs want on one thread are :class:`~keypeg.kernels._jit.Twins` of one body.

Feedback is the ordinal ``black * (pegs + 1) + white``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from keypeg.kernels._bits import popcount
from keypeg.kernels._jit import twins


@njit(inline="always", cache=True)
def _score(pos_a, cnt_a, pos_b, cnt_b, stride):  # type: ignore[no-untyped-def]
    black = 0
    common = 0
    for w in range(pos_a.shape[0]):
        black += popcount(pos_a[w] & pos_b[w])
    for w in range(cnt_a.shape[0]):
        common += popcount(cnt_a[w] & cnt_b[w])
    return black * stride + (common - black)


@njit(cache=True)
def feedback_many(pos_g, cnt_g, pos_s, cnt_s, pegs):  # type: ignore[no-untyped-def]
    """Ordinal feedback of one guess (1-D words) against each of many codes."""
    n = pos_s.shape[0]
    out = np.empty(n, dtype=np.uint8)
    stride = pegs + 1
    for i in range(n):
        out[i] = _score(pos_g, cnt_g, pos_s[i], cnt_s[i], stride)
    return out


@njit(cache=True)
def _count_row(row, pg, cg, pos_s, cnt_s, stride):  # type: ignore[no-untyped-def]
    for s in range(pos_s.shape[0]):
        row[_score(pg, cg, pos_s[s], cnt_s[s], stride)] += 1


@njit(cache=True)
def _count_row_1w(row, pg, cg, ps, cs, pegs):  # type: ignore[no-untyped-def]
    """:func:`_count_row` for encodings of one word each (up to 64 peg-colour bits): the ordinal
    ``black * (pegs + 1) + white`` equals ``black * pegs + (black + white)``."""
    for s in range(ps.shape[0]):
        row[popcount(pg & ps[s]) * pegs + popcount(cg & cs[s])] += 1


def _partition_counts(pos_g, cnt_g, pos_s, cnt_s, pegs):  # type: ignore[no-untyped-def]
    """``G x F`` counts: how many of the codes give each feedback to each guess."""
    stride = pegs + 1
    counts = np.zeros((pos_g.shape[0], stride * stride), dtype=np.int32)
    for g in prange(pos_g.shape[0]):
        _count_row(counts[g], pos_g[g], cnt_g[g], pos_s, cnt_s, stride)
    return counts


partition_counts = twins(_partition_counts)


def _partition_counts_1w(pos_g, cnt_g, pos_s, cnt_s, pegs):  # type: ignore[no-untyped-def]
    """:func:`partition_counts` for encodings of one word each (up to 64 peg-colour bits)."""
    counts = np.zeros((pos_g.shape[0], (pegs + 1) * (pegs + 1)), dtype=np.int32)
    ps = pos_s[:, 0].copy()
    cs = cnt_s[:, 0].copy()
    for g in prange(pos_g.shape[0]):
        _count_row_1w(counts[g], pos_g[g, 0], cnt_g[g, 0], ps, cs, pegs)
    return counts


partition_counts_1w = twins(_partition_counts_1w)


@njit(cache=True)
def _count_row_table(row, trow, secrets):  # type: ignore[no-untyped-def]
    for s in range(secrets.shape[0]):
        row[trow[secrets[s]]] += 1


def _partition_counts_table(table, guesses, secrets, pegs):  # type: ignore[no-untyped-def]
    """The partition counts from a precomputed ``N x N`` feedback table and index arrays."""
    counts = np.zeros((guesses.shape[0], (pegs + 1) * (pegs + 1)), dtype=np.int32)
    for g in prange(guesses.shape[0]):
        _count_row_table(counts[g], table[guesses[g]], secrets)
    return counts


partition_counts_table = twins(_partition_counts_table)


@njit(parallel=True, cache=True)
def score_table(pos, cnt, pegs):  # type: ignore[no-untyped-def]
    """The ``N x N`` table of ordinal feedback between every pair of codes."""
    n = pos.shape[0]
    stride = pegs + 1
    table = np.empty((n, n), dtype=np.uint8)
    for g in prange(n):
        for s in range(n):
            table[g, s] = _score(pos[g], cnt[g], pos[s], cnt[s], stride)
    return table


def _consistent_mask(pos_s, cnt_s, pos_h, cnt_h, fb_h, pegs):  # type: ignore[no-untyped-def]
    """Whether each code gives every past guess (``pos_h``, ``cnt_h``) its recorded feedback ``fb_h``."""
    n = pos_s.shape[0]
    stride = pegs + 1
    mask = np.ones(n, dtype=np.bool_)
    for s in prange(n):
        for h in range(pos_h.shape[0]):
            if _score(pos_h[h], cnt_h[h], pos_s[s], cnt_s[s], stride) != fb_h[h]:
                mask[s] = False
                break
    return mask


consistent_mask = twins(_consistent_mask)


@njit(cache=True)
def history_distance(pos_c, cnt_c, pos_h, cnt_h, blacks, whites, weight, pegs):  # type: ignore[no-untyped-def]
    """How far each code is from fitting the scored guesses: ``weight * sum |black' - black| +
    sum |white' - white|`` over the history (0 for a code that fits)."""
    n = pos_c.shape[0]
    stride = pegs + 1
    out = np.zeros(n, dtype=np.int64)
    for c in range(n):
        total = 0
        for h in range(pos_h.shape[0]):
            black, white = divmod(_score(pos_c[c], cnt_c[c], pos_h[h], cnt_h[h], stride), stride)
            total += weight * abs(black - blacks[h]) + abs(white - whites[h])
        out[c] = total
    return out
