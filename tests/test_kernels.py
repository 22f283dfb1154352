"""The numba kernels and ``CodeSpace`` against the plain-Python reference scorer."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Code, Feedback, Rules, kernels, limits
from keypeg.errors import InvalidCodeError, TooLargeError
from keypeg.kernels import CodeSpace, Encoded, Scorer, _score, _select, _symmetry, feedback_ordinal, ordinal_feedback
from keypeg.kernels._jit import Twins
from keypeg.limits import MAX_SPACE, TABLE_LIMIT
from keypeg.rules import MAX_PEGS
from reference import (
    colors_st,
    legal_codes,
    ordinal,
    reference_cost,
    reference_distance,
    reference_first_perfect_split,
    reference_partition,
    reference_split,
    reference_table,
    reference_two_step_parts,
    rules_codes,
    rules_st,
)

EXHAUSTIVE = [
    Rules(3, 3),
    Rules(4, 4, repeats=False),
    Rules(3, 4, blanks=True),
    Rules(4, 6),
    Rules(2, 5),
    Rules(1, 3),
    Rules(3, 3, repeats=False, blanks=True),
    Rules(2, 2, repeats=False),
]
EXHAUSTIVE_FAST = [pytest.param(r, marks=pytest.mark.slow) if r.size > 1000 else r for r in EXHAUSTIVE]
"""The exhaustive rule sets, the large ones (every pair of codes scored in Python) marked slow."""


def _id(rules: Rules) -> str:
    return f"{rules.pegs}x{rules.colors}" + ("" if rules.repeats else "-norep") + ("-blanks" if rules.blanks else "")


def _reference(rules: Rules) -> np.ndarray:
    return reference_table(rules.pegs, rules.num_colors, rules.repeats)


def _histograms(table: np.ndarray, pegs: int) -> np.ndarray:
    """Row-wise counts of each feedback ordinal in a reference table."""
    width = (pegs + 1) ** 2
    return np.array([np.bincount(row, minlength=width) for row in table], dtype=np.int64).reshape(-1, width)


def _encode(codes: list[tuple[int, ...]], rules: Rules) -> Encoded:
    return Scorer.of(rules).encode(np.array(codes, dtype=np.int8).reshape(-1, rules.pegs))


# -- (1) exhaustive checks on small rule sets --------------------------------------------------------


@pytest.mark.parametrize("rules", EXHAUSTIVE, ids=_id)
def test_enumeration_is_every_legal_code_in_lexicographic_order(rules: Rules) -> None:
    space = CodeSpace.of(rules)
    expected = legal_codes(rules.pegs, rules.num_colors, rules.repeats)
    assert space.size == len(expected) == rules.size
    assert [tuple(int(c) for c in row) for row in space.codes] == expected
    assert [space.code(i).colors for i in range(space.size)] == expected
    assert all(space.code(i).rules == rules for i in (0, space.size - 1))


@pytest.mark.parametrize("rules", EXHAUSTIVE_FAST, ids=_id)
def test_feedback_table_is_the_reference_on_every_pair(rules: Rules) -> None:
    space = CodeSpace.of(rules)
    expected = _reference(rules)
    assert space.size <= TABLE_LIMIT
    assert space.table is not None
    assert space.table.shape == expected.shape
    np.testing.assert_array_equal(space.table, expected)


@pytest.mark.parametrize("rules", EXHAUSTIVE_FAST, ids=_id)
def test_feedbacks_of_each_guess_is_the_reference(rules: Rules) -> None:
    space = CodeSpace.of(rules)
    expected = _reference(rules)
    rng = np.random.default_rng(rules.size)
    for g in range(space.size):
        np.testing.assert_array_equal(space.feedbacks(g), expected[g])
        some = rng.integers(0, space.size, size=7)
        np.testing.assert_array_equal(space.feedbacks(g, some), expected[g, some])


@pytest.mark.parametrize("rules", EXHAUSTIVE_FAST, ids=_id)
def test_bit_path_scores_every_pair_like_the_reference(rules: Rules) -> None:
    """``Scorer.feedbacks`` and ``Scorer.partition`` on encodings of the test's own code list."""
    codes = rules_codes(rules)
    scorer = Scorer.of(rules)
    encoded = _encode(codes, rules)
    expected = _reference(rules)
    for g in range(len(codes)):
        np.testing.assert_array_equal(scorer.feedbacks(encoded.take(g), encoded), expected[g])
    np.testing.assert_array_equal(scorer.partition(encoded, encoded), _histograms(expected, rules.pegs))


