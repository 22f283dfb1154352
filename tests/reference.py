"""Plain-Python references and hypothesis strategies shared by the tests.

Everything here is built from the standard library and ``keypeg.feedback.score_colors``
(the documented plain-Python reference): no kernel and no closed-form rule is used,
so the tests can hold the fast paths and the closed forms against it.
"""

from __future__ import annotations

import itertools
import math
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


# -- references for the kernels' helpers ---------------------------------------------------------


def reference_parts(guess: Colors, secrets: list[Colors]) -> dict[int, int]:
    """Part sizes by feedback ordinal: how many of ``secrets`` give ``guess`` each feedback."""
    return dict(Counter(ordinal(secret, guess) for secret in secrets))


def reference_cost(guess: Colors, secrets: list[Colors], cost: str, values: list[float] | None = None) -> float:
    """A partition cost straight from its definition: largest part, sum of squared parts, minus the
    number of parts, sum of ``n log2 n``, or the sum of ``values[n]`` over the parts."""
    sizes = list(reference_parts(guess, secrets).values())
    if cost == "largest-part":
        return float(max(sizes, default=0))
    if cost == "sum-of-squares":
        return float(sum(n * n for n in sizes))
    if cost == "fewest-parts":
        return -float(len(sizes))
    if cost == "sum-n-log-n":
        return sum(n * math.log2(n) for n in sizes)
    if cost == "table-sum":
        assert values is not None
        return sum(values[n] for n in sizes)
    raise ValueError(cost)


def reference_first_perfect_split(guesses: list[Colors], secrets: list[Colors], backwards: bool) -> int | None:
    """The position in ``guesses`` of the first (last if ``backwards``) that gives every secret a different feedback."""
    order = range(len(guesses) - 1, -1, -1) if backwards else range(len(guesses))
    for k in order:
        if len({ordinal(secret, guesses[k]) for secret in secrets}) == len(secrets):
            return k
    return None


def reference_two_step_parts(guess: Colors, secrets: list[Colors], second: list[Colors]) -> int:
    """The sum over the parts ``guess`` makes of ``secrets`` of the most parts one guess of ``second``
    makes of that part (a part of one or two codes counts its size)."""
    parts: dict[int, list[Colors]] = {}
    for secret in secrets:
        parts.setdefault(ordinal(secret, guess), []).append(secret)
    total = 0
    for part in parts.values():
        if len(part) <= 2:
            total += len(part)
        else:
            total += max([1, *(len({ordinal(s, h) for s in part}) for h in second)])
    return total


def reference_distance(code: Colors, history: list[tuple[Colors, int, int]], weight: int) -> int:
    """How far ``code`` is from fitting the scored guesses ``(guess, black, white)``."""
    total = 0
    for guess, black, white in history:
        b, w = score_colors(code, guess)
        total += weight * abs(b - black) + abs(w - white)
    return total


def reference_split(guess: Colors, members: list[tuple[int, Colors]], win: int | None) -> list[tuple[int, list[int]]]:
    """The parts (ordinal, indices in their given order) a guess makes of the ``(index, code)`` members,
    by increasing ordinal, leaving out the part of ordinal ``win`` (``None`` keeps every part)."""
    parts: dict[int, list[int]] = {}
    for i, code in members:
        parts.setdefault(ordinal(code, guess), []).append(i)
    return [(f, parts[f]) for f in sorted(parts) if f != win]


def reference_symmetries(
    perms: list[tuple[int, ...]], guesses: list[Colors], candidates: list[Colors], colors: int
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every symmetry as (peg permutation, colour permutation), acting as ``y[i] = pi[x[sigma[i]]]``:
    ``sigma`` from ``perms`` and ``pi`` any colour permutation that maps each guess onto itself and the
    colours of the candidates onto themselves, then followed by any permutation of the colours in no
    candidate (they are interchangeable, wherever they appear). Brute force over every ``pi``."""
    present = {c for code in candidates for c in code}
    ruled = [c for c in range(colors) if c not in present]
    found = []
    for sigma in perms:
        for pi in itertools.permutations(range(colors)):
            fixes = all(pi[g[sigma[i]]] == g[i] for g in guesses for i in range(len(g)))
            if fixes and {pi[c] for c in present} == present:
                for shuffled in itertools.permutations(ruled):
                    rho = dict(zip(ruled, shuffled, strict=True))
                    found.append((sigma, tuple(rho.get(pi[c], pi[c]) for c in range(colors))))
    return found


def reference_extreme(code: Colors, symmetries: list[tuple[tuple[int, ...], tuple[int, ...]]], largest: bool) -> bool:
    """Whether no symmetry maps ``code`` to a smaller (``largest``: larger) code."""
    images = [tuple(pi[code[sigma[i]]] for i in range(len(code))) for sigma, pi in symmetries]
    return all(image <= code for image in images) if largest else all(image >= code for image in images)


def secret_hidden(text: str, secret: str, rules: Rules) -> bool:
    """Whether ``secret`` is nowhere in ``text`` but where every page shows it by chance: inside the rules'
    own list of symbols (a secret GBYW is part of RGBYWK) or as the example code of the rules (RRGG)."""
    for shown in ("".join(rules.symbols), rules.example()):
        text = text.replace(shown, "")
    return secret not in text
