"""numba kernels for the exact optimal search: a depth-first branch and bound.

The search state is one :class:`Search`, built by :class:`keypeg.kernels.ExactSearch`:

- ``table``: the ``N x N`` feedback table, or an empty one, and then ``pos``/``cnt``, the codes'
  bit encodings, score pairs; ``stride`` is ``pegs + 1`` and ``win`` the winning feedback;
- ``colours``: the codes as colour rows, ``perms`` the peg permutations symmetry may use,
  ``ncolours`` the number of colours;
- ``bounds[r, n]``: the fewest total guesses ``n`` codes can need within ``r`` rounds (``BIG`` if
  none), with at most ``branching`` non-winning feedbacks per guess;
- ``pool_all``: guesses from every code, else from the codes still possible; sets of
  ``symmetry_min`` codes or more are searched one guess per symmetry class;
- ``hist``: the guesses played so far (colour rows), a stack indexed by depth;
- ``stats``: this thread's counters, read by the caller's live view (slots below); ``halt[0] != 0``
  asks every thread to stop, ``halt[1] != 0`` the helper threads only;
- ``memo``: the transposition table, shared by the threads: ``(hash, hash) -> (value, exact, guess)``
  for the sets searched, in buckets of :data:`BUCKET` slots of four words (see :func:`_tt_put`);
- ``paths[t, d]``: the set thread ``t`` searches at depth ``d``, its two hashes and its budget (zeros
  when none), then the guess it tries there (see :func:`_refuted_above`), and ``thread`` this
  thread's row. The threads share the work through the table (one search per thread): a thread
  leaves a part another thread is searching for last (and, while no total bounds a set, every other
  thread takes its parts largest first); a thread inside a set another thread has meanwhile solved
  leaves it at once (``stats[UNWIND]``), taking the answer from the table; and a thread gives up a
  guess once what other threads proved of its parts shows it loses (``stats[REFUTED]``), before each
  part and every :data:`REFUTE_EVERY` sets inside one.

Values are integers; ``BIG`` stands for "impossible within the rounds left" and sums of it
stay exact and above any real total.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from keypeg.kernels._score import _score
from keypeg.kernels._symmetry import _is_extreme, _relabel_order, fixing_symmetries

BIG = 1 << 40
REFINE = 256  # parts this small get the bound of their best fitting guess (n * n scores)
UNBOUNDED = 1 << 62
BUCKET = 4  # slots of the transposition table a set may take (two cache lines)
SHARED_MIN = 16  # parts this large are left for last while another thread searches them
REFUTE_EVERY = 16  # a thread looks whether other threads refuted a guess it tries every this many sets
KEPT = 1 << 20  # the size given to entries loaded from a checkpoint (evicted after smaller sets)

# the slots of Search.stats
NODES, ROOT_DONE, ROOT_COUNT, ROOT_BEST, ROOT_BOUND, ROOT_DEPTH, ABORTED, PART_DONE, PART_COUNT = range(9)
UNWIND, REFUTED = 9, 10
STAT_SLOTS = 11
GUESS = 6  # the column of Search.paths where a guess's parts start (see _refuted_above)
GO_ON, LEAVE, ANSWERED = range(3)  # what a thread does once a guess's parts are searched (see _guess_done)


class Search(NamedTuple):
    """The search state of one thread (see the module's documentation)."""

    table: npt.NDArray[np.uint8]
    pos: npt.NDArray[np.uint64]
    cnt: npt.NDArray[np.uint64]
    stride: int
    colours: npt.NDArray[np.int8]
    perms: npt.NDArray[np.int64]
    bounds: npt.NDArray[np.int64]
    win: int
    pool_all: bool
    symmetry_min: int
    ncolours: int
    branching: int
    hist: npt.NDArray[np.int8]
    stats: npt.NDArray[np.int64]
    halt: npt.NDArray[np.int64]
    memo: npt.NDArray[np.int64]
    paths: npt.NDArray[np.int64]
    thread: int


class Work(NamedTuple):
    """The buffers of one set's search: the parts of the guess tried (``counts[f]`` codes of
    ``arranged`` from ``starts[f]``), their lower bounds and hashes, and the feedbacks of the parts to
    search, in order (``todo``: room for each twice, a part put off goes to the end)."""

    counts: npt.NDArray[np.int64]
    starts: npt.NDArray[np.int64]
    arranged: npt.NDArray[np.int64]
    known: npt.NDArray[np.int64]
    keys: npt.NDArray[np.int64]
    todo: npt.NDArray[np.int64]


@njit(inline="always", cache=True)
def _tag(h1):  # type: ignore[no-untyped-def]
    return h1 if h1 != 0 else np.int64(1)  # 0 marks an empty slot


@njit(cache=True, nogil=True)
def _tt_get(tt, h1, h2):  # type: ignore[no-untyped-def]
    """``(found, value, exact, guess)`` for the set hashed ``(h1, h2)``."""
    first = h2 & (tt.shape[0] - 1) & ~(BUCKET - 1)
    tag = _tag(h1)
    for s in range(first, first + BUCKET):
        if tt[s, 0] == tag:
            value, info = tt[s, 2], tt[s, 3]
            if tt[s, 1] ^ value ^ info == h2:
                return True, value, info & 1, (info >> 32) - 1
    return False, np.int64(0), np.int64(0), np.int64(-1)


@njit(cache=True, nogil=True)
def _tt_put(tt, h1, h2, value, exact, guess, n):  # type: ignore[no-untyped-def]
    """Keep ``(value, exact, guess)`` for the set of ``n`` codes hashed ``(h1, h2)``, in its own slot, an
    empty one, or that of the smallest set of the bucket (inexact first). A slot is the words
    ``(h1, h2 ^ value ^ info, value, info)``: a slot torn by two threads writing it at once fails the
    check in :func:`_tt_get` and reads as missing, so the threads need no lock."""
    first = h2 & (tt.shape[0] - 1) & ~(BUCKET - 1)
    tag = _tag(h1)
    victim = first
    rank = UNBOUNDED
    for s in range(first, first + BUCKET):
        if tt[s, 0] == 0:
            victim = s
            break
        if tt[s, 0] == tag and tt[s, 1] ^ tt[s, 2] ^ tt[s, 3] == h2:
            if tt[s, 3] & 1 and not exact:
                return  # another thread proved more meanwhile
            victim = s
            break
        held = tt[s, 3] & 0xFFFFFFFF
        if held < rank:
            victim, rank = s, held
    info = ((guess + 1) << 32) | (min(n, KEPT) << 1) | exact
    tt[victim, 2] = value
    tt[victim, 3] = info
    tt[victim, 1] = h2 ^ value ^ info
    tt[victim, 0] = tag


@njit(inline="always", cache=True)
def _feedback(table, pos, cnt, stride, g, s):  # type: ignore[no-untyped-def]
    if table.shape[0] > 0:
        return np.int64(table[g, s])
    return np.int64(_score(pos[g], cnt[g], pos[s], cnt[s], stride))


@njit(cache=True)
def _set_key(codes, rounds):  # type: ignore[no-untyped-def]
    """Two independent 64-bit hashes of a sorted set and the rounds left (FNV-1a and a mixed sum)."""
    h1 = np.uint64(14695981039346656037) ^ np.uint64(rounds)
    h2 = np.uint64(codes.shape[0]) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(rounds)
    for i in range(codes.shape[0]):
        x = np.uint64(codes[i])
        h1 = (h1 ^ x) * np.uint64(1099511628211)
        z = (x + np.uint64(i) * np.uint64(0x632BE59BD9B4E019)) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(31))) * np.uint64(0x94D049BB133111EB)
        h2 = h2 + (z ^ (z >> np.uint64(29)))
    return (np.int64(h1), np.int64(h2))


