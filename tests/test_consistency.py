"""Consistency: the constraint solver agrees with enumeration; mistakes are found at any size."""

from __future__ import annotations

import json
import random

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Feedback, Rules, score
from keypeg.cli import cli
from keypeg.consistency import check
from keypeg.game import random_code

SMALL = [Rules(3, 4), Rules(4, 4, repeats=False), Rules(3, 3, blanks=True), Rules(4, 5), Rules(2, 6)]


def fits(rules: Rules, history: list) -> int:  # type: ignore[type-arg]
    """Reference count, plain Python over every code."""
    from reference import rules_codes

    return sum(all(score(rules.code(c), g) == f for g, f in history) for c in rules_codes(rules))


@st.composite
def histories(draw: st.DrawFn) -> tuple[Rules, list[tuple]]:  # type: ignore[type-arg]
    rules = draw(st.sampled_from(SMALL))
    rng = random.Random(draw(st.integers(0, 10**6)))
    secret = random_code(rules, rng)
    history = []
    for _ in range(draw(st.integers(1, 4))):
        guess = random_code(rules, rng)
        history.append((guess, score(secret, guess)))
    if draw(st.booleans()):  # break one score
        k = draw(st.integers(0, len(history) - 1))
        options = [f for f in rules.feedbacks() if f != history[k][1]]
        history[k] = (history[k][0], draw(st.sampled_from(options)))
    return rules, history


@settings(max_examples=60)
@given(histories())
def test_solver_agrees_with_enumeration(case: tuple[Rules, list]) -> None:  # type: ignore[type-arg]
    rules, history = case
    by_kernels = check(rules, history, method="enumeration", limit=10_000)
    by_solver = check(rules, history, method="cp-sat", limit=10_000)
    expected = fits(rules, history)
    assert by_kernels.count == by_solver.count == expected
    assert by_kernels.consistent == by_solver.consistent == (expected > 0)
    assert not by_solver.count_is_lower_bound
    if expected:
        assert all(score(by_solver.example, g) == f for g, f in history)
        assert {c.colors for c in by_solver.codes} <= {c.colors for c in by_kernels.codes} | {None}
        return
    assert by_kernels.changes == by_solver.changes >= 1
    if by_kernels.changes == 1:
        assert [s.number for s in by_kernels.suspects] == [s.number for s in by_solver.suspects]
    for result in (by_kernels, by_solver):
        for suspect in result.suspects:
            corrected = list(history)
            corrected[suspect.number - 1] = (suspect.guess, suspect.correction)
            changed = [s.number - 1 for s in result.suspects] if result.changes > 1 else [suspect.number - 1]
            for k in changed:
                corrected[k] = (history[k][0], score(suspect.example, history[k][0]))
            assert all(score(suspect.example, g) == f for g, f in corrected)


def test_solver_counts_up_to_a_limit() -> None:
    rules = Rules(8, 12)
    rng = random.Random(3)
    secret = random_code(rules, rng)
    history = [(g, score(secret, g)) for g in (random_code(rules, rng) for _ in range(2))]
    result = check(rules, history, limit=50)
    assert result.method == "cp-sat"
    assert result.consistent and result.count == 50 and result.count_is_lower_bound
    assert all(score(c, g) == f for c in result.codes for g, f in history)


def test_large_inconsistent_history_names_the_wrong_score() -> None:
    rules = Rules(8, 12)
    rng = random.Random(5)
    secret = random_code(rules, rng)
    history = [(g, score(secret, g)) for g in (random_code(rules, rng) for _ in range(14))]
    assert check(rules, history).count == 1  # enough guesses to pin the secret down
    true = history[2][1]
    wrong = Feedback(min(true.black + 3, 8), 0) if true.black + 3 <= 8 else Feedback(0, 0)
    history[2] = (history[2][0], wrong)
    result = check(rules, history)
    assert not result.consistent and result.changes == 1
    assert 3 in [s.number for s in result.suspects]
    for suspect in result.suspects:
        corrected = list(history)
        corrected[suspect.number - 1] = (suspect.guess, suspect.correction)
        assert all(score(suspect.example, g) == f for g, f in corrected)


def test_two_wrong_scores() -> None:
    rules = Rules(4, 6)
    history = [rules.parse_scored(t) for t in ("AAAA=4,0", "BBBB=4,0", "CCCC=4,0")]
    for method in ("enumeration", "cp-sat"):
        result = check(rules, history, method=method)
        assert result.changes == 2
        assert len(result.suspects) == 2


def test_cli_check_json() -> None:
    result = CliRunner().invoke(cli, ["check", "AABB=1,0", "CCDD=0,0", "EEFF=0,0", "-p", "4", "-c", "6", "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert set(data) >= {"consistent", "count", "count_is_lower_bound", "example", "suspects", "correction"}
    assert data["consistent"] is False and sorted(data["suspects"]) == [1, 2, 3]
    assert data["suspects"][0] == 3  # likeliest first: leaving it out lets the most codes fit (32, tied with 2)
    result = CliRunner().invoke(cli, ["check", "AABB=1,0", "-p", "4", "-c", "6", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["count"] == 256
    big = CliRunner().invoke(cli, ["check", "AABBCCDDEE=2,1", "-p", "10", "-c", "20", "--limit", "5"])
    assert big.exit_code == 0 and "at least 5" in big.stdout


@settings(max_examples=40)
@given(histories())
def test_plain_and_kernel_enumeration_agree(case: tuple[Rules, list]) -> None:  # type: ignore[type-arg]
    """Small games are checked by the plain scorer (no kernel to load); the kernels give the same answer."""
    import keypeg.consistency as consistency

    rules, history = case
    plain = check(rules, history, method="enumeration", limit=50)
    saved = consistency.PLAIN_SCORING_PAIRS
    consistency.PLAIN_SCORING_PAIRS = 0
    try:
        fast = check(rules, history, method="enumeration", limit=50)
    finally:
        consistency.PLAIN_SCORING_PAIRS = saved
    assert plain == fast and plain.count == fits(rules, history)


def test_a_history_needing_many_changes_is_answered_without_trying_every_set() -> None:
    import math
    import random

    from keypeg.limits import SUSPECT_SEARCH_LIMIT

    rules = Rules(4, 6)
    rng = random.Random(1)
    history = [
        (rules.parse("".join(rng.choice("ABCDEF") for _ in range(4))), Feedback(black, 0))
        for black in [4, 3, 2, 1, 0] * 6
    ]
    result = check(rules, history)
    assert not result.consistent and result.suspects == []
    assert sum(math.comb(len(history), k) for k in range(1, result.changes + 1)) > SUSPECT_SEARCH_LIMIT
    assert "too many ways" in result.message()