@pytest.mark.parametrize("rules", EXHAUSTIVE_FAST, ids=_id)
def test_partition_of_every_guess_against_every_code(rules: Rules) -> None:
    space = CodeSpace.of(rules)
    counts = space.partition(space.all, space.all)
    assert counts.shape == (space.size, (rules.pegs + 1) ** 2)
    np.testing.assert_array_equal(counts, _histograms(_reference(rules), rules.pegs))


# -- (2) partitions of random subsets --------------------------------------------------------------


@st.composite
def space_and_subsets(draw: st.DrawFn) -> tuple[Rules, list[int], list[int]]:
    rules = draw(st.sampled_from(EXHAUSTIVE))
    index = st.integers(0, rules.size - 1)
    guesses = draw(st.lists(index, max_size=12))
    secrets = draw(st.lists(index, max_size=60))
    return rules, guesses, secrets


@settings(max_examples=60)
@given(space_and_subsets())
def test_partition_counts_of_random_subsets(case: tuple[Rules, list[int], list[int]]) -> None:
    rules, guesses, secrets = case
    space = CodeSpace.of(rules)
    codes = rules_codes(rules)
    width = (rules.pegs + 1) ** 2
    expected = reference_partition(codes, [codes[g] for g in guesses], [codes[s] for s in secrets])
    counts = space.partition(np.array(guesses, dtype=np.intp), np.array(secrets, dtype=np.intp))
    assert counts.shape == (len(guesses), width)
    np.testing.assert_array_equal(counts, expected)
    if guesses and secrets:
        bits = Scorer.of(rules).partition(
            _encode([codes[g] for g in guesses], rules), _encode([codes[s] for s in secrets], rules)
        )
        np.testing.assert_array_equal(bits, expected)


# -- (3) consistent codes ----------------------------------------------------------------------------


@st.composite
def space_and_history(draw: st.DrawFn) -> tuple[Rules, list[tuple[int, int]], list[int] | None]:
    rules = draw(st.sampled_from(EXHAUSTIVE))
    codes = rules_codes(rules)
    index = st.integers(0, rules.size - 1)
    secret = codes[draw(index)]
    guesses = draw(st.lists(index, max_size=4))
    history = []
    for g in guesses:
        if draw(st.integers(0, 4)) == 0:  # now and then a score that may not fit the secret
            feedback = draw(st.sampled_from(rules.feedbacks()))
            history.append((g, feedback_ordinal(feedback, rules.pegs)))
        else:
            history.append((g, ordinal(secret, codes[g])))
    within = draw(st.none() | st.lists(index, max_size=30))
    return rules, history, within


@settings(max_examples=80)
@given(space_and_history())
def test_consistent_is_reference_filtering(case: tuple[Rules, list[tuple[int, int]], list[int] | None]) -> None:
    rules, history, within = case
    space = CodeSpace.of(rules)
    codes = rules_codes(rules)
    pool = range(len(codes)) if within is None else within
    expected = [i for i in pool if all(ordinal(codes[i], codes[g]) == o for g, o in history)]
    found = space.consistent(history) if within is None else space.consistent(history, np.array(within, np.intp))
    assert found.tolist() == expected


def test_consistent_with_as_many_guesses_as_codes() -> None:
    rules = Rules(2, 2, repeats=False)  # two codes: AB and BA
    space = CodeSpace.of(rules)
    ab, ba = rules.parse("AB"), rules.parse("BA")
    history = [(space.index(ba), ordinal(ab.colors, ba.colors)), (space.index(ab), ordinal(ab.colors, ab.colors))]
    assert space.consistent(history).tolist() == [space.index(ab)]


def test_consistent_within_every_code_in_reverse() -> None:
    rules = Rules(3, 3)
    space = CodeSpace.of(rules)
    codes = rules_codes(rules)
    history = [(space.index(rules.parse("AAB")), ordinal((0, 0, 0), (0, 0, 1)))]
    within = space.all[::-1].copy()
    expected = [i for i in within.tolist() if ordinal(codes[i], codes[history[0][0]]) == history[0][1]]
    assert space.consistent(history, within).tolist() == expected