@njit(cache=True)
def _representatives(colours, perms, hist, depth, pool, codes, ncolours):  # type: ignore[no-untyped-def]
    """The codes of ``pool`` that are the smallest of their symmetry class (see :mod:`keypeg.symmetry`)
    for ``codes``, the codes that fit the guesses ``hist[:depth]``. With no ``codes`` the classes
    are those of every set that fits these guesses: colours in no guess stay interchangeable, but
    colours in no code are not known."""
    guesses = hist[:depth]
    sperms, smaps = fixing_symmetries(perms, guesses, ncolours)
    present = np.zeros(ncolours, dtype=np.bool_)
    if codes.shape[0] == 0:
        present[:] = True
    for c in codes:
        for p in range(colours.shape[1]):
            present[colours[c, p]] = True
    used = np.zeros(ncolours, dtype=np.bool_)
    for h in range(depth):
        for p in range(colours.shape[1]):
            used[guesses[h, p]] = True
    free = ~used & present
    ruled = ~present
    if sperms.shape[0] == 1 and free.sum() <= 1 and ruled.sum() <= 1:
        return pool  # only the identity: every class has one code
    free_list = _relabel_order(free, False)
    ruled_list = _relabel_order(ruled, False)
    relabel = np.full(ncolours, -1, dtype=np.int64)
    keep = np.zeros(pool.shape[0], dtype=np.bool_)
    for i in range(pool.shape[0]):
        keep[i] = _is_extreme(colours[pool[i]], sperms, smaps, free, ruled, free_list, ruled_list, relabel, False)
    return pool[keep]


@njit(cache=True)
def _spread(below, n, parts):  # type: ignore[no-untyped-def]
    """The least ``sum(below[size])`` over ``n`` codes in at most ``parts`` parts: sizes as even as
    can be, since ``below`` is convex."""
    small, extra = divmod(n, parts)
    return extra * below[small + 1] + (parts - extra) * below[small]


