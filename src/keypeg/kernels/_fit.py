"""numba kernel: count the codes that fit scored guesses without listing the code space.

A depth-first search over the pegs, left to right, that keeps for every guess the black pegs and
the key pegs (black plus white) the code so far already gives, and leaves a branch as soon as some
guess has too many, or too few to be reached with the pegs left. Used where the space is too large
to enumerate and a count must be exact (or a stated lower bound): ordering the likely mistakes.

Under the ``black`` feedback only the black pegs are constrained; under ``colours`` only the key
pegs (the pegs of a right colour), and only sorted codes are counted (a code is its colours).
"""

from __future__ import annotations

import numpy as np
from numba import njit

STANDARD, BLACK, COLOURS = 0, 1, 2
MODES = {"standard": STANDARD, "black": BLACK, "colours": COLOURS}
"""The kernel's number for each feedback of :data:`keypeg.rules.FEEDBACKS`."""


@njit(cache=True)
def count_fitting(guesses, blacks, keys, colors, repeats, limit, budget, mode):  # type: ignore[no-untyped-def]
    """``(count, nodes, complete)``: the codes of ``colors`` colours (any colour once at most unless
    ``repeats``) that give each row of ``guesses`` (``k x pegs`` colour numbers) ``blacks[i]`` black
    pegs and ``keys[i]`` key pegs in all; the search stops once ``limit`` are found or ``budget``
    nodes are visited (``complete`` is false then, and the count a lower bound). ``mode`` (see
    :data:`MODES`) leaves out the key pegs (``BLACK``) or the black pegs and the unsorted codes (``COLOURS``)."""
    check_black, check_keys = mode != COLOURS, mode != BLACK
    k, pegs = guesses.shape
    wanted = np.zeros((k, colors), dtype=np.int64)  # how often each guess holds each colour
    for i in range(k):
        for p in range(pegs):
            wanted[i, guesses[i, p]] += 1
    black = np.zeros(k, dtype=np.int64)
    common = np.zeros(k, dtype=np.int64)
    used = np.zeros(colors, dtype=np.int64)
    chosen = np.full(pegs, -1, dtype=np.int64)
    count = 0
    nodes = 0
    p = 0
    while p >= 0:
        if chosen[p] >= 0:  # take back this peg's colour before trying the next
            c = chosen[p]
            used[c] -= 1
            for i in range(k):
                if guesses[i, p] == c:
                    black[i] -= 1
                if used[c] < wanted[i, c]:
                    common[i] -= 1
        c = chosen[p] + 1
        if mode == COLOURS and p > 0 and c < chosen[p - 1]:
            c = chosen[p - 1]  # sorted codes only
        placed = False
        while c < colors:
            nodes += 1
            if nodes > budget:
                return count, nodes, False
            if repeats or used[c] == 0:
                left = pegs - p - 1
                fits = True
                for i in range(k):
                    b = black[i] + (1 if guesses[i, p] == c else 0)
                    m = common[i] + (1 if used[c] < wanted[i, c] else 0)
                    if check_black and (b > blacks[i] or b + left < blacks[i]):
                        fits = False
                        break
                    if check_keys and (m > keys[i] or m + left < keys[i]):
                        fits = False
                        break
                if fits:
                    placed = True
                    break
            c += 1
        if not placed:
            chosen[p] = -1
            p -= 1
            continue
        chosen[p] = c
        for i in range(k):
            if guesses[i, p] == c:
                black[i] += 1
            if used[c] < wanted[i, c]:
                common[i] += 1
        used[c] += 1
        if p == pegs - 1:  # a whole code: every guess scored as given (the bounds above held to the end)
            count += 1
            if count >= limit:
                return count, nodes, False
        else:
            p += 1
    return count, nodes, True