def test_consistent_after_scoring_a_secret_keeps_it() -> None:
    rules = Rules(4, 6)
    space = CodeSpace.of(rules)
    secret = rules.parse("CAFE")
    history = [(space.index(rules.parse(g)), ordinal(secret.colors, rules.parse(g).colors)) for g in ("AABB", "CDEF")]
    found = space.consistent(history)
    assert space.index(secret) in found.tolist()
    assert 0 < found.size < space.size


# -- (4) large rule sets, random pairs -------------------------------------------------------------------


def _random_codes(rules: Rules, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = rules.num_colors
    if rules.repeats:
        return rng.integers(0, k, size=(n, rules.pegs)).astype(np.int8)
    return np.argsort(rng.random((n, k)), axis=1)[:, : rules.pegs].astype(np.int8)


@pytest.mark.parametrize("rules", [Rules(5, 8), Rules(6, 9)], ids=_id)
def test_enumerated_large_space_random_pairs(rules: Rules) -> None:
    space = CodeSpace.of(rules)
    codes = space.codes.astype(np.int64)
    assert space.size == rules.size
    assert codes.min() == 0
    assert codes.max() == rules.num_colors - 1
    keys = codes @ (rules.num_colors ** np.arange(rules.pegs - 1, -1, -1))
    assert (np.diff(keys) > 0).all()  # strictly increasing: distinct and in lexicographic order
    rng = np.random.default_rng(7)
    for g in rng.integers(0, space.size, size=4):
        secrets = rng.integers(0, space.size, size=300)
        guess = tuple(int(c) for c in codes[g])
        expected = [ordinal(tuple(int(c) for c in codes[s]), guess) for s in secrets]
        assert space.feedbacks(int(g), secrets).tolist() == expected
        assert space.feedbacks(int(g))[secrets].tolist() == expected


LARGE = [
    Rules(5, 8),
    Rules(6, 9),
    Rules(7, 10),
    Rules(8, 12),
    Rules(7, 10, blanks=True),
    Rules(9, 12, repeats=False),
    Rules(12, 26, repeats=False),
    Rules(15, 26, blanks=True),
]


@pytest.mark.parametrize("rules", LARGE, ids=_id)
def test_encoded_random_codes_score_like_the_reference(rules: Rules) -> None:
    codes = _random_codes(rules, 400, seed=rules.pegs * 100 + rules.colors)
    tuples = [tuple(int(c) for c in row) for row in codes]
    scorer = Scorer.of(rules)
    encoded = scorer.encode(codes)
    for g in range(0, 400, 40):
        expected = [ordinal(secret, tuples[g]) for secret in tuples]
        assert scorer.feedbacks(encoded.take(g), encoded).tolist() == expected
    guesses = encoded.take(np.arange(25))
    np.testing.assert_array_equal(scorer.partition(guesses, encoded), reference_partition(tuples, tuples[:25], tuples))


def test_large_rule_sets_include_multi_word_encodings() -> None:
    assert sum(r.pegs * r.num_colors > 64 for r in LARGE) >= 5


@settings(max_examples=60)
@given(
    rules_st(max_pegs=15, max_colors=26).flatmap(
        lambda r: st.tuples(st.just(r), st.lists(colors_st(r), min_size=1, max_size=30))
    )
)
def test_random_rules_score_like_the_reference(case: tuple[Rules, list[tuple[int, ...]]]) -> None:
    rules, tuples = case
    scorer = Scorer.of(rules)
    encoded = _encode(tuples, rules)
    for g, guess_colors in enumerate(tuples[:5]):
        assert scorer.feedbacks(encoded.take(g), encoded).tolist() == [ordinal(s, guess_colors) for s in tuples]
    np.testing.assert_array_equal(scorer.partition(encoded, encoded), reference_partition(tuples, tuples, tuples))


def test_most_pegs_win_ordinal() -> None:
    rules = Rules(MAX_PEGS, 2)
    codes = np.zeros((2, MAX_PEGS), dtype=np.int8)
    codes[1, 0] = 1
    scorer = Scorer.of(rules)
    encoded = scorer.encode(codes)
    found = scorer.feedbacks(encoded.take(0), encoded).tolist()
    assert found == [ordinal(tuple(codes[0]), tuple(c)) for c in codes.tolist()]


# -- (5) the bit path of CodeSpace above TABLE_LIMIT ----------------------------------------------------


def test_partition_above_table_limit_uses_bits_and_matches_the_reference() -> None:
    rules = Rules(5, 8)
    assert rules.size > TABLE_LIMIT
    space = CodeSpace.of(rules)
    assert space.table is None
    codes = rules_codes(rules)
    rng = np.random.default_rng(58)
    guesses = [space.index(rules.parse(text)) for text in ("AAAAA", "AABBC", "ABCDE")]
    guesses += rng.integers(0, space.size, size=2).tolist()
    counts = space.partition(np.array(guesses, dtype=np.intp), space.all)
    np.testing.assert_array_equal(counts, reference_partition(codes, [codes[g] for g in guesses], codes))
    secrets = rng.integers(0, space.size, size=500)
    some = space.partition(np.array(guesses, dtype=np.intp), secrets)
    np.testing.assert_array_equal(
        some, reference_partition(codes, [codes[g] for g in guesses], [codes[s] for s in secrets])
    )


def test_partition_above_table_limit_of_every_code_shuffled() -> None:
    rules = Rules(5, 8)
    space = CodeSpace.of(rules)
    codes = rules_codes(rules)
    rng = np.random.default_rng(85)
    guesses = rng.permutation(space.size)
    secrets = rng.integers(0, space.size, size=8)
    counts = space.partition(guesses, secrets)
    first = guesses[:3].tolist()
    expected = reference_partition(codes, [codes[g] for g in first], [codes[s] for s in secrets])
    np.testing.assert_array_equal(counts[:3], expected)


# -- Kooi (2005), Table 2: first guesses of classic Mastermind ----------------------------------------------


@pytest.mark.parametrize(
    ("guess", "largest", "parts"),
    [("AAAA", 625, 5), ("AAAB", 317, 11), ("AABB", 256, 13), ("AABC", 276, 14), ("ABCD", 312, 14)],
)
def test_kooi_table_2(guess: str, largest: int, parts: int) -> None:
    rules = Rules(4, 6)
    space = CodeSpace.of(rules)
    counts = space.partition(np.array([space.index(rules.parse(guess))]), space.all)[0]
    assert counts.sum() == 1296
    assert counts.max() == largest
    assert np.count_nonzero(counts) == parts


# -- (6) indices, errors, ordinals ------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [Rules(4, 6), Rules(4, 4, repeats=False), Rules(3, 4, blanks=True)], ids=_id)
def test_index_round_trip(rules: Rules) -> None:
    space = CodeSpace.of(rules)
    expected = legal_codes(rules.pegs, rules.num_colors, rules.repeats)
    codes = [rules.code(c) for c in expected]
    assert [space.index(code) for code in codes] == list(range(len(codes)))
    assert space.indices(codes).tolist() == list(range(len(codes)))
    assert space.indices(list(reversed(codes))).tolist() == list(reversed(range(len(codes))))
    for i in range(0, space.size, 17):
        assert space.index(space.code(i)) == i


def test_index_of_an_illegal_code() -> None:
    space = CodeSpace.of(Rules(4, 4, repeats=False))
    with pytest.raises(InvalidCodeError, match="AABC"):
        space.index(Rules(4, 4).parse("AABC"))
    with pytest.raises(InvalidCodeError):
        space.indices([Rules(4, 4).parse("ABCD"), Rules(4, 4).parse("DDDD")])


def test_index_of_a_code_with_an_unknown_colour() -> None:
    space = CodeSpace.of(Rules(4, 6))
    with pytest.raises(InvalidCodeError):
        space.index(Code((0, 6, 0, 0), Rules(4, 7)))


def test_index_of_a_code_of_the_wrong_length() -> None:
    space = CodeSpace.of(Rules(4, 6))
    with pytest.raises(InvalidCodeError):
        space.index(Rules(5, 6).parse("AAAAA"))


@pytest.mark.parametrize(
    "rules", [Rules(8, 12), Rules(6, 26, repeats=False), Rules(15, 26, blanks=True), Rules(10, 6)], ids=_id
)
def test_too_large_to_enumerate(rules: Rules) -> None:
    assert rules.size > MAX_SPACE
    with pytest.raises(TooLargeError) as info:
        CodeSpace(rules)
    assert isinstance(info.value, ValueError)


def test_code_space_is_shared() -> None:
    assert CodeSpace.of(Rules(4, 6)) is CodeSpace.of(Rules(4, 6))
    assert CodeSpace.of(Rules(4, 6)).size == 1296


@pytest.mark.parametrize("pegs", range(1, 17))
def test_feedback_ordinals_round_trip(pegs: int) -> None:
    seen = set()
    for black in range(pegs + 1):
        for white in range(pegs + 1 - black):
            number = feedback_ordinal(Feedback(black, white), pegs)
            assert 0 <= number < (pegs + 1) ** 2
            assert ordinal_feedback(number, pegs) == Feedback(black, white)
            seen.add(number)
    assert len(seen) == (pegs + 1) * (pegs + 2) // 2


# -- (7) the helpers behind the strategies, each against its plain-Python definition ---------------------

SMALL = [Rules(3, 3), Rules(2, 5), Rules(1, 3), Rules(3, 3, repeats=False, blanks=True), Rules(2, 2, repeats=False)]
COST_NAMES = ["largest-part", "sum-of-squares", "fewest-parts", "sum-n-log-n", "table-sum"]


@contextmanager
def threads(parallel: bool) -> Iterator[None]:
    """Every kernel job on all threads (``parallel``) or on one, whatever its size."""
    saved = limits.PARALLEL_MIN_PAIRS
    limits.PARALLEL_MIN_PAIRS = 0 if parallel else 1 << 62
    try:
        yield
    finally:
        limits.PARALLEL_MIN_PAIRS = saved


@st.composite
def cost_case(draw: st.DrawFn) -> tuple[Rules, list[int], list[int], str, list[float]]:
    rules = draw(st.sampled_from(EXHAUSTIVE))
    index = st.integers(0, rules.size - 1)
    guesses = draw(st.lists(index, max_size=10))
    secrets = draw(st.lists(index, max_size=40))
    cost = draw(st.sampled_from(COST_NAMES))
    values = draw(st.lists(st.integers(-50, 50).map(float), min_size=len(secrets) + 1, max_size=len(secrets) + 1))
    return rules, guesses, secrets, cost, values


@settings(max_examples=80)
@given(cost_case(), st.booleans())
def test_partition_costs_are_their_definitions(
    case: tuple[Rules, list[int], list[int], str, list[float]], parallel: bool
) -> None:
    """Every cost, on the table path (``CodeSpace``) and the bit path (``Scorer``), serial and parallel."""
    rules, guesses, secrets, cost, values = case
    space = CodeSpace.of(rules)
    codes = rules_codes(rules)
    table_values = np.array(values) if cost == "table-sum" else None
    expected = [reference_cost(codes[g], [codes[s] for s in secrets], cost, values) for g in guesses]
    g, s = np.array(guesses, dtype=np.intp), np.array(secrets, dtype=np.intp)
    with threads(parallel):
        assert space.table is not None
        from_table = space.partition_costs(g, s, cost, table_values)
        from_bits = space.scorer.partition_costs(space.encoded(g), space.encoded(s), cost, table_values)
    np.testing.assert_allclose(from_table, expected, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(from_bits, expected, rtol=1e-12, atol=1e-9)


def test_partition_costs_above_the_table_limit() -> None:
    rules = Rules(5, 8)
    space = CodeSpace.of(rules)
    assert space.table is None
    rng = np.random.default_rng(5)
    guesses = rng.integers(0, space.size, size=30)
    secrets = np.sort(rng.choice(space.size, size=200, replace=False))
    codes = [tuple(int(c) for c in space.codes[i]) for i in range(space.size)]
    for cost in COST_NAMES[:4]:
        expected = [reference_cost(codes[g], [codes[s] for s in secrets], cost) for g in guesses]
        np.testing.assert_allclose(space.partition_costs(guesses, secrets, cost), expected, rtol=1e-12)


def test_table_sum_needs_a_value_per_part_size() -> None:
    space = CodeSpace.of(Rules(3, 3))
    with pytest.raises(ValueError, match="table-sum"):
        space.partition_costs(space.all, space.all[:5], "table-sum", np.zeros(5))
    with pytest.raises(ValueError, match="table-sum"):
        space.partition_costs(space.all, space.all[:5], "table-sum")


@settings(max_examples=80)
@given(data=st.data())
def test_first_perfect_split_forwards_and_backwards(data: st.DataObject) -> None:
    rules = data.draw(st.sampled_from(EXHAUSTIVE))
    space = CodeSpace.of(rules)
    codes = rules_codes(rules)
    index = st.integers(0, rules.size - 1)
    secrets = sorted(data.draw(st.sets(index, min_size=1, max_size=5)))
    guesses = data.draw(st.lists(index, max_size=30))
    backwards = data.draw(st.booleans())
    found = space.first_perfect_split(np.array(guesses, dtype=np.intp), np.array(secrets), backwards=backwards)
    position = reference_first_perfect_split([codes[g] for g in guesses], [codes[s] for s in secrets], backwards)
    assert found == (None if position is None else guesses[position])


def test_first_perfect_split_finds_the_first_and_the_last() -> None:
    """Two secrets that only some guesses tell apart: the first and the last of those are found."""
    rules = Rules(3, 3)
    space = CodeSpace.of(rules)
    codes = rules_codes(rules)
    secrets = [space.index(rules.parse("AAB")), space.index(rules.parse("ABA"))]
    splits = [
        g for g in range(space.size) if ordinal(codes[secrets[0]], codes[g]) != ordinal(codes[secrets[1]], codes[g])
    ]
    assert 2 <= len(splits) < space.size
    assert space.first_perfect_split(space.all, np.array(secrets)) == splits[0]
    assert space.first_perfect_split(space.all, np.array(secrets), backwards=True) == splits[-1]


@settings(max_examples=40)
@given(data=st.data())
def test_two_step_parts_is_its_definition(data: st.DataObject) -> None:
    rules = data.draw(st.sampled_from(SMALL))
    space = CodeSpace.of(rules)
    codes = rules_codes(rules)
    index = st.integers(0, rules.size - 1)
    guesses = data.draw(st.lists(index, min_size=1, max_size=6))
    secrets = sorted(data.draw(st.sets(index, max_size=20)))
    second = data.draw(st.lists(index, max_size=rules.size))
    found = space.two_step_parts(np.array(guesses, np.intp), np.array(secrets, np.intp), np.array(second, np.intp))
    expected = [
        reference_two_step_parts(codes[g], [codes[s] for s in secrets], [codes[h] for h in second]) for g in guesses
    ]
    assert found.tolist() == expected


@settings(max_examples=60)
@given(
    rules_st(max_pegs=12, max_colors=20).flatmap(
        lambda r: st.tuples(
            st.just(r),
            st.lists(colors_st(r), min_size=1, max_size=20),
            st.lists(st.tuples(colors_st(r), st.integers(0, r.pegs), st.integers(0, r.pegs)), max_size=5),
            st.integers(1, 3),
        )
    )
)
def test_history_distance_is_its_definition(
    case: tuple[Rules, list[tuple[int, ...]], list[tuple[tuple[int, ...], int, int]], int],
) -> None:
    """Any scores, fitting or not, and any black-peg weight."""
    rules, codes, history, weight = case
    scorer = Scorer.of(rules)
    guesses = scorer.encode(np.array([g for g, _, _ in history], dtype=np.int8).reshape(-1, rules.pegs))
    blacks = np.array([b for _, b, _ in history], dtype=np.int64)
    whites = np.array([w for _, _, w in history], dtype=np.int64)
    found = scorer.distance(scorer.encode(np.array(codes)), guesses, blacks, whites, weight)
    assert found.tolist() == [reference_distance(code, history, weight) for code in codes]


def test_history_distance_is_zero_exactly_for_the_fitting_codes() -> None:
    rules = Rules(4, 6)
    space = CodeSpace.of(rules)
    history = [
        (space.index(rules.parse(g)), ordinal(rules.parse("CAFE").colors, rules.parse(g).colors))
        for g in ("AABB", "CDEF")
    ]
    scorer = Scorer.of(rules)
    blacks = np.array([divmod(f, 5)[0] for _, f in history])
    whites = np.array([divmod(f, 5)[1] for _, f in history])
    distance = scorer.distance(space.encoded(), space.encoded(np.array([g for g, _ in history])), blacks, whites, 2)
    assert np.flatnonzero(distance == 0).tolist() == space.consistent(history).tolist()


@settings(max_examples=80)
@given(data=st.data())
def test_split_is_the_reference_partition(data: st.DataObject) -> None:
    rules = data.draw(st.sampled_from([*EXHAUSTIVE, Rules(5, 8)]))
    space = CodeSpace.of(rules)
    index = st.integers(0, rules.size - 1)
    guess = data.draw(index)
    indices = data.draw(st.lists(index, max_size=60, unique=True))
    keep_win = data.draw(st.booleans())
    members = [(i, tuple(int(c) for c in space.codes[i])) for i in indices]
    guess_colours = tuple(int(c) for c in space.codes[guess])
    expected = reference_split(guess_colours, members, None if keep_win else space.win)
    found = space.split(guess, np.array(indices, dtype=np.intp), keep_win=keep_win)
    assert [(f, part.tolist()) for f, part in found] == expected
    assert all(part.dtype == np.intp for _, part in found)


def test_split_of_every_code_by_a_first_guess() -> None:
    """Kooi's AABB split of classic Mastermind: 13 parts, the largest 256, the win one code."""
    rules = Rules(4, 6)
    space = CodeSpace.of(rules)
    guess = space.index(rules.parse("AABB"))
    parts = space.split(guess, space.all)
    assert len(parts) == 13
    assert max(part.size for _, part in parts) == 256
    assert (space.win, [guess]) in [(f, part.tolist()) for f, part in parts]
    assert len(space.split(guess, space.all, keep_win=False)) == 12


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_serial_and_parallel_kernels_agree(parallel: bool) -> None:
    """Each kernel compiled twice gives the reference on one thread and on all, table and bit paths."""
    rules = Rules(4, 5)
    space = CodeSpace.of(rules)
    codes = rules_codes(rules)
    rng = np.random.default_rng(45)
    guesses = rng.permutation(space.size)[:200]
    secrets = np.sort(rng.choice(space.size, size=300, replace=False))
    expected = reference_partition(codes, [codes[g] for g in guesses], [codes[s] for s in secrets])
    history = [(int(g), ordinal(codes[int(secrets[0])], codes[int(g)])) for g in guesses[:3]]
    fitting = [i for i in range(space.size) if all(ordinal(codes[i], codes[g]) == f for g, f in history)]
    with threads(parallel):
        np.testing.assert_array_equal(space.partition(guesses, secrets), expected)
        np.testing.assert_array_equal(space.scorer.partition(space.encoded(guesses), space.encoded(secrets)), expected)
        costs = space.scorer.partition_costs(space.encoded(guesses), space.encoded(secrets), "sum-of-squares")
        assert costs.tolist() == (expected.astype(np.int64) ** 2).sum(axis=1).tolist()
        assert space.partition_costs(guesses, secrets, "largest-part").tolist() == expected.max(axis=1).tolist()
        assert space.consistent(history).tolist() == fitting
    wide = Rules(8, 12)  # 96 peg-colour bits: two words a code
    rows = _random_codes(wide, 120, seed=812)
    tuples = [tuple(int(c) for c in row) for row in rows]
    scorer = Scorer.of(wide)
    encoded = scorer.encode(rows)
    assert encoded.position_bits.shape[1] == 2
    with threads(parallel):
        np.testing.assert_array_equal(scorer.partition(encoded, encoded), reference_partition(tuples, tuples, tuples))
        costs = scorer.partition_costs(encoded, encoded, "fewest-parts")
        assert costs.tolist() == [-float(len(set(ordinal(s, g) for s in tuples))) for g in tuples]


def test_each_twin_is_compiled_apart() -> None:
    """The serial twin has its own name (and so its own cache files) and no parallel option."""
    found = [v for module in (_score, _select, _symmetry) for v in vars(module).values() if isinstance(v, Twins)]
    assert len(found) >= 5
    for twins in found:
        assert twins.parallel.targetoptions.get("parallel")
        assert not twins.serial.targetoptions.get("parallel")
        assert twins.serial.py_func.__qualname__ == twins.parallel.py_func.__qualname__ + "_serial"
        assert twins.serial.py_func.__code__ is twins.parallel.py_func.__code__


@pytest.mark.slow
def test_a_second_process_loads_both_twins_from_the_cache() -> None:
    script = textwrap.dedent(
        """
        import numpy as np
        from keypeg.kernels import _score
        bits = np.ones((3, 1), dtype=np.uint64)
        for kernel in _score.partition_counts:
            kernel(bits, bits, bits, bits, 4)
            print(sum(kernel.stats.cache_misses.values()), sum(kernel.stats.cache_hits.values()))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(Path(kernels.__file__).parents[2])}
    for _ in range(2):  # the first run may compile (if nothing is cached yet), the second must not
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert run.stdout.split() == ["0", "1", "0", "1"]
