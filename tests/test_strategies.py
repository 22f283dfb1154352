"""Codebreakers against the published figures (Knuth 1977, Kooi 2005) and their conventions."""

from __future__ import annotations

import pytest

from keypeg import Rules
from keypeg.analysis.export import tree_to_lookup, verify_tree
from keypeg.analysis.tree import build_tree
from keypeg.errors import KeypegError
from keypeg.knowledge import Knowledge
from keypeg.strategies import STRATEGIES, UnknownStrategyError, find_strategy, make_strategy

CLASSIC = Rules(4, 6)

# Kooi (2005), Table 7: total guesses over all 1296 secrets and the expected number,
# with ties broken toward a fitting code and then the lowest in order.
TABLE_7 = {
    "simple": ("AAAA", 7471, 5.765),
    "worst-case": ("AABB", 5801, 4.476),
    "expected-size": ("AABC", 5696, 4.395),
    "entropy": ("ABCD", 5722, 4.415),
    "most-parts": ("AABC", 5668, 4.373),
}


@pytest.mark.parametrize("name", TABLE_7)
def test_kooi_table_7(name: str) -> None:
    first, total, expected = TABLE_7[name]
    tree = build_tree(make_strategy(name), CLASSIC)
    assert str(tree.root.guess) == first  # the strategy's own first choice is the paper's
    assert tree.stats.total == total
    assert round(tree.stats.average, 3) == expected
    assert tree.stats.secrets == 1296


def test_knuth_five_guesses() -> None:
    """Knuth (1977): from 1122, never more than five guesses; 5801 in all (Kooi's count)."""
    tree = build_tree(make_strategy("knuth", first=CLASSIC.parse("1122")), CLASSIC)
    assert tree.stats.max == 5
    assert tree.stats.total == 5801
    assert tree.stats.distribution == {1: 1, 2: 6, 3: 62, 4: 533, 5: 694}


def test_first_guess_loses_knuths_guarantee() -> None:
    """Knuth: first guesses other than two pairs (1111, 1112, 1123, 1234) don't win in five every time."""
    for first in ("1111", "1112", "1123", "1234"):
        tree = build_tree(make_strategy("worst-case", first=CLASSIC.parse(first)), CLASSIC)
        assert tree.stats.max > 5, first


def test_simple_from_aabb_is_better() -> None:
    """Kooi, Table 8: the simple strategy starting with AABB does considerably better than from AAAA."""
    from_aaaa = build_tree(make_strategy("simple"), CLASSIC).stats
    from_aabb = build_tree(make_strategy("simple", first=CLASSIC.parse("AABB")), CLASSIC).stats
    assert from_aabb.total < from_aaaa.total
    assert from_aabb.max < from_aaaa.max


def test_kooi_table_10_most_parts_round_four() -> None:
    """Kooi, Table 10 (ties to the last code, same first guesses): most parts solves 636 in round 4."""
    tree = build_tree(make_strategy("most-parts", first=CLASSIC.parse("AABC"), tie="last"), CLASSIC)
    assert tree.stats.distribution[4] == 636


def test_tie_break_changes_totals() -> None:
    first = build_tree(make_strategy("worst-case", first=CLASSIC.parse("AABB")), CLASSIC).stats
    last = build_tree(make_strategy("worst-case", first=CLASSIC.parse("AABB"), tie="last"), CLASSIC).stats
    assert first.total != last.total


@pytest.mark.parametrize("name", ["worst-case", "expected-size", "entropy", "most-parts"])
def test_mirror_symmetry_of_tie_rules(name: str) -> None:
    """Reversing the colour order maps 'first' ties onto 'last' ties: same totals on the mirrored tree."""
    first = build_tree(make_strategy(name), CLASSIC).stats
    last = build_tree(make_strategy(name, tie="last"), CLASSIC).stats
    assert first.distribution == last.distribution


def test_consistent_pool_only_plays_fitting_codes() -> None:
    rules = Rules(3, 4)
    tree = build_tree(make_strategy("worst-case", pool="consistent"), rules)
    assert verify_tree(tree).ok

    def walk(node, history: Knowledge) -> None:  # type: ignore[no-untyped-def]
        assert history.space.index(node.guess) in set(history.candidates.tolist())
        for feedback, child in node.children.items():
            walk(child, history.add(node.guess, feedback))

    walk(tree.root, Knowledge(rules))


@pytest.mark.parametrize(
    ("rules", "name"),
    [
        pytest.param(rules, name, marks=[pytest.mark.slow] if name == "genetic" and rules.size > 20 else [])
        for rules in (Rules(3, 4), Rules(4, 4, repeats=False), Rules(2, 3, blanks=True), Rules(3, 5))
        for name in sorted(STRATEGIES)
    ],
    ids=str,
)
def test_every_strategy_solves_every_secret(name: str, rules: Rules) -> None:
    tree = build_tree(make_strategy(name, seed=7), rules)
    result = verify_tree(tree)
    assert result.ok, result.problems
    assert result.stats == tree.stats


def test_random_strategy_is_seeded() -> None:
    rules = Rules(4, 5)
    one = tree_to_lookup(build_tree(make_strategy("random", seed=3), rules))
    two = tree_to_lookup(build_tree(make_strategy("random", seed=3), rules))
    other = tree_to_lookup(build_tree(make_strategy("random", seed=4), rules))
    assert one == two
    assert one != other


def test_two_step_opens_like_kooi_table_12() -> None:
    """Kooi, Table 12: AABC leaves the most parts after two guesses, so two-step most parts opens with it."""
    strategy = make_strategy("two-step")
    assert str(strategy.next_guess(Knowledge(CLASSIC))) == "AABC"


def test_registry_names_and_aliases() -> None:
    assert find_strategy("Knuth").name == "worst-case"
    assert find_strategy("irving").name == "expected-size"
    assert find_strategy("neuwirth").name == "entropy"
    assert find_strategy("kooi").name == "most-parts"
    with pytest.raises(UnknownStrategyError, match="'nonsense'"):
        find_strategy("nonsense")


def test_conventions_are_named() -> None:
    conventions = make_strategy("kooi", tie="last", pool="consistent").conventions()
    assert conventions["strategy"] == "most-parts"
    assert conventions["tie"] == "last"
    assert conventions["pool"] == "consistent"


def test_bad_conventions_are_refused() -> None:
    with pytest.raises(KeypegError, match="'sideways'"):
        make_strategy("knuth", tie="sideways")
    with pytest.raises(KeypegError, match="'some'"):
        make_strategy("knuth", pool="some")


def test_next_guess_speaks_codes() -> None:
    knowledge = Knowledge.from_text(CLASSIC, ["AABB=1,0"])
    strategy = make_strategy("knuth")
    guess = strategy.next_guess(knowledge)
    assert len(guess.colors) == 4
    assert str(guess) == str(CLASSIC.parse(str(guess)))


def test_the_registry_names_each_class_by_its_own_name() -> None:
    """The light registry (names, modules, aliases) and the classes agree."""
    from keypeg.strategies import NAMES, REGISTRY

    for name in NAMES:
        assert find_strategy(name).name == name
        for alias in REGISTRY[name][2]:
            assert find_strategy(alias.upper()).name == name
