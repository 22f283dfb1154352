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


def key_pegs_off(given: Feedback, other: Feedback) -> int:
    """Reference: the fewest key pegs to add, take away or recolour, by trying every way (breadth first)."""
    seen, frontier, steps = {(given.black, given.white)}, [(given.black, given.white)], 0
    while (other.black, other.white) not in seen:
        steps += 1
        moves = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]
        frontier = [(b + db, w + dw) for b, w in frontier for db, dw in moves if b + db >= 0 and w + dw >= 0]
        frontier = [f for f in frontier if f not in seen]
        seen.update(frontier)
    return steps


def likely_mistakes(rules: Rules, history: list) -> list[tuple[int, Feedback, int]]:  # type: ignore[type-arg]
    """Reference ranking of the single scores that can be wrong, by brute force over every code: for each,
    the corrections that let some code fit, the fewest pegs off first, then the most codes; the suspects
    a winning score last, the fewest pegs off, the most codes, the latest guess."""
    from reference import rules_codes

    codes = [rules.code(c) for c in rules_codes(rules)]
    found = []
    for k, (guess, scored) in enumerate(history):
        counts: dict[Feedback, int] = {}
        for code in codes:
            if all(score(code, g) == f for j, (g, f) in enumerate(history) if j != k):
                counts[score(code, guess)] = counts.get(score(code, guess), 0) + 1
        if counts:
            best = min(counts, key=lambda f: (key_pegs_off(scored, f), -counts[f], -f.black, f.white))
            found.append((k + 1, best, counts[best]))
    win = rules.win

    def rank(s: tuple[int, Feedback, int]) -> tuple[bool, int, int, int]:
        scored = history[s[0] - 1][1]
        return (scored == win, key_pegs_off(scored, s[1]), -s[2], -s[0])

    return sorted(found, key=rank)


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
        reference = likely_mistakes(rules, history)
        for result in (by_kernels, by_solver):
            assert [(s.number, s.correction, s.restores) for s in result.suspects] == reference
            assert not result.counts_are_estimates
    for result in (by_kernels, by_solver):
        for suspect in result.suspects:
            corrected = list(history)
            corrected[suspect.number - 1] = (suspect.guess, suspect.correction)
            changed = [s.number - 1 for s in result.suspects] if result.changes > 1 else [suspect.number - 1]
            for k in changed:
                corrected[k] = (history[k][0], score(suspect.example, history[k][0]))
            assert all(score(suspect.example, g) == f for g, f in corrected)


@settings(max_examples=200)
@given(st.integers(0, 8), st.integers(0, 8), st.integers(0, 8), st.integers(0, 8))
def test_pegs_off_is_the_fewest_key_pegs_to_add_remove_or_recolour(b1: int, w1: int, b2: int, w2: int) -> None:
    from keypeg.consistency import pegs_off

    assert pegs_off(Feedback(b1, w1), Feedback(b2, w2)) == key_pegs_off(Feedback(b1, w1), Feedback(b2, w2))


def test_the_issue_case_ranks_by_exact_counts_on_both_paths() -> None:
    """4 pegs of 5 colours, CBDA=0,3 CABD=1,1 and a wrong third score: the CP-SAT path once ranked two
    suspects by counts capped at 50 (120 and 92 codes fit without each) and so the wrong way round."""
    rules = Rules(4, 5)
    history = [rules.parse_scored(t) for t in ("CBDA=0,3", "CABD=1,1", "EEEE=1,0", "AAAA=0,0")]
    reference = likely_mistakes(rules, history)
    assert reference, "one score alone must be wrong here"
    for method in ("enumeration", "cp-sat"):
        result = check(rules, history, method=method)
        assert [(s.number, s.correction, s.restores) for s in result.suspects] == reference


def test_a_winning_score_is_suspected_last() -> None:
    """4,0 ends a game: a codemaker does not give it by mistake, so another score that explains the
    history comes first even when the 4,0 is fewer pegs off."""
    rules = Rules(4, 6)
    history = [rules.parse_scored(t) for t in ("AABB=4,0", "BBAA=1,2")]
    for method in ("enumeration", "cp-sat"):
        result = check(rules, history, method=method)
        assert [s.number for s in result.suspects] == [2, 1]
        assert result.suspects[0].correction == Feedback(0, 4)  # what AABB gives BBAA
        assert result.suspects[1].pegs_off < result.suspects[0].pegs_off  # nearer, and more codes, yet last
        assert result.suspects[1].restores > result.suspects[0].restores


def test_the_smallest_correction_comes_first() -> None:
    """A score one peg off is named before one three pegs off, whatever the counts."""
    rules = Rules(4, 6)
    history = [rules.parse_scored(t) for t in ("AABB=1,0", "CCDD=0,0", "EEFF=0,0")]
    for method in ("enumeration", "cp-sat"):
        result = check(rules, history, method=method)
        offs = [s.pegs_off for s in result.suspects]
        assert offs == sorted(offs) and offs[0] == 1 and result.suspects[0].number == 1


