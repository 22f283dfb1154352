"""Plain-Python references and hypothesis strategies shared by the tests.

Everything here is built from the standard library and ``keypeg.feedback.score_colors``
(the documented plain-Python reference): no kernel and no closed-form rule is used,
so the tests can hold the fast paths and the closed forms against it.
"""

from __future__ import annotations

import itertools
import string
from collections import Counter
from functools import cache

import numpy as np
from hypothesis import strategies as st

from keypeg.feedback import score_colors
from keypeg.rules import Rules

Colors = tuple[int, ...]


def legal_codes(pegs: int, num_colors: int, repeats: bool) -> list[Colors]:
    """Every legal code as colour tuples, in lexicographic order, built with itertools."""
    codes = itertools.product(range(num_colors), repeat=pegs)
    if not repeats:
        codes = (c for c in codes if len(set(c)) == pegs)
    return sorted(codes)


def rules_codes(rules: Rules) -> list[Colors]:
    return legal_codes(rules.pegs, rules.num_colors, rules.repeats)


def ordinal(secret: Colors, guess: Colors) -> int:
    """The kernels' feedback number ``black * (pegs + 1) + white``, from the reference scorer."""
    black, white = score_colors(tuple(secret), tuple(guess))
    return black * (len(secret) + 1) + white


@cache
def reference_table(pegs: int, num_colors: int, repeats: bool) -> np.ndarray:
    """``table[g, s]``: the ordinal of guess ``g`` against secret ``s`` over all legal codes (plain Python)."""
    codes = legal_codes(pegs, num_colors, repeats)
    stride = pegs + 1
    rows = []
    for guess in codes:
        row = []
        for secret in codes:
            black, white = score_colors(secret, guess)
            row.append(black * stride + white)
        rows.append(row)
    table = np.array(rows, dtype=np.int64).reshape(len(codes), len(codes))
    table.setflags(write=False)
    return table


def reference_partition(codes: list[Colors], guesses: list[Colors], secrets: list[Colors]) -> np.ndarray:
    """``G x F`` counts of secrets per feedback ordinal, one reference score at a time."""
    pegs = len(codes[0]) if codes else len(guesses[0])
    counts = np.zeros((len(guesses), (pegs + 1) ** 2), dtype=np.int64)
    for g, guess in enumerate(guesses):
        for ordinal_, n in Counter(ordinal(secret, guess) for secret in secrets).items():
            counts[g, ordinal_] = n
    return counts


# -- hypothesis strategies ----------------------------------------------------------------


@st.composite
def rules_st(
    draw: st.DrawFn,
    min_pegs: int = 1,
    max_pegs: int = 8,
    min_colors: int = 2,
    max_colors: int = 10,
    symbols: bool = False,
) -> Rules:
    """Legal rule sets: any pegs and colours in range, with or without repeats and blanks."""
    pegs = draw(st.integers(min_pegs, max_pegs))
    colors = draw(st.integers(min_colors, max_colors))
    blanks = draw(st.booleans())
    can_skip_repeats = pegs <= colors + int(blanks)
    repeats = draw(st.booleans()) if can_skip_repeats else True
    own: tuple[str, ...] = ()
    if symbols and draw(st.booleans()):
        own = draw(symbols_st(colors))
    return Rules(pegs, colors, repeats=repeats, blanks=blanks, symbols=own)


_SYMBOL_POOL = string.ascii_uppercase + string.digits + "!#$%&*+?@^~<>"


@st.composite
def symbols_st(draw: st.DrawFn, colors: int) -> tuple[str, ...]:
    """A custom alphabet: distinct (ignoring case) visible characters, some in lower case."""
    chosen = draw(st.permutations(_SYMBOL_POOL).map(lambda p: p[:colors]))
    lower = draw(st.lists(st.booleans(), min_size=colors, max_size=colors))
    return tuple(ch.lower() if low else ch for ch, low in zip(chosen, lower, strict=True))


def colors_st(rules: Rules) -> st.SearchStrategy[Colors]:
    """Colour tuples of legal codes of ``rules``."""
    k, pegs = rules.num_colors, rules.pegs
    if rules.repeats:
        return st.tuples(*[st.integers(0, k - 1)] * pegs)
    return st.permutations(range(k)).map(lambda p: tuple(p[:pegs]))