@njit(cache=True)
def _count_parts(ctx, pool, codes, counts, below, sums):  # type: ignore[no-untyped-def]
    """``counts[i, f]``: how many of ``codes`` give guess ``pool[i]`` feedback ``f``; and
    ``sums[i]``: ``sum(below[counts[i, f]])`` over every ``f``, kept up as the parts grow.

    With a feedback table the loop runs code by code over table rows (the table is symmetric),
    so memory is read in order."""
    table, pos, cnt, stride = ctx.table, ctx.pos, ctx.cnt, ctx.stride
    counts[:] = 0
    sums[:] = 0
    steps = below[1 : codes.shape[0] + 1] - below[: codes.shape[0]]
    if table.shape[0] > 0:
        for s in codes:
            row = table[s]
            for i in range(pool.shape[0]):
                f = row[pool[i]]
                c = counts[i, f]
                counts[i, f] = c + 1
                sums[i] += steps[c]
    else:
        for i in range(pool.shape[0]):
            for s in codes:
                f = _score(pos[pool[i]], cnt[pool[i]], pos[s], cnt[s], stride)
                sums[i] += steps[counts[i, f]]
                counts[i, f] += 1


@njit(cache=True)
def _guess_bounds(ctx, pool, codes, below):  # type: ignore[no-untyped-def]
    """For each guess of ``pool``: ``n + sum(below[part size])`` over the parts it makes of ``codes``
    (the win left out); whether it learns nothing (one part of everything); whether it is one of ``codes``."""
    stride, win = ctx.stride, ctx.win
    n = codes.shape[0]
    m = pool.shape[0]
    sums = np.empty(m, dtype=np.int64)
    if n < 256:  # part sizes fit a byte: a quarter of the memory to sweep
        counts = np.empty((m, stride * stride), dtype=np.uint8)
        _count_parts(ctx, pool, codes, counts, below, sums)
        won = counts[:, win].astype(np.int64)
    else:
        wide = np.empty((m, stride * stride), dtype=np.int32)
        _count_parts(ctx, pool, codes, wide, below, sums)
        won = wide[:, win].astype(np.int64)
    bounds = np.empty(m, dtype=np.int64)
    useless = np.empty(m, dtype=np.bool_)
    for i in range(m):
        bounds[i] = n + sums[i] - below[won[i]]
        # one part of everything: below is strictly superadditive, so no other parts cost below[n]
        useless[i] = won[i] == 0 and sums[i] == below[n]
    return bounds, useless, won > 0


@njit(cache=True)
def _small_bounds(table, codes):  # type: ignore[no-untyped-def]
    """:func:`_guess_bounds` for every code as a guess when each part of ``k`` codes needs ``2k - 1``
    guesses at least (sets no larger than the branching plus one): a guess giving ``d`` feedbacks costs
    ``3n - d - 1`` if it is one of the ``n`` codes, else ``3n - d``. Counts distinct feedbacks by
    comparing table rows pairwise, which vectorises."""
    n = codes.shape[0]
    m = table.shape[0]
    distinct = np.zeros(m, dtype=np.uint8)
    new = np.empty(m, dtype=np.uint8)
    for t in range(n):
        row = table[codes[t]]
        new[:] = 1
        for u in range(t):
            other = table[codes[u]]
            for g in range(m):
                new[g] &= row[g] != other[g]
        for g in range(m):
            distinct[g] += new[g]
    fits = np.zeros(m, dtype=np.bool_)
    fits[codes] = True
    bounds = 3 * n - distinct.astype(np.int64) - fits
    useless = (distinct == 1) & ~fits
    return bounds, useless, fits


@njit(cache=True)
def _best_fitting(ctx, codes, rounds):  # type: ignore[no-untyped-def]
    """The code of ``codes`` with the lowest bound as a guess on ``codes`` (the first of equals), and its bound."""
    bounds, _, _ = _guess_bounds(ctx, codes, codes, ctx.bounds[rounds - 1])
    best = np.argmin(bounds)
    return codes[best], bounds[best]


@njit(cache=True)
def _sorted_members(values, within):  # type: ignore[no-untyped-def]
    """Which of the increasing ``values`` are in the increasing array ``within``."""
    found = np.zeros(values.shape[0], dtype=np.bool_)
    j = 0
    for i in range(values.shape[0]):
        while j < within.shape[0] and within[j] < values[i]:
            j += 1
        found[i] = j < within.shape[0] and within[j] == values[i]
    return found


