"""numba kernel for whole strategy trees of the one-step heuristics: no Python per node.

A subtree is grown depth first with an explicit stack. Each node's fitting codes sit in one
buffer (a node's parts replace it in place), and the node's guess is the winner of a scan of
the pool under the order (cost, then a fitting guess if ``prefer``, then the first or last
index): an order independent of the scan, so the fitting codes are scanned first, each guess
stops being scored once its partial cost cannot win, and the scan ends once no guess left can
beat the winner. Only the smallest (largest) code of each symmetry class is scored where the
node has enough fitting codes (see :mod:`keypeg.symmetry`). Codes are their position bits and count
bits (see :mod:`keypeg.kernels._space`): one word each where they fit (1-D arrays), else a row of words
each (2-D arrays, games such as 7x10 or 7x11): the same functions, compiled once for each shape.

The decision is :class:`keypeg.strategies.lookahead.PartitionStrategy`'s, exactly; the slow
reference is :func:`keypeg.analysis.tree.build_tree` on the Python path.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit, types
from numba.extending import overload

from keypeg.kernels._bits import popcount
from keypeg.kernels._select import FEWEST_PARTS, LARGEST_PART, SUM_OF_SQUARES, TABLE_SUM, _row_cost
from keypeg.kernels._symmetry import _is_extreme, _relabel_order, fixing_symmetries

SIMPLE = 4
"""Not a partition cost: the first (last) fitting code (Shapiro's simple strategy)."""
ALL_PARTS = 5
"""Every part size compared, largest first, the part of a guess that wins left out (mmstrat's minmax)."""
_BLOCK = 16
"""Codes scored between two checks of a guess's partial cost."""
_SCAN_BLOCK = 1024
"""Guesses scored together by :func:`_select_block` (their words stay in the first-level cache)."""
NO_PROGRESS = -1
"""What :func:`grow` returns when a node is deeper than the depth limit."""
_BIT_PEGS = 9
"""Up to this many pegs a feedback's :func:`_label` is below 64: most parts keeps the feedbacks seen as the
bits of one word (the ordinal ``black * (pegs + 1) + white`` is below 64 up to 7 pegs only)."""
_PRUNED = np.inf
_MARGIN = 1e-6
"""Relative slack of the partial entropy before a guess is dropped: its exact score is summed
in another order, so only guesses clearly out of the tie are dropped."""


# -- codes of one word or of several: every kernel below reads a code's bits through these ----------------
# A code's position bits (and its count bits) are one ``uint64`` where they fit one word (the arrays of the
# space are then 1-D), else a row of words (2-D arrays, ``N x W``): numba compiles each function once for
# each, and the one-word machine code is what it was before the wide codes existed.


def _common(a, b):  # type: ignore[no-untyped-def]
    """The bits words ``a`` and ``b`` (or rows of words) share: the popcount of their AND."""
    return sum(bin(int(x) & int(y)).count("1") for x, y in zip(np.atleast_1d(a), np.atleast_1d(b), strict=True))


def _put(target, i, source, j):  # type: ignore[no-untyped-def]
    """``target[i] = source[j]``, a word or a row of words."""
    target[i] = source[j]


def _rows_like(words, n):  # type: ignore[no-untyped-def]
    """An empty array of ``n`` codes' bits, of the shape of ``words``'s rows."""
    return np.empty((n, *words.shape[1:]), dtype=np.uint64)


def _shaped(mask, like):  # type: ignore[no-untyped-def]
    """The words ``mask`` as one word if ``like`` is one, else as a row."""
    return mask if np.ndim(like) else mask[0]


@overload(_common, jit_options={"cache": True})
def _common_words(a, b):  # type: ignore[no-untyped-def]
    if isinstance(a, types.Integer):
        return lambda a, b: popcount(a & b)

    def rows(a, b):  # type: ignore[no-untyped-def]
        total = np.uint64(0)
        for k in range(a.shape[0]):
            total += popcount(a[k] & b[k])
        return total

    return rows


@overload(_put, jit_options={"cache": True})
def _put_words(target, i, source, j):  # type: ignore[no-untyped-def]
    if target.ndim == 1:

        def one(target, i, source, j):  # type: ignore[no-untyped-def]
            target[i] = source[j]

        return one

    def rows(target, i, source, j):  # type: ignore[no-untyped-def]
        for k in range(target.shape[1]):
            target[i, k] = source[j, k]

    return rows


@overload(_rows_like, jit_options={"cache": True})
def _rows_like_words(words, n):  # type: ignore[no-untyped-def]
    if words.ndim == 1:
        return lambda words, n: np.empty(n, dtype=np.uint64)
    return lambda words, n: np.empty((n, words.shape[1]), dtype=np.uint64)


@overload(_shaped, jit_options={"cache": True})
def _shaped_words(mask, like):  # type: ignore[no-untyped-def]
    if isinstance(like, types.Integer):
        return lambda mask, like: mask[0]
    return lambda mask, like: mask


@njit(cache=True)
def _lower_bound(n, cost, parts):  # type: ignore[no-untyped-def]
    """A cost no guess can beat, splitting ``n`` codes into at most ``parts`` parts."""
    if cost == LARGEST_PART:
        return float((n + parts - 1) // parts)
    if cost == SUM_OF_SQUARES:
        q, r = divmod(n, parts)
        return float(r * (q + 1) * (q + 1) + (parts - r) * q * q)
    if cost == FEWEST_PARTS:
        return -float(min(n, parts))
    if cost == ALL_PARTS:
        return -np.inf  # part sizes are compared whole (see decide)
    return 0.0 if n <= parts else -np.inf  # sum of n log n: a split into single codes sums to 0


@njit(inline="always", cache=True)
def _cost(pg, cg, ps, cs, pegs, cost, values, limit, most, row, labels):  # type: ignore[no-untyped-def]
    """The cost of guess (``pg``, ``cg``) on the codes (``ps``, ``cs``), or ``inf`` once it surely
    exceeds ``limit`` (``most``: the most parts a split can have); ``row`` starts and ends all zero."""
    m = ps.shape[0]
    nf = row.shape[0]
    total = 0.0
    pruned = False
    if cost == LARGEST_PART:
        top = limit
        for s in range(m):
            f = _common(pg, ps[s]) * pegs + _common(cg, cs[s])
            k = row[f] + 1
            row[f] = k
            if k > top:
                pruned = True
                break
        if not pruned:
            for f in range(nf):
                total = max(total, float(row[f]))
    elif cost == SUM_OF_SQUARES:
        squares = 0
        top = limit
        for s in range(m):
            f = _common(pg, ps[s]) * pegs + _common(cg, cs[s])
            k = row[f] + 1
            row[f] = k
            squares += 2 * k - 1
            if squares > top:
                pruned = True
                break
        total = float(squares)
    elif cost == FEWEST_PARTS and pegs <= _BIT_PEGS:  # the feedbacks seen as the bits of one word
        need = -limit  # the parts it must reach
        if most < need:
            return _PRUNED
        seen = np.uint64(0)
        start = 0
        while start < m:  # blocks of codes the compiler can vectorise, checked after each
            end = min(start + _BLOCK, m)
            for s in range(start, end):
                seen |= np.uint64(1) << _label(pg, cg, ps[s], cs[s])
            start = end
            if int(popcount(seen)) + m - end < need:  # too few parts even if every code left made one
                return _PRUNED
        return -float(popcount(seen))
    elif cost == FEWEST_PARTS:
        parts = 0
        need = -limit
        for s in range(m):
            f = _common(pg, ps[s]) * pegs + _common(cg, cs[s])
            if row[f] == 0:
                parts += 1
            row[f] += 1
            if min(parts + m - 1 - s, most) < need:
                pruned = True
                break
        total = -float(parts)
    else:
        return _table_sum(pg, cg, ps, cs, pegs, values, limit, row, labels)
    for f in range(nf):
        row[f] = 0
    return _PRUNED if pruned else total


@njit(cache=True)
def _table_sum(pg, cg, ps, cs, pegs, values, limit, row, labels):  # type: ignore[no-untyped-def]
    """:func:`_cost`'s table sum: the same sum, in the same order, as the Python path."""
    total = 0.0
    for s in range(ps.shape[0]):
        f = _common(pg, ps[s]) * pegs + _common(cg, cs[s])
        labels[s] = f
        k = row[f] + 1
        row[f] = k
        total += values[k] - values[k - 1]
        if total > limit:
            row[:] = 0
            return _PRUNED
    return _row_cost(row, labels, ps.shape[0], TABLE_SUM, values)


@njit(inline="always", cache=True)
def _profile(pg, cg, ps, cs, pegs, win, limit, row, sizes):  # type: ignore[no-untyped-def]
    """The part sizes of guess (``pg``, ``cg``) on the codes (``ps``, ``cs``), largest first, the winning
    part left out, into ``sizes`` (zeros after them); ``False`` once a part is larger than ``limit``.
    ``row`` starts and ends all zero."""
    nf = row.shape[0]
    kept = True
    for s in range(ps.shape[0]):
        f = _common(pg, ps[s]) * pegs + _common(cg, cs[s])
        if f != win:
            row[f] += 1
            if row[f] > limit:
                kept = False
                break
    k = 0
    for f in range(nf):
        c = row[f]
        if c:
            row[f] = 0
            if kept:
                i = k
                while i > 0 and sizes[i - 1] < c:  # insertion, largest first
                    sizes[i] = sizes[i - 1]
                    i -= 1
                sizes[i] = c
                k += 1
    for i in range(k, nf):
        sizes[i] = 0
    return kept


@njit(inline="always", cache=True)
def _order(a, b):  # type: ignore[no-untyped-def]
    """-1, 0 or 1 as the part sizes ``a`` come before, with or after ``b`` (largest first)."""
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
        if a[i] == 0:
            break
    return 0


@njit(inline="always", cache=True)
def _label(pg, cg, p, c):  # type: ignore[no-untyped-def]
    """A number of its own for the feedback of guess (``pg``, ``cg``) to code (``p``, ``c``), below
    ``(pegs + 1) * (pegs + 2) / 2``: ``total * (total + 1) / 2 + black`` (total: black plus white)."""
    t = _common(cg, c)
    return ((t * (t + np.uint64(1))) >> np.uint64(1)) + _common(pg, p)


@njit(cache=True)
def _ruled_out(present, pegs, keep, last, like):  # type: ignore[no-untyped-def]
    """The position bits of the colours not in ``present`` but the first (``last``: the last) ``keep`` of them,
    shaped as ``like`` (a code's position bits: one word, or a row of words)."""
    colors = present.shape[0]
    mask = np.zeros((pegs * colors + 63) // 64, dtype=np.uint64)
    for k in range(colors):
        c = colors - 1 - k if last else k
        if present[c]:
            continue
        if keep > 0:
            keep -= 1
            continue
        for peg in range(pegs):
            bit = peg * colors + c
            mask[bit // 64] |= np.uint64(1) << np.uint64(bit % 64)
    return _shaped(mask, like)


@njit(inline="always", cache=True)
def _better(g, fits, best_g, best_fits, prefer, last):  # type: ignore[no-untyped-def]
    """Whether guess ``g`` wins a tie against the winner so far."""
    if best_g < 0:
        return True
    if prefer and fits != best_fits:
        return fits
    return g > best_g if last else g < best_g


@njit(cache=True)
def _block_costs(pos, cnt, width, ps, cs, pegs, cost, values, acc, labels, out):  # type: ignore[no-untyped-def]
    """The costs of the first ``width`` guesses of (``pos``, ``cnt``) on the codes (``ps``, ``cs``)
    into ``out``, the inner loops over the guesses so that they are vectorised however few the codes. Most parts
    keeps the feedbacks seen as the bits of one word; largest part and sum of squares keep each
    guess's part sizes as counters packed in words (8 bits each below 256 codes, else 16), one
    word of ``acc`` after another, the parts numbered ``total * (total + 1) / 2 + black``; a table
    sum adds ``values[size]`` in that order (not the order of :func:`_cost`)."""
    one = np.uint64(1)
    pg, cg = pos[:width], cnt[:width]
    if cost == FEWEST_PARTS:
        seen = labels
        seen[:width] = 0
        for s in range(ps.shape[0]):
            p, c = ps[s], cs[s]
            for i in range(width):
                seen[i] |= one << _label(pg[i], cg[i], p, c)
        for i in range(width):
            out[i] = -float(popcount(seen[i]))
        return
    shift = np.uint64(3 if ps.shape[0] < 256 else 4)
    per = np.uint64(6) - shift  # a word holds 2**per counters
    slot = (one << per) - one
    full = (one << (one << shift)) - one
    words = ((pegs + 1) * (pegs + 2) // 2 + (1 << int(per)) - 1) >> int(per)
    acc[:words, :width] = 0
    for s in range(ps.shape[0]):
        p, c = ps[s], cs[s]
        for i in range(width):
            labels[i] = _label(pg[i], cg[i], p, c)
        for k in range(words):
            word = acc[k]
            at = np.uint64(k)
            for i in range(width):
                label = labels[i]
                word[i] += (one << ((label & slot) << shift)) if label >> per == at else np.uint64(0)
    out[:width] = 0.0
    for k in range(words):
        word = acc[k]
        for j in range(1 << int(per)):
            at = np.uint64(j) << shift
            if cost == LARGEST_PART:
                for i in range(width):
                    out[i] = max(out[i], float((word[i] >> at) & full))
            elif cost == TABLE_SUM:
                for i in range(width):
                    out[i] += values[(word[i] >> at) & full]
            else:
                for i in range(width):
                    v = (word[i] >> at) & full
                    out[i] += float(v * v)


@njit(cache=True)
def _select_block(block, width, lift, fits, best):  # type: ignore[no-untyped-def]
    """The winner so far (``best``: cost, guess, fits) after the first ``width`` guesses of the
    block, as the guess-by-guess scan would pick it, and whether it reached the bound (the guesses
    after it lose the tie). ``block`` is a node's blocked scan: the guesses (their indices, in the
    scan's order), their position and count bits, the fitting codes' bits, pegs, cost, values,
    bound, prefer, last, ``scratch`` and ``exact``. Their costs are worked out together
    (:func:`_block_costs`), less ``lift``; ``scratch``: the counter words, a word per guess, and a
    cost per guess. A table sum, added in another order than :func:`_cost`'s, is summed again as
    :func:`_cost` sums it for the guesses near the best, and every guess's sum is kept for the ties:
    ``exact`` holds :func:`_table_sum`'s row and labels, the tolerance of ties and the sums by code."""
    guesses, words, ps, cs, pegs, cost, values, bound, prefer, last, scratch, exact = block
    best_cost, best_g, best_fits = best
    acc, labels, out = scratch
    row, code_labels, tolerance, sums = exact
    _block_costs(words[0], words[1], width, ps, cs, pegs, cost, values, acc, labels, out)
    for i in range(width):
        g = guesses[i]
        score = out[i] - lift
        if cost == TABLE_SUM:
            limit = best_cost + tolerance * max(1.0, abs(best_cost))
            limit += _MARGIN * max(1.0, abs(limit))
            if score <= limit + _MARGIN * max(1.0, abs(limit)):  # else over the limit however it is summed
                score = _table_sum(words[0][i], words[1][i], ps, cs, pegs, values, limit + lift, row, code_labels)
                score -= lift
            sums[g] = score
        if score < best_cost or (score == best_cost and _better(g, fits, best_g, best_fits, prefer, last)):
            best_cost, best_g, best_fits = score, g, fits
            if best_cost <= bound:
                return best_cost, best_g, best_fits, True
    return best_cost, best_g, best_fits, False


class Space(NamedTuple):
    """The codes the kernel plays: each code's position bits and count bits (see
    :mod:`keypeg.kernels._space`; a word each, 1-D, or a row of words each, 2-D), and the codes as colour rows."""

    pos: npt.NDArray[np.uint64]
    cnt: npt.NDArray[np.uint64]
    codes: npt.NDArray[np.int8]


class NodeRule(NamedTuple):
    """How :func:`decide` picks a node's guess (built by :class:`keypeg.kernels.CodeSpace` from a
    :class:`keypeg.kernels.TreeRule`)."""

    pegs: int
    colors: int
    cost: int
    """A cost of :mod:`keypeg.kernels._select`, :data:`SIMPLE` or :data:`ALL_PARTS`."""
    pool_all: bool
    """Guesses from every code, else from the fitting ones."""
    last: bool
    """Ties to the last code, else to the first."""
    prefer: bool
    """A fitting guess wins a tie."""
    symmetry_from: int
    """One guess per symmetry class from this many fitting codes (0: never)."""
    parts: int
    """The most parts a guess can make (every feedback but the impossible one)."""
    repeats: bool
    values: npt.NDArray[np.float64]
    """The part values of a table-sum cost."""
    bonus: float
    """Taken off the cost of a fitting guess."""
    tolerance: float
    """The relative tolerance of ties (a table sum)."""
    perms: npt.NDArray[np.int64]
    """The peg permutations symmetry may use."""


class Classes(NamedTuple):
    """A node's symmetry classes (see :func:`keypeg.kernels._symmetry._is_extreme`): ``symmetric``
    when some class has more than one code, the permutations and colour maps that fix the guesses
    played, the free colours (in a fitting code and in no guess), the ruled-out ones (in no fitting
    code), each in relabelling order, and a buffer for the relabelling."""

    symmetric: bool
    kept: npt.NDArray[np.int64]
    maps: npt.NDArray[np.int64]
    free: npt.NDArray[np.bool_]
    ruled: npt.NDArray[np.bool_]
    free_list: npt.NDArray[np.int64]
    ruled_list: npt.NDArray[np.int64]
    relabel: npt.NDArray[np.int64]


class Scan(NamedTuple):
    """One node's scan: what :func:`decide` reads and the buffers it writes. Phase 0 scans the
    fitting codes ``seg``, phase 1 the other codes, phase 2 the given ``pool``; the phases
    ``first`` to ``end - 1`` are scanned."""

    space: Space
    rule: NodeRule
    seg: npt.NDArray[np.int64]
    pool: npt.NDArray[np.int64]
    fitting: npt.NDArray[np.bool_]
    """The fitting codes marked in a mask of every code."""
    ps: npt.NDArray[np.uint64]
    """The fitting codes' position bits, then count bits."""
    cs: npt.NDArray[np.uint64]
    classes: Classes
    ruled_out: np.uint64 | npt.NDArray[np.uint64]
    """The position bits of the colours collapsed to one (see :func:`_ruled_out`)."""
    bound: float
    """A cost no guess beats."""
    integer: bool
    """Integer costs (no tolerance of ties)."""
    blocked: bool
    """Guesses of phases 0 and 1 scored a block at a time (:func:`_select_block`)."""
    block: tuple  # type: ignore[type-arg]
    """:func:`_select_block`'s block."""
    row: npt.NDArray[np.int64]
    labels: npt.NDArray[np.int64]
    sizes: npt.NDArray[np.int64]
    best_sizes: npt.NDArray[np.int64]
    scratch: npt.NDArray[np.float64]
    """Each guess's cost (a table sum), for the ties."""
    first: int
    end: int


@njit(cache=True)
def _gather(space, seg, fitting, rule):  # type: ignore[no-untyped-def]
    """The fitting codes ``seg`` marked in ``fitting``; their position and count bits; the colours present in them."""
    n = seg.shape[0]
    ps, cs = _rows_like(space.pos, n), _rows_like(space.cnt, n)
    for s in range(n):
        fitting[seg[s]] = True
        _put(ps, s, space.pos, seg[s])
        _put(cs, s, space.cnt, seg[s])
    present = np.zeros(rule.colors, dtype=np.bool_)
    for s in range(n):
        for i in range(rule.pegs):
            present[space.codes[seg[s], i]] = True
    return ps, cs, present


@njit(cache=True)
def _classes(space, rule, history, present, n, pool):  # type: ignore[no-untyped-def]
    """The symmetry classes of a node of ``n`` fitting codes with the colours ``present``, after the
    guesses ``history``: none (``symmetric`` false) below :attr:`NodeRule.symmetry_from` or with a given ``pool``."""
    pegs, colors = rule.pegs, rule.colors
    symmetric = rule.symmetry_from > 0 and n >= rule.symmetry_from and pool.shape[0] == 0
    relabel = np.full(colors, -1, dtype=np.int64)
    if not symmetric:
        free = np.zeros(colors, dtype=np.bool_)
        none = np.empty(0, dtype=np.int64)
        kept, maps = np.empty((0, pegs), dtype=np.int64), np.empty((0, colors), dtype=np.int64)
        return Classes(symmetric, kept, maps, free, free, none, none, relabel)
    played = np.empty((history.shape[0], pegs), dtype=np.int64)
    used = np.zeros(colors, dtype=np.bool_)
    for h in range(history.shape[0]):
        for i in range(pegs):
            played[h, i] = space.codes[history[h], i]
            used[played[h, i]] = True
    kept, maps = fixing_symmetries(rule.perms, played, colors)
    free = np.empty(colors, dtype=np.bool_)  # loops, not array expressions: less to compile
    ruled = np.empty(colors, dtype=np.bool_)
    free_count = 0
    for c in range(colors):
        free[c] = present[c] and not used[c]
        ruled[c] = not present[c]
        free_count += free[c]
    # only a peg permutation or two interchangeable free colours make classes of more than one code
    # (the colours in no fitting code are collapsed: see _ruled_out)
    symmetric = kept.shape[0] > 1 or free_count > 1
    free_list = _relabel_order(free, rule.last)
    ruled_list = _relabel_order(ruled, rule.last)
    return Classes(symmetric, kept, maps, free, ruled, free_list, ruled_list, relabel)


@njit(cache=True)
def _scan(space, rule, seg, fitting, pool, history, scratch):  # type: ignore[no-untyped-def]
    """The scan of the node whose fitting codes are ``seg``, marked in ``fitting`` until :func:`decide` ends."""
    pegs, cost, n = rule.pegs, rule.cost, seg.shape[0]
    ps, cs, present = _gather(space, seg, fitting, rule)
    # A colour in no fitting code scores nothing against them, wherever it is: of the codes that
    # differ only in such colours, the one with the first (last) of them alone is scored (with no
    # repeats, the one with the first ones).
    keep = 1 if rule.repeats else pegs
    ruled_out = _ruled_out(present, pegs, keep if rule.symmetry_from > 0 else rule.colors, rule.last, space.pos[0])
    classes = _classes(space, rule, history, present, n, pool)
    bound = _lower_bound(n, cost, rule.parts) - rule.bonus
    row = np.zeros((pegs + 1) * (pegs + 1), dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    # the codes that do not fit scored a block of guesses at a time where the cost allows it
    blocked = n < 1 << 16 and (
        cost in (LARGEST_PART, SUM_OF_SQUARES, TABLE_SUM) or (cost == FEWEST_PARTS and pegs <= _BIT_PEGS)
    )
    width = _SCAN_BLOCK if blocked else 0
    block_scratch = (
        np.empty(((pegs + 1) * (pegs + 2) // 8 + 1, width), dtype=np.uint64),
        np.empty(width, dtype=np.uint64),
        np.empty(width, dtype=np.float64),
    )
    exact = (row, labels, rule.tolerance, scratch)
    guesses, words = np.empty(width, dtype=np.int64), (_rows_like(space.pos, width), _rows_like(space.cnt, width))
    block = (guesses, words, ps, cs, pegs, cost, rule.values, bound, rule.prefer, rule.last, block_scratch, exact)
    sizes = np.zeros(row.shape[0], dtype=np.int64)
    best_sizes = np.zeros(row.shape[0], dtype=np.int64)
    # the fitting codes first (a strong bound early), then the other codes of the pool; or the given pool
    first, end = (2, 3) if pool.shape[0] else (0, 2 if rule.pool_all else 1)
    integer = cost != TABLE_SUM
    return Scan(
        space,
        rule,
        seg,
        pool,
        fitting,
        ps,
        cs,
        classes,
        ruled_out,
        bound,
        integer,
        blocked,
        block,
        row,
        labels,
        sizes,
        best_sizes,
        scratch,
        first,
        end,
    )


@njit(inline="always", cache=True)
def _limit(integer, tolerance, best, wins_tie):  # type: ignore[no-untyped-def]
    """The cost a guess must not exceed to beat the winner (cost ``best``), winning its ties or not."""
    if integer:
        return best if wins_tie else best - 1.0
    limit = best + tolerance * max(1.0, abs(best))
    return limit + _MARGIN * max(1.0, abs(limit))


@njit(cache=True)
def _scan_phase(scan, phase, best, ties):  # type: ignore[no-untyped-def]
    """The winner (cost, guess, fits, settled) once the guesses of ``phase`` are scanned after the
    winner ``best``; with ``ties``, once the ties are broken among the guesses whose table sums,
    kept in the scan, are within the tolerance of the best (as the Python path breaks them).

    The loop reads the scan's fields as locals, and its head is written here only: in the loop, a
    field read or an array passed to a function numba inlines counts a reference each time (twice
    the time of most-parts on 5x8)."""
    rule, classes, space, block = scan.rule, scan.classes, scan.space, scan.block
    pos, cnt, codes, seg, pool, fitting = space.pos, space.cnt, space.codes, scan.seg, scan.pool, scan.fitting
    ps, cs, row, labels, scratch, values = scan.ps, scan.cs, scan.row, scan.labels, scan.scratch, rule.values
    sizes, best_sizes, guesses, words = scan.sizes, scan.best_sizes, block[0], block[1]
    pegs, cost, parts, last, prefer, bonus = rule.pegs, rule.cost, rule.parts, rule.last, rule.prefer, rule.bonus
    tolerance, bound, integer, ruled_out = rule.tolerance, scan.bound, scan.integer, scan.ruled_out
    symmetric, win = classes.symmetric, pegs * (pegs + 1)
    kept, maps, free, ruled = classes.kept, classes.maps, classes.free, classes.ruled
    free_list, ruled_list, relabel = classes.free_list, classes.ruled_list, classes.relabel
    best_cost, best_g, best_fits, settled = best
    batch = scan.blocked and phase < 2  # the guesses go through a block (see _select_block)
    lift = bonus if phase == 0 else 0.0
    waiting = np.int64(0)
    tie_limit = best_cost + tolerance * max(1.0, abs(best_cost))
    count = seg.shape[0] if phase == 0 else fitting.shape[0] if phase == 1 else pool.shape[0]
    for k in range(count):  # the fitting codes, or every code but those, or the given pool
        j = count - 1 - k if last else k
        g = seg[j] if phase == 0 else j if phase == 1 else pool[j]
        fits = phase == 0 or (phase == 2 and fitting[g])
        if phase == 1 and (fitting[g] or _common(pos[g], ruled_out) != 0):
            continue  # a fitting code (phase 0), or one with a colour collapsed into another
        if ties:
            if scratch[g] <= tie_limit and _better(g, fits, best_g, best_fits, prefer, last):
                best_g, best_fits = g, fits
            continue
        if not integer:
            scratch[g] = _PRUNED  # read back with ties
        wins_tie = _better(g, fits, best_g, best_fits, prefer, last)
        if best_cost <= bound and not wins_tie:
            continue
        if symmetric and not _is_extreme(codes[g], kept, maps, free, ruled, free_list, ruled_list, relabel, last):
            continue
        if batch:
            guesses[waiting] = g
            _put(words[0], waiting, pos, g)
            _put(words[1], waiting, cnt, g)
            waiting += 1
            if waiting == guesses.shape[0]:  # a full block; the rest after the loop
                winner = (best_cost, best_g, best_fits)
                best_cost, best_g, best_fits, reached = _select_block(block, waiting, lift, phase == 0, winner)
                waiting = np.int64(0)
                if reached:
                    break
        elif cost == ALL_PARTS:  # the part sizes against the winner's
            if _profile(pos[g], cnt[g], ps, cs, pegs, win, best_cost, row, sizes):
                order = _order(sizes, best_sizes) if best_g >= 0 else -1
                if order < 0 or (order == 0 and wins_tie):
                    _copy(sizes, best_sizes)
                    best_cost, best_g, best_fits = float(sizes[0]), g, fits
                    settled = fits and sizes[0] <= 1
                    if settled:
                        break  # a fitting guess splitting the codes apart, which nothing beats
        else:
            own_lift = bonus if fits else 0.0
            limit = _limit(integer, tolerance, best_cost, wins_tie) + own_lift
            score = _cost(pos[g], cnt[g], ps, cs, pegs, cost, values, limit, parts, row, labels) - own_lift
            if not integer:
                scratch[g] = score
            if score < best_cost or (score == best_cost and wins_tie):
                best_cost, best_g, best_fits = score, g, fits
                if best_cost <= bound and phase < 2:
                    break  # the codes after it in this phase lose the tie
    if waiting:
        winner = (best_cost, best_g, best_fits)
        best_cost, best_g, best_fits, _ = _select_block(block, waiting, lift, phase == 0, winner)
    return best_cost, best_g, best_fits, settled


@njit(cache=True)
def decide(space, seg, fitting, history, pool, rule, scratch):  # type: ignore[no-untyped-def]
    """The guess for the fitting codes ``seg`` (increasing) after the guesses ``history``, from the
    codes of ``pool`` (increasing, one per symmetry class) if any, else from the rule's pool.

    ``fitting`` is an all-false mask of every code, left so; ``scratch`` holds one float per code.
    """
    n = seg.shape[0]
    if n <= 2 or rule.cost == SIMPLE:
        return seg[n - 1] if rule.last else seg[0]
    scan = _scan(space, rule, seg, fitting, pool, history, scratch)
    best = (np.inf, np.int64(-1), np.bool_(False), np.bool_(False))  # cost, guess, fits, settled
    for phase in range(scan.first, scan.end):
        best_cost, _, best_fits, settled = best
        if settled or (phase == 1 and best_cost <= scan.bound and rule.prefer and best_fits):
            break  # no code that cannot win beats a fitting winner that no code beats
        best = _scan_phase(scan, phase, best, np.bool_(False))  # not a literal: one compilation
    if not scan.integer and best[0] > scan.bound:  # the guesses within the tolerance of the best tie
        for phase in range(scan.first, scan.end):
            best = _scan_phase(scan, phase, best, np.bool_(True))
    for s in range(n):
        fitting[seg[s]] = False
    return best[1]


@njit(inline="always", cache=True)
def _copy(source, target):  # type: ignore[no-untyped-def]
    """``target[: len(source)] = source`` as a loop: numba's slice assignment from an array compiles
    its shape-mismatch message, about 2 s of a cold start."""
    for i in range(source.shape[0]):
        target[i] = source[i]


@njit(cache=True)
def _grown(array, count):  # type: ignore[no-untyped-def]
    """``array`` with room for twice as many entries, its first ``count`` kept."""
    bigger = np.empty(2 * array.shape[0], dtype=array.dtype)
    _copy(array[:count], bigger)
    return bigger


@njit(cache=True)
def _partition(space, pegs, g, seg, labels, counts, starts, spare):  # type: ignore[no-untyped-def]
    """``seg`` rearranged by the feedback its codes give guess ``g``, in feedback order (increasing
    within each part); ``counts[f]``: the size of part ``f``, ``starts[f]``: where it ends in ``seg``."""
    pg, cg = space.pos[g], space.cnt[g]
    n = seg.shape[0]
    for s in range(n):
        f = _common(pg, space.pos[seg[s]]) * pegs + _common(cg, space.cnt[seg[s]])
        labels[s] = f
        counts[f] += 1
    at_part = 0
    for f in range(counts.shape[0]):
        starts[f] = at_part
        at_part += counts[f]
    for s in range(n):
        f = labels[s]
        spare[starts[f]] = seg[s]
        starts[f] += 1
    _copy(spare[:n], seg)


@njit(cache=True, nogil=True)
def grow(space, candidates, history, root_guess, root_pool, rule, depth, max_depth):  # type: ignore[no-untyped-def]
    """The subtree for the fitting codes ``candidates`` (increasing) after the guesses ``history``,
    grown ``depth`` guesses deep under ``rule``.

    Returns the node count, the nodes (guess, size, parent node or -1, feedback ordinal from the
    parent or -1, where its codes start in the codes returned), root first and each node after its
    parent, the codes in the order the nodes hold them, and the secrets solved at each depth (the
    root's guess is depth 1). A node past ``depth`` guesses is left to grow: its guess is -1.
    :data:`NO_PROGRESS` as the node count if a node is deeper than ``max_depth``. The root guesses
    ``root_guess`` if not negative, else the best of ``root_pool`` if any.
    """
    pegs = rule.pegs
    n = candidates.shape[0]
    win = pegs * (pegs + 1)
    nf = (pegs + 1) * (pegs + 1)
    buf = candidates.copy()
    spare = np.empty(n, dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    fitting = np.zeros(space.codes.shape[0], dtype=np.bool_)
    scratch = np.empty(space.codes.shape[0], dtype=np.float64)
    counts = np.zeros(nf, dtype=np.int64)
    starts = np.zeros(nf, dtype=np.int64)
    solved = np.zeros(max_depth + 2, dtype=np.int64)
    path = np.empty(history.shape[0] + max_depth + 2, dtype=np.int64)
    _copy(history, path)
    # pending nodes: their codes buf[lo:hi], depth, parent node, feedback from the parent
    s_lo, s_hi, s_depth = np.empty(n + 1, np.int64), np.empty(n + 1, np.int64), np.empty(n + 1, np.int64)
    s_parent, s_feedback = np.empty(n + 1, np.int64), np.empty(n + 1, np.int64)
    s_lo[0], s_hi[0], s_depth[0], s_parent[0], s_feedback[0] = 0, n, 1, -1, -1
    top = 1
    room = 2 * n + 16
    guess, size, parent = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
    feedback, start = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
    no_pool = root_pool[:0]
    count = np.int64(0)  # not a literal 0: _grown would compile twice
    while top > 0:
        top -= 1
        lo, hi, level = s_lo[top], s_hi[top], s_depth[top]
        if level > max_depth:
            return NO_PROGRESS, guess[:0], size[:0], parent[:0], feedback[:0], start[:0], buf, solved
        if count + nf + 1 > room:
            guess, size, parent = _grown(guess, count), _grown(size, count), _grown(parent, count)
            feedback, start = _grown(feedback, count), _grown(start, count)
            room *= 2
        node = count
        size[node], parent[node], feedback[node], start[node] = hi - lo, s_parent[top], s_feedback[top], lo
        count += 1
        if level > depth:  # left to grow
            guess[node] = -1
            continue
        seg = buf[lo:hi]
        at = history.shape[0] + level - 1
        if node == 0 and root_guess >= 0:
            g = root_guess
        else:
            pool = root_pool if node == 0 else no_pool
            g = decide(space, seg, fitting, path[:at], pool, rule, scratch)
        path[at] = g
        guess[node] = g
        _partition(space, pegs, g, seg, labels, counts, starts, spare)
        if counts[win]:
            solved[level] += 1
        for k in range(nf):
            f = nf - 1 - k  # pushed last to first, so the first feedback is grown first
            c = counts[f]
            counts[f] = 0
            if c == 0 or f == win:
                continue
            end = lo + starts[f]
            if c == 1:  # the lone fitting code is guessed next
                guess[count], size[count], parent[count], feedback[count] = buf[end - 1], 1, node, f
                start[count] = end - 1
                count += 1
                solved[level + 1] += 1
            else:
                s_lo[top], s_hi[top], s_depth[top], s_parent[top], s_feedback[top] = end - c, end, level + 1, node, f
                top += 1
    return count, guess[:count], size[:count], parent[:count], feedback[:count], start[:count], buf, solved


def widened(
    pos: npt.NDArray[np.uint64], cnt: npt.NDArray[np.uint64], words: int
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """The bits ``pos`` and ``cnt`` as they are if ``words`` is 0, else as rows of at least ``words`` words each
    (zero words added): the multi-word path forced on a game whose codes fit one word."""
    if words <= 0:
        return pos, cnt
    rows = []
    for bits in (pos, cnt):
        bits = bits.reshape(bits.shape[0], -1)
        wide = np.zeros((bits.shape[0], max(words, bits.shape[1])), dtype=np.uint64)
        wide[:, : bits.shape[1]] = bits
        rows.append(wide)
    return rows[0], rows[1]
