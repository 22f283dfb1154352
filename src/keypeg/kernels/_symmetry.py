"""numba kernels for symmetry: the group that fixes past guesses, and canonical codes under it.

A symmetry is a peg permutation ``perm`` with a colour map ``cmap``, acting on a
code ``x`` as ``y[i] = cmap[x[perm[i]]]``; ``cmap`` is ``-1`` on colours it leaves
free (those are relabelled canonically afterwards).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def fixing_symmetries(perms, guesses, colors):  # type: ignore[no-untyped-def]
    """The peg permutations (rows of ``perms``) with the colour maps that fix every guess.

    Returns the kept permutations and their colour maps (``-1`` where a colour is in no guess).
    """
    keep = np.zeros(perms.shape[0], dtype=np.bool_)
    maps = np.full((perms.shape[0], colors), -1, dtype=np.int64)
    for k in range(perms.shape[0]):
        cmap = maps[k]
        inverse = np.full(colors, -1, dtype=np.int64)
        ok = True
        for h in range(guesses.shape[0]):
            for i in range(guesses.shape[1]):
                src = guesses[h, perms[k, i]]
                dst = guesses[h, i]
                if cmap[src] == -1 and inverse[dst] == -1:
                    cmap[src] = dst
                    inverse[dst] = src
                elif cmap[src] != dst or inverse[dst] != src:
                    ok = False
                    break
            if not ok:
                break
        keep[k] = ok
    return perms[keep], maps[keep]


@njit(inline="always", cache=True)
def _mapped_key(code, perm, cmap, free, ruled, free_list, ruled_list, relabel):  # type: ignore[no-untyped-def]
    """Key of ``code`` under one symmetry, its free and ruled-out colours relabelled in order of appearance.

    ``relabel`` is scratch space, all -1 on entry and left so."""
    colors = relabel.shape[0]
    next_free = 0
    next_ruled = 0
    key = np.int64(0)
    for i in range(code.shape[0]):
        x = code[perm[i]]
        y = cmap[x]
        if y == -1:
            y = x
        if free[y] or ruled[y]:
            if relabel[y] == -1:
                if free[y]:
                    relabel[y] = free_list[next_free]
                    next_free += 1
                else:
                    relabel[y] = ruled_list[next_ruled]
                    next_ruled += 1
            y = relabel[y]
        key = key * colors + y
    for i in range(code.shape[0]):
        x = code[perm[i]]
        relabel[x if cmap[x] == -1 else cmap[x]] = -1
    return key


@njit(cache=True)
def _relabel_order(mask, largest):  # type: ignore[no-untyped-def]
    """The colours of ``mask`` in the order relabelling hands them out: up, or down for ``largest``."""
    found = np.nonzero(mask)[0]
    return found[::-1].copy() if largest else found


@njit(cache=True)
def _canonical_key(code, perms, maps, free, ruled, free_list, ruled_list, relabel, largest):  # type: ignore[no-untyped-def]
    best = np.int64(-1)
    for k in range(perms.shape[0]):
        key = _mapped_key(code, perms[k], maps[k], free, ruled, free_list, ruled_list, relabel)
        if best == -1 or (key > best if largest else key < best):
            best = key
    return best


@njit(parallel=True, cache=True)
def canonical_keys(codes, perms, maps, free, ruled, colors, largest, parallel):  # type: ignore[no-untyped-def]
    """The key of the smallest (or ``largest``) code each code maps to under the symmetries.

    Colours in ``free`` (in no past guess) are interchangeable, as are colours in
    ``ruled`` (in no fitting code): each such group is relabelled in order of first
    appearance, from its smallest colour up (or largest down). ``parallel`` spreads
    the codes over threads (worth it for large jobs only).
    """
    free_list = _relabel_order(free, largest)
    ruled_list = _relabel_order(ruled, largest)
    n = codes.shape[0]
    out = np.empty(n, dtype=np.int64)
    if parallel:
        for c in prange(n):
            relabel = np.full(colors, -1, dtype=np.int64)
            out[c] = _canonical_key(codes[c], perms, maps, free, ruled, free_list, ruled_list, relabel, largest)
    else:
        relabel = np.full(colors, -1, dtype=np.int64)
        for c in range(n):
            out[c] = _canonical_key(codes[c], perms, maps, free, ruled, free_list, ruled_list, relabel, largest)
    return out


@njit(cache=True)
def _own_key(code, colors):  # type: ignore[no-untyped-def]
    key = np.int64(0)
    for i in range(code.shape[0]):
        key = key * colors + code[i]
    return key


@njit(cache=True)
def _is_extreme(code, perms, maps, free, ruled, free_list, ruled_list, relabel, largest):  # type: ignore[no-untyped-def]
    """Whether no symmetry maps ``code`` to a smaller (``largest``: larger) code; stops at the first that does."""
    own = _own_key(code, relabel.shape[0])
    for k in range(perms.shape[0]):
        key = _mapped_key(code, perms[k], maps[k], free, ruled, free_list, ruled_list, relabel)
        if key > own if largest else key < own:
            return False
    return True


@njit(parallel=True, cache=True)
def extreme_mask(codes, perms, maps, free, ruled, colors, largest, parallel):  # type: ignore[no-untyped-def]
    """Which codes are the smallest (``largest``) of their class: :func:`canonical_keys` equals their own key."""
    free_list = _relabel_order(free, largest)
    ruled_list = _relabel_order(ruled, largest)
    n = codes.shape[0]
    out = np.empty(n, dtype=np.bool_)
    if parallel:
        for c in prange(n):
            relabel = np.full(colors, -1, dtype=np.int64)
            out[c] = _is_extreme(codes[c], perms, maps, free, ruled, free_list, ruled_list, relabel, largest)
    else:
        relabel = np.full(colors, -1, dtype=np.int64)
        for c in range(n):
            out[c] = _is_extreme(codes[c], perms, maps, free, ruled, free_list, ruled_list, relabel, largest)
    return out
