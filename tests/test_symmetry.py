"""Symmetry classes: guesses in one class split the fitting codes alike, and using them never changes a result."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Rules, limits
from keypeg.analysis.export import tree_to_lookup
from keypeg.analysis.tree import build_tree
from keypeg.feedback import score_colors
from keypeg.kernels import CodeSpace, feedback_ordinal
from keypeg.knowledge import Knowledge
from keypeg.strategies import make_strategy
from keypeg.symmetry import peg_permutations, representatives
from reference import reference_extreme, reference_symmetries

RULE_SETS = [Rules(4, 6), Rules(3, 4), Rules(4, 5, repeats=False), Rules(3, 3, blanks=True), Rules(5, 3)]


def profile(colors: tuple[int, ...], fitting: list[tuple[int, ...]]) -> list[int]:
    """Sorted part sizes of the split of ``fitting`` by a guess (plain Python)."""
    parts: dict[tuple[int, int], int] = {}
    for secret in fitting:
        key = score_colors(secret, colors)
        parts[key] = parts.get(key, 0) + 1
    return sorted(parts.values())


@st.composite
def position(draw: st.DrawFn) -> tuple[CodeSpace, list[tuple[int, int]], np.ndarray]:
    """A rule set, one to three guesses scored against a secret, and the codes that fit them."""
    rules = draw(st.sampled_from(RULE_SETS))
    space = CodeSpace.of(rules)
    secret = draw(st.integers(0, space.size - 1))
    history = []
    for guess in draw(st.lists(st.integers(0, space.size - 1), min_size=1, max_size=3)):
        history.append((guess, int(space.feedbacks(guess, np.array([secret]))[0])))
    return space, history, space.consistent(history)


def _colours(space: CodeSpace, i: int) -> tuple[int, ...]:
    return tuple(int(c) for c in space.codes[i])


def _symmetries(space: CodeSpace, history: list[tuple[int, int]], candidates: np.ndarray) -> list:
    perms = [tuple(int(p) for p in row) for row in peg_permutations(space.pegs)]
    guesses = [_colours(space, g) for g, _ in history]
    fitting = [_colours(space, int(i)) for i in candidates]
    return reference_symmetries(perms, guesses, fitting, space.rules.num_colors)


@settings(max_examples=15)
@given(position(), st.data())
def test_a_class_splits_alike(case: tuple[CodeSpace, list[tuple[int, int]], np.ndarray], data: st.DataObject) -> None:
    """Every image of a code under the symmetries (built by brute force) splits the fitting codes as it
    does, and fits or not as it does: what lets a class stand for all its codes."""
    space, history, candidates = case
    symmetries = _symmetries(space, history, candidates)
    fitting = [_colours(space, int(i)) for i in candidates]
    for code in data.draw(st.lists(st.integers(0, space.size - 1), min_size=1, max_size=5)):
        colours = _colours(space, code)
        for sigma, pi in symmetries[:: max(1, len(symmetries) // 40)]:
            image = tuple(pi[colours[sigma[i]]] for i in range(len(colours)))
            assert profile(image, fitting) == profile(colours, fitting)
            assert (image in fitting) == (colours in fitting)


@settings(max_examples=25)
@given(position(), st.booleans(), st.data())
def test_extreme_mask_is_the_brute_force_one(
    case: tuple[CodeSpace, list[tuple[int, int]], np.ndarray], largest: bool, data: st.DataObject
) -> None:
    """A code is extreme iff no symmetry (brute force over every colour permutation) maps it to a smaller
    (``largest``: larger) code; the pool is any codes, in any order."""
    space, history, candidates = case
    pool = np.array(data.draw(st.lists(st.integers(0, space.size - 1), max_size=40)), dtype=np.intp)
    symmetries = _symmetries(space, history, candidates)
    mask = space.extreme_mask(pool, [g for g, _ in history], candidates, peg_permutations(space.pegs), largest=largest)
    assert mask.tolist() == [reference_extreme(_colours(space, int(i)), symmetries, largest) for i in pool.tolist()]


def test_extreme_mask_serial_and_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every code of 5x6 after one guess, on one thread and in blocks over all threads."""
    rules = Rules(5, 6)
    space = CodeSpace.of(rules)
    guess = space.index(rules.parse("AABCD"))
    history = [(guess, int(space.feedbacks(guess, np.array([space.index(rules.parse("EFABA"))]))[0]))]
    candidates = space.consistent(history)
    masks = []
    for threshold in (1 << 62, 0):
        monkeypatch.setattr(limits, "PARALLEL_MIN_PAIRS", threshold)
        masks.append(space.extreme_mask(space.all, [guess], candidates, peg_permutations(5)))
    np.testing.assert_array_equal(masks[0], masks[1])
    symmetries = _symmetries(space, history, candidates)
    rng = np.random.default_rng(56)
    for i in [*rng.integers(0, space.size, 60).tolist(), *np.flatnonzero(masks[1])[:20].tolist()]:
        assert masks[1][i] == reference_extreme(_colours(space, i), symmetries, False)
    assert 0 < masks[1].sum() < space.size / 4


def test_first_guess_classes_are_integer_partitions() -> None:
    for pegs, expected in ((4, ["AAAA", "AAAB", "AABB", "AABC", "ABCD"]), (3, ["AAA", "AAB", "ABC"])):
        rules = Rules(pegs, 6)
        space = CodeSpace.of(rules)
        reps = representatives(space, space.all, (), space.all)
        assert [str(space.code(int(i))) for i in reps] == expected


def test_classes_after_aabb() -> None:
    """After AABB the colours C..F are interchangeable, and so are A<->B with the two pairs swapped."""
    rules = Rules(4, 6)
    knowledge = Knowledge.from_text(rules, ["AABB=1,0"])
    space = knowledge.space
    reps = representatives(space, space.all, knowledge.indexed, knowledge.candidates)
    assert 0 < reps.size < space.size / 8
    assert space.index(rules.parse("ABCD")) in reps
    assert space.index(rules.parse("ABCE")) not in reps  # E is a free colour like D


@pytest.mark.parametrize("name", ["worst-case", "expected-size", "entropy", "most-parts", "two-step"])
@pytest.mark.parametrize("tie", ["first", "last"])
@pytest.mark.parametrize("rules", [Rules(3, 5), Rules(4, 4, repeats=False), Rules(3, 3, blanks=True)], ids=str)
def test_symmetry_never_changes_a_tree(name: str, tie: str, rules: Rules) -> None:
    with_symmetry = build_tree(make_strategy(name, tie=tie), rules)
    without = build_tree(make_strategy(name, tie=tie, symmetry=False), rules)
    assert tree_to_lookup(with_symmetry) == tree_to_lookup(without)


def test_symmetry_on_classic_trees() -> None:
    rules = Rules(4, 6)
    for name in ("worst-case", "most-parts"):
        with_symmetry = build_tree(make_strategy(name), rules)
        without = build_tree(make_strategy(name, symmetry=False), rules)
        assert tree_to_lookup(with_symmetry) == tree_to_lookup(without)


def test_feedback_ordinal_matches_reference() -> None:
    rules = Rules(4, 6)
    space = CodeSpace.of(rules)
    secret, guess = rules.parse("AABB"), rules.parse("BBAB")
    black, white = score_colors(secret.colors, guess.colors)
    ordinal = int(space.feedbacks(space.index(guess), np.array([space.index(secret)]))[0])
    assert ordinal == feedback_ordinal(rules.parse_feedback(f"{black},{white}"), 4)