@njit(cache=True)
def _candidates(ctx, codes, depth, rounds, budget, shared):  # type: ignore[no-untyped-def]
    """Guesses worth trying on ``codes``, best bound first (fitting guesses first among equals, then
    lowest index), with their bounds; and the lowest bound of all guesses. ``shared``, when not empty,
    holds the class representatives of every set fitting the same guesses (see :func:`solve`)."""
    table, pos = ctx.table, ctx.pos
    colours, perms, bounds = ctx.colours, ctx.perms, ctx.bounds
    pool_all, sym_min, ncolours, hist = ctx.pool_all, ctx.symmetry_min, ctx.ncolours, ctx.hist
    n = codes.shape[0]
    pool = np.arange(table.shape[0] if table.shape[0] > 0 else pos.shape[0]) if pool_all else codes.astype(np.int64)
    if n >= sym_min:
        if shared.shape[0] == 0:
            pool = _representatives(colours, perms, hist, depth, pool, codes, ncolours)
        elif pool_all:
            pool = shared
        else:
            pool = pool[_sorted_members(pool, shared)]
    below = bounds[rounds - 1]
    if pool_all and table.shape[0] > 0 and n < sym_min and below[n] == 2 * n - 1:
        guess_bounds, useless, fits = _small_bounds(table, codes)
    else:
        guess_bounds, useless, fits = _guess_bounds(ctx, pool, codes, below)
    # keep the guesses below the budget, then order them by (bound, not fitting), a stable counting
    # sort: the pool is in increasing order and the keys span a short range
    m = pool.shape[0]
    limit = min(budget, BIG)
    lowest = UNBOUNDED
    highest = -1
    for i in range(m):
        if not useless[i]:
            lowest = min(lowest, guess_bounds[i])
            if guess_bounds[i] < limit:
                highest = max(highest, guess_bounds[i])
    if highest < 0:
        return pool[:0], guess_bounds[:0], lowest
    slots = np.zeros(2 * (highest - lowest) + 3, dtype=np.int64)
    for i in range(m):
        if not useless[i] and guess_bounds[i] <= highest:
            slots[2 * (guess_bounds[i] - lowest) + (1 if fits[i] else 2)] += 1
    for k in range(1, slots.shape[0]):
        slots[k] += slots[k - 1]
    kept = slots[-1]
    guesses = np.empty(kept, dtype=np.int64)
    ordered = np.empty(kept, dtype=np.int64)
    for i in range(m):
        if not useless[i] and guess_bounds[i] <= highest:
            k = 2 * (guess_bounds[i] - lowest) + (0 if fits[i] else 1)
            guesses[slots[k]] = pool[i]
            ordered[slots[k]] = guess_bounds[i]
            slots[k] += 1
    return guesses, ordered, lowest


@njit(cache=True)
def _known_bound(ctx, codes, rounds, h1, h2):  # type: ignore[no-untyped-def]
    """The best lower bound known for ``codes`` (hashed ``(h1, h2)``) within ``rounds``: the table's,
    else for sets of up to :data:`REFINE` codes the one :func:`solve` starts from (its best fitting
    guess's bound, or ``n`` plus the codes spread evenly over the feedbacks), else ``LB(n)``."""
    bounds = ctx.bounds
    below = bounds[rounds]
    n = codes.shape[0]
    if n <= 2:
        return below[n]
    found, value, _, _ = _tt_get(ctx.memo, h1, h2)
    if found:
        return max(below[n], value)
    if rounds <= 1:
        return np.int64(BIG)
    if n <= REFINE:
        _, quick_bound = _best_fitting(ctx, codes, rounds)
        return max(below[n], _entry_bound(ctx, codes, rounds, quick_bound))
    return below[n]


@njit(cache=True)
def _entry_bound(ctx, codes, rounds, quick_bound):  # type: ignore[no-untyped-def]
    """A lower bound on every guess allowed for ``codes`` within ``rounds``, given the bound of the best
    fitting guess ``quick_bound``: that bound itself when only fitting codes are guessed, else the least of
    it and ``n`` plus the codes spread evenly over the most answers a guess gets (what any other guess
    can reach). (The least one-level bound of every guess, scored at each set of up to 27 codes of 4x7,
    searched a quarter of the sets 12 times slower; at each set entered only, as many sets 1.8 times
    slower.)"""
    if not ctx.pool_all:
        return quick_bound
    n = codes.shape[0]
    return min(quick_bound, n + _spread(ctx.bounds[rounds - 1], n, ctx.branching))


@njit(cache=True)
def _busy(paths, me, h2):  # type: ignore[no-untyped-def]
    """Whether a thread other than ``me`` is searching the set hashed ``h2``."""
    for t in range(paths.shape[0]):
        if t != me:
            for d in range(paths.shape[1]):
                if paths[t, d, 1] == h2:
                    return True
    return False


@njit(cache=True)
def _solved_above(tt, path, top, depth):  # type: ignore[no-untyped-def]
    """The shallowest depth from ``top`` to ``depth - 1`` whose set on this thread's ``path`` (hashes and
    budget by depth) the table now answers (exactly, or with a bound at least its budget), or -1."""
    for d in range(top, depth):
        found, value, exact, _ = _tt_get(tt, path[d, 0], path[d, 1])
        if found and (exact == 1 or value >= path[d, 2]):
            return d
    return -1


