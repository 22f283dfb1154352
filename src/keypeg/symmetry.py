"""Symmetry: keep one guess per class of guesses that split the fitting codes alike.

A colour-and-peg permutation that maps the set of fitting codes onto itself maps
each guess to one with the same partition (parts relabelled), so only one guess
per class needs scoring. keypeg uses three such symmetries: colours in no past
guess are interchangeable; colours in no fitting code are interchangeable; and
peg permutations, with the colour maps they force, that fix every past guess (none under the
``colours`` feedback, whose codes are sorted: there colour maps alone, a code mapped to its sorted image).
Class representatives are the smallest (or largest) code of their class, so
"lowest index wins" tie-breaks give the same guess with or without symmetry.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from keypeg.kernels import CodeSpace, Index
from keypeg.rules import Rules

__all__ = ["representatives", "peg_permutations", "permutations_of", "MAX_PEG_PERMUTATION_PEGS"]

MAX_PEG_PERMUTATION_PEGS = 6
"""Peg permutations are searched up to this many pegs (720 of them); colour symmetry always."""


@lru_cache(maxsize=16)
def peg_permutations(pegs: int) -> npt.NDArray[np.int64]:
    """The peg permutations symmetry uses: all of them up to :data:`MAX_PEG_PERMUTATION_PEGS` pegs, else none."""
    if pegs > MAX_PEG_PERMUTATION_PEGS:
        return np.arange(pegs, dtype=np.int64)[None, :]
    return np.array(list(itertools.permutations(range(pegs))), dtype=np.int64)


def permutations_of(rules: Rules) -> npt.NDArray[np.int64]:
    """The peg permutations symmetry uses for ``rules``: :func:`peg_permutations`, or the identity alone
    under the ``colours`` feedback (a code is its colours, kept sorted: moving pegs is no symmetry)."""
    if not rules.ordered:
        return np.arange(rules.pegs, dtype=np.int64)[None, :]
    return peg_permutations(rules.pegs)


def _partitions(total: int, most: int, parts: int) -> list[list[int]]:
    """The ways to write ``total`` as at most ``parts`` numbers of at most ``most`` each, largest first."""
    if total == 0:
        return [[]]
    if parts == 0:
        return []
    found: list[list[int]] = []
    for first in range(min(total, most), 0, -1):
        found.extend([first, *rest] for rest in _partitions(total - first, first, parts - 1))
    return found


def _first_guess_classes(space: CodeSpace, largest: bool) -> Index:
    """Before any guess every peg and colour permutation is a symmetry: one class per way of splitting
    the pegs into colour counts, represented by AAAB-like codes (ZZZY-like with ``largest``)."""
    rules = space.rules
    colors = rules.num_colors
    codes = []
    for counts in _partitions(rules.pegs, rules.pegs if rules.repeats else 1, colors):
        order = range(colors - 1, -1, -1) if largest else range(colors)
        code = [c for c, n in zip(order, counts, strict=False) for _ in range(n)]
        codes.append(rules.code(code))
    return np.sort(space.indices(codes))


def representatives(
    space: CodeSpace, pool: Index, history: Sequence[tuple[int, int]], candidates: Index, *, largest: bool = False
) -> Index:
    """The codes of ``pool`` that are the smallest (``largest``) of their class.

    ``pool`` must be a union of classes (all codes, or the fitting codes).
    """
    pool = np.asarray(pool, dtype=np.intp)
    if candidates.size == 0:
        return pool
    if not history and candidates.size == space.size:
        found = _first_guess_classes(space, largest)
        result_: Index = found[np.isin(found, pool)]
        return result_
    guesses = [g for g, _ in history]
    mask = space.extreme_mask(pool, guesses, candidates, permutations_of(space.rules), largest=largest)
    result: Index = pool[mask]
    return result
