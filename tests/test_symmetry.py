"""Symmetry classes: guesses in one class split the fitting codes alike, and using them never changes a result."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Rules
from keypeg.analysis.export import tree_to_lookup
from keypeg.analysis.tree import build_tree
from keypeg.feedback import score_colors
from keypeg.kernels import CodeSpace, feedback_ordinal
from keypeg.knowledge import Knowledge
from keypeg.strategies import make_strategy
from keypeg.symmetry import _keys, representatives

RULE_SETS = [Rules(4, 6), Rules(3, 4), Rules(4, 5, repeats=False), Rules(3, 3, blanks=True), Rules(5, 3)]


def profile(colors: tuple[int, ...], fitting: list[tuple[int, ...]]) -> list[int]:
    """Sorted part sizes of the split of ``fitting`` by a guess (plain Python)."""
    parts: dict[tuple[int, int], int] = {}
    for secret in fitting:
        key = score_colors(secret, colors)
        parts[key] = parts.get(key, 0) + 1
    return sorted(parts.values())


@settings(max_examples=12)
@given(data=st.data())
def test_a_class_splits_alike(data: st.DataObject) -> None:
    rules = data.draw(st.sampled_from(RULE_SETS))
    space = CodeSpace.of(rules)
    history = []
    secret = data.draw(st.integers(0, space.size - 1))
    for _ in range(data.draw(st.integers(0, 2))):
        guess = data.draw(st.integers(0, space.size - 1))
        history.append((guess, int(space.feedbacks(guess, np.array([secret]))[0])))
    candidates = space.consistent(history)
    fitting = [tuple(int(c) for c in space.codes[i]) for i in candidates]
    keys = _keys(space, space.all, history, candidates, False)
    by_class: dict[int, list[int]] = {}
    for index, key in enumerate(keys.tolist()):
        by_class.setdefault(key, []).append(index)
    for members in list(by_class.values())[:25]:
        profiles = {tuple(profile(tuple(int(c) for c in space.codes[m]), fitting)) for m in members}
        assert len(profiles) == 1
        fits = {m in set(candidates.tolist()) for m in members}
        assert len(fits) == 1  # a class is all fitting or all not
        assert min(members) == np.searchsorted(space.keys, keys[members[0]])  # the key is the smallest member


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