@njit(cache=True)
def _refreshed(tt, left, keys, counts, known):  # type: ignore[no-untyped-def]
    """The sum of the lower bounds of the parts ``left`` (feedbacks), each ``known`` bound first raised
    to what the table holds for the part now (another thread may have searched it meanwhile)."""
    rest = 0
    for k in range(left.shape[0]):
        f = left[k]
        if counts[f] > 2:
            found, value, _, _ = _tt_get(tt, keys[f, 0], keys[f, 1])
            if found and value > known[f]:
                known[f] = value
        rest += known[f]
    return rest


@njit(cache=True)
def _refuted_above(tt, path, top, depth):  # type: ignore[no-untyped-def]
    """The shallowest depth from ``top`` to ``depth - 1`` where the guess this thread tries can no longer
    beat the best total there, by what the table now holds for its parts (proved by other threads
    meanwhile), or -1. ``path[d]``: columns 3 to 5 the set's size, the best total when the guess was
    taken up and whether one is; then for each feedback the part's hashes (zeros for none or a
    part of two codes or fewer) and lower bound."""
    for d in range(top, depth):
        if path[d, 5] == 0:
            continue
        least = path[d, 3]
        for c in range(GUESS, path.shape[1], 3):
            bound = path[d, c + 2]
            if path[d, c + 1] != 0:
                found, value, _, _ = _tt_get(tt, path[d, c], path[d, c + 1])
                if found and value > bound:
                    bound = value
            least += bound
        if least >= path[d, 4]:
            return d
    return -1


@njit(inline="always", cache=True)
def _leave(paths, me, depth):  # type: ignore[no-untyped-def]
    """Clear this thread's row of ``paths`` at ``depth``: it searches no set there."""
    paths[me, depth, 0], paths[me, depth, 1], paths[me, depth, 2], paths[me, depth, 5] = 0, 0, 0, 0


