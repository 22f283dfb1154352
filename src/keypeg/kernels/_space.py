"""The code space: every code of a rule set, in lexicographic order, and its bit encodings.

A code is encoded twice as bit sets so that scoring a pair is four machine
operations: *position bits* (bit ``peg * K + colour``) give the black pegs as the
popcount of an AND; *count bits* (colour ``c`` seen ``n`` times sets ``n`` low
bits of field ``c``) give black plus white, the sum over colours of the smaller
count, also as the popcount of an AND.
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt

from keypeg.limits import count_field

Codes = npt.NDArray[np.int8]
Words = npt.NDArray[np.uint64]


def enumerate_codes(pegs: int, colors: int, repeats: bool) -> Codes:
    """All codes as an ``N x pegs`` int8 array in lexicographic (numeric) order."""
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


def encode(codes: Codes, colors: int, repeats: bool) -> tuple[Words, Words]:
    """Position bits and count bits (``N x W`` uint64 each) of each code."""
    n, pegs = codes.shape
    rows = np.arange(n, dtype=np.intp)
    position = np.zeros((n, -(-pegs * colors // 64)), dtype=np.uint64)
    width = count_field(pegs, repeats)
    count = np.zeros((n, -(-colors * width // 64)), dtype=np.uint64)
    for peg in range(pegs):
        _set_bits(position, rows, peg * colors + codes[:, peg].astype(np.int64))
    for color in range(colors):
        seen = (codes == color).sum(axis=1)
        for k in range(width):
            has = np.nonzero(seen > k)[0]
            _set_bits(count, has, np.full(has.size, color * width + k, dtype=np.int64))
    return position, count
