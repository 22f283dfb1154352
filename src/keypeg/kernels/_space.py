"""The code space: every code of a rule set, in lexicographic order, and its bit encodings.

A code is encoded twice as bit sets so that scoring a pair is four machine
operations: *position bits* (bit ``peg * K + colour``) give the black pegs as the
popcount of an AND; *count bits* (colour ``c`` seen ``n`` times sets ``n`` low
bits of field ``c``) give black plus white, the sum over colours of the smaller
count, also as the popcount of an AND.

The other feedbacks (see :attr:`keypeg.rules.Rules.feedback`) reuse these kernels unchanged by
encoding a code twice alike: under ``black`` the count bits are the position bits (black plus
white is then the black count: no white), under ``colours`` the position bits are the count bits
(the pegs of a right colour read as black pegs: no white), so that a score is ``Feedback(k, 0)``
and its ordinal ``k * (pegs + 1)``. Under ``colours`` a code is its colours: the space holds the
sorted codes only (multisets, or sets without repeats), in lexicographic order.
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt

from keypeg.limits import count_field

Codes = npt.NDArray[np.int8]
Words = npt.NDArray[np.uint64]


def enumerate_codes(pegs: int, colors: int, repeats: bool, ordered: bool = True) -> Codes:
    """All codes as an ``N x pegs`` int8 array in lexicographic (numeric) order; only the sorted
    ones (each peg's colour at least the one before) unless ``ordered``."""
    if not ordered:
        pick = itertools.combinations_with_replacement if repeats else itertools.combinations
        flat = np.fromiter(itertools.chain.from_iterable(pick(range(colors), pegs)), dtype=np.int8)
        return flat.reshape(-1, pegs)
    if repeats:
        # one column at a time: the scratch is two int64 arrays of N, not N x pegs of them
        index = np.arange(colors**pegs, dtype=np.int64)
        codes = np.empty((index.size, pegs), dtype=np.int8)
        for peg in range(pegs - 1, -1, -1):
            codes[:, peg] = index % colors
            index //= colors
        return codes
    perms = itertools.permutations(range(colors), pegs)
    flat = np.fromiter(itertools.chain.from_iterable(perms), dtype=np.int8)
    return flat.reshape(-1, pegs)


def code_keys(codes: Codes, colors: int) -> npt.NDArray[np.int64]:
    """The numeric value of each code read as a base-``colors`` number: sorted iff codes are."""
    keys: npt.NDArray[np.int64] = np.zeros(codes.shape[0], dtype=np.int64)
    for peg in range(codes.shape[1]):  # one column at a time, no N x pegs int64 copy
        keys *= colors
        keys += codes[:, peg]
    return keys


def _set_bits(words: Words, rows: npt.NDArray[np.intp], bits: npt.NDArray[np.int64]) -> None:
    np.bitwise_or.at(words, (rows, bits // 64), np.left_shift(np.uint64(1), (bits % 64).astype(np.uint64)))


def encode(codes: Codes, colors: int, repeats: bool, feedback: str = "standard") -> tuple[Words, Words]:
    """Position bits and count bits (``N x W`` uint64 each) of each code; under the ``black`` feedback the
    count bits are the position bits, under ``colours`` the position bits are the count bits."""
    n, pegs = codes.shape
    rows = np.arange(n, dtype=np.intp)
    position = np.zeros((n, -(-pegs * colors // 64)), dtype=np.uint64)
    width = count_field(pegs, repeats)
    count = np.zeros((n, -(-colors * width // 64)), dtype=np.uint64)
    if feedback != "colours":
        for peg in range(pegs):
            _set_bits(position, rows, peg * colors + codes[:, peg].astype(np.int64))
        if feedback == "black":
            return position, position.copy()
    for color in range(colors):
        seen = (codes == color).sum(axis=1)
        for k in range(width):
            has = np.nonzero(seen > k)[0]
            _set_bits(count, has, np.full(has.size, color * width + k, dtype=np.int64))
    if feedback == "colours":
        return count.copy(), count
    return position, count