@njit(cache=True)
def _smallest_first(counts):  # type: ignore[no-untyped-def]
    """The indices of ``counts`` by increasing count, equal counts in index order (an insertion sort:
    a handful of feedbacks, and far less to compile than numpy's stable sort)."""
    order = np.empty(counts.shape[0], dtype=np.int64)
    for i in range(counts.shape[0]):
        j = i
        while j > 0 and counts[order[j - 1]] > counts[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    return order


@njit(cache=True)
def _split(ctx, g, codes, arranged, counts, starts):  # type: ignore[no-untyped-def]
    """Arrange ``codes`` by the feedback they give guess ``g``: part ``f`` is
    ``arranged[starts[f] : starts[f] + counts[f]]``, in increasing order like ``codes``."""
    table, pos, cnt, stride = ctx.table, ctx.pos, ctx.cnt, ctx.stride
    n = codes.shape[0]
    feedbacks = np.empty(n, dtype=np.int64)
    counts[:] = 0
    for j in range(n):
        f = _feedback(table, pos, cnt, stride, g, codes[j])
        feedbacks[j] = f
        counts[f] += 1
    total = 0
    for f in range(counts.shape[0]):
        starts[f] = total
        total += counts[f]
    fill = starts.copy()
    for j in range(n):
        arranged[fill[feedbacks[j]]] = codes[j]
        fill[feedbacks[j]] += 1


@njit(cache=True)
def _enter(ctx, codes, depth, rounds, budget, lower):  # type: ignore[no-untyped-def]
    """What is known of ``codes`` before searching it: ``(done, value, guess, lower, h1, h2)``. Done
    when the table answers (exactly, or with a bound at least ``budget``) or when this thread must
    unwind (asked to stop, or inside a set another thread has solved, or trying a guess other threads
    refuted: see :func:`_solved_above`, :func:`_refuted_above`); else ``lower`` raised to the
    table's bound, the set counted, and recorded in this thread's path."""
    h1, h2 = _set_key(codes, rounds)
    found, value, exact, guess = _tt_get(ctx.memo, h1, h2)
    if found:
        if exact == 1 or value >= budget:
            return True, value, guess, lower, h1, h2
        lower = max(lower, value)
    stats, paths, me, tt = ctx.stats, ctx.paths, ctx.thread, ctx.memo
    stats[NODES] += 1
    if ctx.halt[0] != 0 or (me > 0 and ctx.halt[1] != 0):
        stats[ABORTED] = 1
        return True, np.int64(BIG), np.int64(-1), lower, h1, h2
    if paths.shape[0] > 1:
        above = _solved_above(tt, paths[me], stats[ROOT_DEPTH], depth)
        if above >= 0:  # another thread solved a set this one is inside: back up to it
            stats[UNWIND] = above + 1
            return True, np.int64(BIG), np.int64(-1), lower, h1, h2
        if stats[NODES] % REFUTE_EVERY == 0:
            above = _refuted_above(tt, paths[me], stats[ROOT_DEPTH], depth)
            if above >= 0:  # other threads proved the guess tried at that depth loses: back up to it
                stats[UNWIND], stats[REFUTED] = above + 1, 1
                return True, np.int64(BIG), np.int64(-1), lower, h1, h2
        paths[me, depth, 0], paths[me, depth, 1], paths[me, depth, 2] = h1, h2, budget
    return False, np.int64(0), np.int64(-1), lower, h1, h2


@njit(cache=True)
def _work(ctx, codes):  # type: ignore[no-untyped-def]
    """The buffers of the search of ``codes``."""
    nfb = ctx.stride * ctx.stride
    return Work(
        np.zeros(nfb, dtype=np.int64),
        np.zeros(nfb, dtype=np.int64),
        np.empty_like(codes),
        np.zeros(nfb, dtype=np.int64),
        np.zeros((nfb, 2), dtype=np.int64),
        np.empty(2 * nfb, dtype=np.int64),
    )


@njit(cache=True)
def _guesses(ctx, phase, codes, depth, rounds, best, quick, quick_bound, lowest, shared):  # type: ignore[no-untyped-def]
    """The guesses to try in ``phase`` with their bounds, and the lowest bound of all guesses: in
    phase 0 the best fitting guess ``quick`` (none if negative), in phase 1 every guess worth trying
    (see :func:`_candidates`)."""
    if phase == 0:
        count = 1 if quick >= 0 else 0
        return np.full(count, quick, dtype=np.int64), np.full(count, quick_bound, dtype=np.int64), lowest
    guesses, guess_bounds, lowest = _candidates(ctx, codes, depth, rounds, best, shared)
    if depth == ctx.stats[ROOT_DEPTH]:
        ctx.stats[ROOT_COUNT] = guesses.shape[0]
        ctx.stats[ROOT_DONE] = 0
    return guesses, guess_bounds, lowest


@njit(cache=True)
def _parts(ctx, g, codes, rounds, work):  # type: ignore[no-untyped-def]
    """The parts guess ``g`` makes of ``codes`` into ``work`` (the win left out): their hashes and
    lower bounds, the parts to search smallest first in ``todo``; the sum of their bounds and their number."""
    counts, starts, arranged, known, keys, todo = work
    _split(ctx, g, codes, arranged, counts, starts)
    rest = 0
    parts = 0
    for f in _smallest_first(counts):
        if f != ctx.win and counts[f] > 0:
            part = arranged[starts[f] : starts[f] + counts[f]]
            if counts[f] > 2:
                keys[f, 0], keys[f, 1] = _set_key(part, rounds - 1)
            known[f] = _known_bound(ctx, part, rounds - 1, keys[f, 0], keys[f, 1])
            rest += known[f]
            todo[parts] = f
            parts += 1
    return rest, parts


@njit(cache=True)
def _take_up(ctx, g, depth, n, best, parts, work):  # type: ignore[no-untyped-def]
    """Guess ``g`` is tried at ``depth`` on a set of ``n`` codes, the best total so far ``best``: played
    (for symmetry) and, with other threads, written in this thread's path with what other threads'
    work can refute it by (see :func:`_refuted_above`); every other thread takes the parts largest
    first while no total bounds the set, so that the threads meet in the middle."""
    counts, _, _, known, keys, todo = work
    hist, colours, paths, me = ctx.hist, ctx.colours, ctx.paths, ctx.thread
    for p in range(colours.shape[1]):  # a loop: slice assignment compiles an error message
        hist[depth, p] = colours[g, p]
    if paths.shape[0] == 1:
        return
    paths[me, depth, 3], paths[me, depth, 4], paths[me, depth, 5] = n, best, 1
    for f in range(counts.shape[0]):
        c = GUESS + 3 * f
        held = f != ctx.win and counts[f] > 0
        paths[me, depth, c + 2] = known[f] if held else 0
        paths[me, depth, c + 1] = keys[f, 1] if held and counts[f] > 2 else 0
        paths[me, depth, c] = keys[f, 0]
    if me % 2 == 1 and best >= BIG:
        for q in range(parts // 2):
            todo[q], todo[parts - 1 - q] = todo[parts - 1 - q], todo[q]


@njit(cache=True)
def _shared_classes(ctx, depth):  # type: ignore[no-untyped-def]
    """The class representatives of every set that fits the guesses ``hist[:depth]`` (see :func:`solve`)."""
    every = np.arange(ctx.colours.shape[0])
    return _representatives(ctx.colours, ctx.perms, ctx.hist, depth, every, every[:0], ctx.ncolours)


@njit(cache=True)
def _guess_done(ctx, depth, total, best):  # type: ignore[no-untyped-def]
    """After the parts of the guess tried at ``depth`` (their total so far ``total``): the total (the
    best, which it cannot beat, if other threads refuted the guess) and what this thread does:
    :data:`GO_ON`, :data:`LEAVE` the set (stopped, or unwinding to a shallower set), or take the
    set's answer from the table (:data:`ANSWERED`: another thread solved this very set)."""
    stats, paths, me = ctx.stats, ctx.paths, ctx.thread
    paths[me, depth, 5] = 0
    if stats[ABORTED] == 0 and stats[UNWIND] == depth + 1 and stats[REFUTED] != 0:
        stats[UNWIND], stats[REFUTED] = 0, 0
        total = best  # refuted by what other threads proved
    if stats[ABORTED] == 0 and stats[UNWIND] == 0:
        return total, GO_ON
    _leave(paths, me, depth)
    if stats[ABORTED] != 0 or stats[UNWIND] != depth + 1:
        return total, LEAVE
    stats[UNWIND] = 0  # this set is the one solved: the table holds its answer
    return total, ANSWERED


@njit(cache=True)
def _finish(ctx, codes, depth, h1, h2, best, chosen, bound):  # type: ignore[no-untyped-def]
    """The answer for ``codes`` once every guess is tried, kept in the table: the best total and its
    guess, or, with no guess below the budget, the lower bound ``bound`` and guess -1."""
    if ctx.paths.shape[0] > 1:
        _leave(ctx.paths, ctx.thread, depth)
    if chosen < 0:
        _tt_put(ctx.memo, h1, h2, bound, 0, -1, codes.shape[0])
        return bound, np.int64(-1)
    _tt_put(ctx.memo, h1, h2, best, 1, chosen, codes.shape[0])
    return best, chosen


@njit(cache=True, nogil=True)
def solve(ctx, codes, depth, rounds, budget, shared):  # type: ignore[no-untyped-def]
    """The fewest total guesses for the sorted set ``codes`` within ``rounds``, exactly if below
    ``budget`` (with an optimal guess), else a lower bound of at least ``budget`` (and guess -1).

    ``shared`` is empty, or the symmetry class representatives valid for every set that fits the
    guesses played: the parts of one guess share them, so they are found once per guess tried.

    ``ctx.hist[:depth]`` holds the guesses played so far (for symmetry). When ``ctx.halt`` stops this
    thread it unwinds at once with ``stats[ABORTED] = 1``; its results are then meaningless.

    The loop over a guess's parts stays here: it is where the search recurses, and numba cannot load
    from its cache a function that calls the recursive :func:`solve` (see :func:`strategy`).
    """
    n = codes.shape[0]
    if n <= 2:
        return ctx.bounds[rounds, n], (codes[0] if n > 0 else -1)
    if rounds <= 1:
        return np.int64(BIG), np.int64(-1)
    lower = ctx.bounds[rounds, n]
    if lower >= budget:
        return lower, np.int64(-1)
    done, value, guess, lower, h1, h2 = _enter(ctx, codes, depth, rounds, budget, lower)
    if done:
        return value, guess
    stats, paths, me, tt = ctx.stats, ctx.paths, ctx.thread, ctx.memo
    helped, top = paths.shape[0] > 1, depth == stats[ROOT_DEPTH]
    # every fitting guess costs at least quick_bound, every other one at least n + spread(n)
    quick, quick_bound = _best_fitting(ctx, codes, rounds)
    lower = max(lower, _entry_bound(ctx, codes, rounds, quick_bound))
    if quick_bound > lower or quick_bound >= budget:
        quick = -1  # else tried first: it often reaches the lower bound
    work = _work(ctx, codes)
    counts, starts, arranged, known, keys, todo = work
    best, chosen, lowest = budget, np.int64(-1), quick_bound
    for phase in range(2):  # the best fitting guess, then every guess
        if phase == 1 and best <= lower:
            break
        guesses, guess_bounds, lowest = _guesses(
            ctx, phase, codes, depth, rounds, best, quick, quick_bound, lowest, shared
        )
        for i in range(guesses.shape[0]):
            if guess_bounds[i] >= best:
                break
            g = guesses[i]
            if phase == 1 and g == quick:
                continue
            if top:
                stats[ROOT_BOUND] = guess_bounds[i]
            rest, parts = _parts(ctx, g, codes, rounds, work)
            if n + rest >= best:
                continue
            _take_up(ctx, g, depth, n, best, parts, work)
            total, end, j = n, parts, 0
            child_shared = np.empty(0, dtype=np.int64)
            while j < end:
                f = todo[j]
                j += 1
                if helped and j <= parts and counts[f] >= SHARED_MIN and _busy(paths, me, keys[f, 1]):
                    todo[end] = f  # another thread searches it: searched last, if that thread has not proved it
                    end += 1
                    continue
                if top:  # the parts solved so far: those visited, less those put off to the end
                    stats[PART_DONE], stats[PART_COUNT] = j - 1 - (end - parts), parts
                if helped and j > 1:  # what other threads proved of the parts left since
                    rest = _refreshed(tt, todo[j - 1 : end], keys, counts, known)
                    if total + rest >= best:
                        total = best  # it cannot beat the best any more
                        break
                rest -= known[f]
                allowed = best - total - rest
                if counts[f] >= ctx.symmetry_min and child_shared.shape[0] == 0:
                    child_shared = _shared_classes(ctx, depth + 1)
                part = arranged[starts[f] : starts[f] + counts[f]]
                value, _ = solve(ctx, part, depth + 1, rounds - 1, allowed, child_shared)
                if stats[UNWIND] != 0:
                    break
                total += value
                if value >= allowed:
                    total = max(total + rest, best)
                    break
            total, then = _guess_done(ctx, depth, total, best)
            if then == LEAVE:
                return np.int64(BIG), np.int64(-1)
            if then == ANSWERED:
                found, value, exact, guess = _tt_get(tt, h1, h2)
                if found and (exact == 1 or value >= budget):
                    return value, guess
                return solve(ctx, codes, depth, rounds, budget, shared)  # its slot was taken meanwhile
            if total < best:
                best, chosen = total, g
            if phase == 1 and top:
                stats[ROOT_DONE] = i + 1
                stats[ROOT_BEST] = min(stats[ROOT_BEST], best)
            if best <= lower:
                break
    return _finish(ctx, codes, depth, h1, h2, best, chosen, max(budget, lowest, lower))


@njit(cache=True, nogil=True)
def strategy(ctx, codes, rounds):  # type: ignore[no-untyped-def]
    """The optimal strategy for ``codes`` as rows ``(parent row, feedback, guess, codes)``, parents
    first (the root's parent is -1), read from the table once :func:`solve` has solved ``codes``.
    A guess of -1 marks a set the table no longer holds solved (another set took its slot): the
    caller solves it again and walks again.

    Numba cannot load from its cache a function that calls the recursive :func:`solve`, hence
    this walk only reads the table, and keeps its own stack."""
    nfb = ctx.stride * ctx.stride
    tt = ctx.memo
    nodes = np.empty((2 * codes.shape[0] + 1, 4), dtype=np.int64)
    count = 0
    stack = [(codes, rounds, np.int64(-1), np.int64(-1))]
    counts = np.zeros(nfb, dtype=np.int64)
    starts = np.zeros(nfb, dtype=np.int64)
    while len(stack) > 0:
        part, left, parent, feedback = stack.pop()
        guess = part[0]
        if part.shape[0] > 2:
            h1, h2 = _set_key(part, left)
            found, _, exact, guess = _tt_get(tt, h1, h2)
            if not (found and exact == 1):
                guess = -1
        nodes[count, 0], nodes[count, 1], nodes[count, 2], nodes[count, 3] = parent, feedback, guess, part.shape[0]
        count += 1
        if guess < 0:
            continue
        arranged = np.empty_like(part)
        _split(ctx, guess, part, arranged, counts, starts)
        for f in range(nfb - 1, -1, -1):
            if counts[f] > 0 and f != ctx.win:
                child = arranged[starts[f] : starts[f] + counts[f]]
                stack.append((child, left - 1, np.int64(count - 1), np.int64(f)))
    return nodes[:count]


@njit(cache=True)
def memo_arrays(tt):  # type: ignore[no-untyped-def]
    """The table's entries as two arrays (keys, entries), to save them."""
    valid = np.zeros(tt.shape[0], dtype=np.bool_)
    for s in range(tt.shape[0]):
        valid[s] = tt[s, 0] != 0 and tt[s, 1] ^ tt[s, 2] ^ tt[s, 3] != 0
    held = tt[valid]
    keys = np.empty((held.shape[0], 2), dtype=np.int64)
    entries = np.empty((held.shape[0], 3), dtype=np.int64)
    for i in range(held.shape[0]):
        keys[i, 0] = held[i, 0]
        keys[i, 1] = held[i, 1] ^ held[i, 2] ^ held[i, 3]
        entries[i, 0] = held[i, 2]
        entries[i, 1] = held[i, 3] & 1
        entries[i, 2] = (held[i, 3] >> 32) - 1
    return keys, entries


@njit(cache=True)
def memo_load(tt, keys, entries):  # type: ignore[no-untyped-def]
    """Put saved entries back into the table."""
    for i in range(keys.shape[0]):
        _tt_put(tt, keys[i, 0], keys[i, 1], entries[i, 0], entries[i, 1], entries[i, 2], KEPT)


@njit(cache=True)
def memo_count(tt):  # type: ignore[no-untyped-def]
    """How many slots of the table hold a set."""
    held = 0
    for s in range(tt.shape[0]):
        held += tt[s, 0] != 0
    return held
