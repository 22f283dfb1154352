"""numba kernels for symmetry: the group that fixes past guesses, and the extreme codes of its classes.

A symmetry is a peg permutation ``perm`` with a colour map ``cmap``, acting on a
code ``x`` as ``y[i] = cmap[x[perm[i]]]``; ``cmap`` is ``-1`` on colours it leaves
free (those are relabelled canonically afterwards).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from keypeg.kernels._jit import twins


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


def _extreme_mask(codes, perms, maps, free, ruled, largest, chunks):  # type: ignore[no-untyped-def]
    """Which codes are the smallest (``largest``) of their class under the symmetries ``perms`` with
    colour maps ``maps``, the colours in ``free`` (in no past guess) being interchangeable, and so
    those in ``ruled`` (in no fitting code). Each iteration takes the block of codes between
    consecutive ``chunks`` bounds (one block for the serial twin)."""
    colors = free.shape[0]
    free_list = _relabel_order(free, largest)
    ruled_list = _relabel_order(ruled, largest)
    out = np.empty(codes.shape[0], dtype=np.bool_)
    for c in prange(chunks.shape[0] - 1):
        relabel = np.full(colors, -1, dtype=np.int64)
        for i in range(chunks[c], chunks[c + 1]):
            out[i] = _is_extreme(codes[i], perms, maps, free, ruled, free_list, ruled_list, relabel, largest)
    return out


extreme_mask = twins(_extreme_mask)