def test_many_suspects_fit_one_line_of_the_message() -> None:
    from keypeg.limits import SUSPECT_MESSAGE_LIMIT

    rules = Rules(4, 6)
    history = [rules.parse_scored(f"{c * 4}=0,0") for c in "ABCDEF"]  # any one of them could be 4,0
    result = check(rules, history)
    assert result.changes == 1 and len(result.suspects) > SUSPECT_MESSAGE_LIMIT
    message = result.message()
    assert message.count("guess ") == SUSPECT_MESSAGE_LIMIT
    assert f"{len(result.suspects) - SUSPECT_MESSAGE_LIMIT} other score" in message
    assert len(message) < 400


def test_suspects_are_counted_far_enough_to_order_them() -> None:
    """7 pegs of 10 colours: AAAAAAA scored 1,0 then 0,0. Corrected to 0,0, the first leaves the 9^7
    codes without A; corrected to 1,0, the second leaves the 7 * 9^6 with one A: both more than the
    first count, so they are counted again, further, until the order is known (it once fell back on
    the later guess)."""
    rules = Rules(7, 10)
    history = [rules.parse_scored(t) for t in ("AAAAAAA=1,0", "AAAAAAA=0,0")]
    result = check(rules, history)
    assert [(s.number, s.correction, s.restores) for s in result.suspects] == [
        (1, Feedback(0, 0), 9**7),
        (2, Feedback(1, 0), 7 * 9**6),
    ]
    assert not result.counts_are_estimates


def test_counts_the_solver_could_not_finish_are_said_to_be_estimates() -> None:
    """On a game too large to enumerate, a count the search could not finish within its nodes is a lower
    bound, and the answer says so; it still comes first only when it is already more than the other."""
    rules = Rules(8, 12)
    history = [rules.parse_scored(t) for t in ("AABBCCDD=2,1", "AABBCCDD=3,1")]
    result = check(rules, history)
    assert result.method == "cp-sat" and result.changes == 1 and len(result.suspects) == 2
    assert all(s.pegs_off == 1 for s in result.suspects) and result.suspects[0].restores_is_lower_bound
    assert result.suspects[0].restores > result.suspects[1].restores
    assert result.counts_are_estimates and "estimates" in result.message() and "at least" in result.message()
    assert json.loads(json.dumps(result.as_dict()))["counts_are_estimates"] is True


@settings(max_examples=80)
@given(histories(), st.integers(1, 400), st.integers(1, 3000))
def test_the_kernels_count_fitting_codes_without_listing_them(
    case: tuple[Rules, list], limit: int, budget: int
) -> None:  # type: ignore[type-arg]
    """The search over the pegs counts what the plain scorer counts over every code; stopped by its limit
    or its node budget it says so, and its count is then a lower bound."""
    from keypeg.kernels import count_fitting

    rules, history = case
    expected = fits(rules, history)
    whole = count_fitting(rules, history, limit=10**9, budget=10**12)
    assert whole.complete and whole.codes == expected
    cut = count_fitting(rules, history, limit=limit, budget=budget)
    assert cut.codes <= expected and cut.codes <= limit
    assert cut.complete == (cut.codes == expected and cut.codes < limit and cut.nodes <= budget)


def test_suspects_of_a_game_too_large_to_enumerate_are_ranked_by_exact_counts() -> None:
    """7 pegs of 10 colours (CP-SAT): ABCDEFG scored 0,0 then 1,0. Corrected to 0,0, the second leaves
    the 3^7 codes of the three other colours; corrected to 1,0, the first leaves more: it comes first,
    though it is the earlier guess (counts capped at 200 once ranked them the other way)."""
    rules = Rules(7, 10)
    history = [rules.parse_scored(t) for t in ("ABCDEFG=0,0", "ABCDEFG=1,0")]
    result = check(rules, history)
    assert result.method == "cp-sat" and [s.number for s in result.suspects] == [1, 2]
    second = result.suspects[1]
    assert second.correction == Feedback(0, 0) and second.restores == 3**7 and not second.restores_is_lower_bound
    assert result.suspects[0].restores > 3**7  # counted far enough to know it is more, if not how many


def test_the_solver_path_ranks_by_counts_larger_than_the_solver_lists() -> None:
    """Forced onto the solver, a game small enough to enumerate ranks its suspects by the same exact
    counts as enumeration, though they are more codes than the solver lists."""
    rules = Rules(5, 7)
    history = [rules.parse_scored(t) for t in ("AABCD=1,1", "AABCD=2,1")]
    by_solver = check(rules, history, method="cp-sat")
    by_kernels = check(rules, history, method="enumeration")
    assert [(s.number, s.correction, s.restores) for s in by_solver.suspects] == [
        (s.number, s.correction, s.restores) for s in by_kernels.suspects
    ]
    from keypeg.limits import DEFAULT_COUNT_LIMIT

    assert min(s.restores for s in by_solver.suspects) > DEFAULT_COUNT_LIMIT
    assert not by_solver.counts_are_estimates


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
    assert data["suspects"][0] == 1  # likeliest first: the only score one key peg off (1,0 for 2,0)
    assert data["likely"][0]["pegs_off"] == 1 and data["counts_are_estimates"] is False
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
