"""The feedback variants (``standard | colours | black``) against an independent brute force.

Everything keypeg computes under a feedback is checked on every small game of each feedback
against plain Python written here, with :mod:`itertools` and no keypeg kernel: the scores of every
pair, the scores that can happen, the codes that fit random histories, whole trees of every
strategy, and the optimal search's total and worst case (both objectives, guesses from every code
or the fitting ones) against an exhaustive search.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Feedback, Rules
from keypeg.analysis.tree import build_tree
from keypeg.consistency import check
from keypeg.errors import InvalidFeedbackError, InvalidRulesError
from keypeg.feedback import score
from keypeg.kernels import CodeSpace, count_fitting, feedback_ordinal, ordinal_feedback
from keypeg.strategies import NAMES, make_strategy
from keypeg.strategies.optimal import OptimalSolver
from keypeg.strategy_tree import Node

FEEDBACKS = ("standard", "colours", "black")
Colors = tuple[int, ...]
History = list[tuple[Colors, tuple[int, int]]]

# -- the brute force ---------------------------------------------------------------------------


def plain_codes(pegs: int, colors: int, repeats: bool, feedback: str) -> list[Colors]:
    """Every code in increasing order: under colours, each set of colours once (sorted)."""
    if feedback == "colours":
        pick = itertools.combinations_with_replacement if repeats else itertools.combinations
        return list(pick(range(colors), pegs))
    if repeats:
        return list(itertools.product(range(colors), repeat=pegs))
    return list(itertools.permutations(range(colors), pegs))


def plain_score(secret: Colors, guess: Colors, feedback: str) -> tuple[int, int]:
    """Black and white as the game describes them, by counting."""
    black = sum(s == g for s, g in zip(secret, guess, strict=True))
    common = sum((Counter(secret) & Counter(guess)).values())
    if feedback == "black":
        return black, 0
    if feedback == "colours":
        return common, 0
    return black, common - black


def small_games() -> Iterator[Rules]:
    """Every game of 1-3 pegs and 2-4 colours, with and without repeats, under each feedback; and one with blanks."""
    for feedback in FEEDBACKS:
        for pegs, colors, repeats in itertools.product((1, 2, 3), (2, 3, 4), (True, False)):
            if repeats or pegs <= colors:
                yield Rules(pegs, colors, repeats=repeats, feedback=feedback)
        yield Rules(2, 2, blanks=True, feedback=feedback)


GAMES = list(small_games())


def game_id(rules: Rules) -> str:
    return rules.slug


def colors_of(rules: Rules) -> list[Colors]:
    return plain_codes(rules.pegs, rules.num_colors, rules.repeats, rules.feedback)


# -- the rules -----------------------------------------------------------------------------------


def test_rules_field_spelling_slug_and_round_trip() -> None:
    assert Rules(4, 6, feedback="colors").feedback == "colours"
    assert Rules(4, 6, feedback="Black").feedback == "black"
    with pytest.raises(InvalidRulesError, match="standard, colours, black"):
        Rules(4, 6, feedback="white")
    assert [Rules(4, 6, feedback=f).slug for f in FEEDBACKS] == ["4x6", "4x6-colours", "4x6-black"]
    assert Rules(4, 10, repeats=False, feedback="black").slug == "4x10-norepeats-black"
    assert repr(Rules(4, 6)) == "Rules(4, 6)" and repr(Rules(4, 6, feedback="black")).endswith("feedback='black')")
    assert "feedback" not in Rules(4, 6).as_dict()
    for feedback in FEEDBACKS:
        rules = Rules(4, 6, feedback=feedback)
        assert Rules.from_dict(rules.as_dict()) == rules
    assert len({Rules(4, 6, feedback=f).game for f in FEEDBACKS}) == 3
    assert Rules(4, 6, feedback="black").describe() == "4 pegs, 6 colours, repeats, black pegs only, 12 rows"
    assert "colours only" in Rules(4, 6, feedback="colours").describe()


def test_a_colours_code_is_its_colours() -> None:
    rules = Rules(4, 6, feedback="colours")
    assert str(rules.parse("DBCB")) == "BBCD" == str(rules.code([3, 1, 2, 1]))
    assert rules.parse("DBCB") == rules.parse("BBCD")
    assert rules.size == 126 and Rules(4, 6, repeats=False, feedback="colours").size == 15


def test_reading_and_saying_scores() -> None:
    black, colours, standard = (Rules(4, 6, feedback=f) for f in ("black", "colours", "standard"))
    for text in ("2", "2b", "2,0", " 2 B "):
        assert black.parse_feedback(text) == Feedback(2, 0)
    for text in ("3", "3c", "3,0"):
        assert colours.parse_feedback(text) == Feedback(3, 0)
    with pytest.raises(InvalidFeedbackError, match="no white"):
        black.parse_feedback("2,1")
    with pytest.raises(InvalidFeedbackError, match="'2' or '2c'"):
        colours.parse_feedback("2b")
    with pytest.raises(InvalidFeedbackError):
        standard.parse_feedback("2")
    with pytest.raises(InvalidFeedbackError, match="cannot happen"):
        Rules(4, 4, repeats=False, feedback="black").parse_feedback("3")  # permutations: 3 right means 4
    assert black.say(Feedback(2, 0)) == "2 black"
    assert colours.say(Feedback(3, 0)) == "3 colours right"
    assert standard.say(Feedback(2, 1)) == "2 black, 1 white"
    assert "'2b'" in black.feedback_hint and "'2c'" in colours.feedback_hint


# -- scores: every pair of every small game ------------------------------------------------------


@pytest.mark.parametrize("rules", GAMES, ids=game_id)
def test_every_score_and_the_scores_that_happen(rules: Rules) -> None:
    codes = colors_of(rules)
    space = CodeSpace.of(rules)
    assert rules.size == len(codes) == space.size
    assert [tuple(int(c) for c in row) for row in space.codes] == codes
    stride = rules.pegs + 1
    expected = np.array([[np.dot(plain_score(s, g, rules.feedback), (stride, 1)) for s in codes] for g in codes])
    table = np.array([space.feedbacks(g) for g in range(space.size)])
    np.testing.assert_array_equal(table, expected)
    happen = {ordinal_feedback(int(o), rules.pegs) for o in np.unique(expected)}
    assert set(rules.feedbacks()) == happen
    assert all(rules.is_possible(f) == (f in happen) for f in itertools.starmap(Feedback, np.ndindex(4, 4)))
    # the plain reference scorer of keypeg itself, on a few pairs
    for s, g in itertools.islice(itertools.product(codes, codes), 0, None, 7):
        assert score(rules.code(s), rules.code(g)) == Feedback(*plain_score(s, g, rules.feedback))


# -- consistency ---------------------------------------------------------------------------------


@st.composite
def histories(draw: st.DrawFn) -> tuple[Rules, History]:
    """A small game and a history of 1-3 scored guesses, scored against a secret or (sometimes) at random."""
    rules = draw(st.sampled_from(GAMES))
    codes = colors_of(rules)
    secret = draw(st.sampled_from(codes))
    history = []
    for _ in range(draw(st.integers(1, 3))):
        guess = draw(st.sampled_from(codes))
        if draw(st.integers(0, 3)) == 0:
            scored = draw(st.sampled_from(sorted({plain_score(s, guess, rules.feedback) for s in codes})))
        else:
            scored = plain_score(secret, guess, rules.feedback)
        history.append((guess, scored))
    return rules, history


@settings(max_examples=60, deadline=None)
@given(histories())
def test_consistent_codes_equal_the_brute_force(case: tuple[Rules, History]) -> None:
    rules, history = case
    fitting = [c for c in colors_of(rules) if all(plain_score(c, g, rules.feedback) == f for g, f in history)]
    space = CodeSpace.of(rules)
    scored = [(space.index(rules.code(g)), feedback_ordinal(Feedback(*f), rules.pegs)) for g, f in history]
    assert [space.codes[i].tolist() for i in space.consistent(scored)] == [list(c) for c in fitting]
    coded = [(rules.code(g), Feedback(*f)) for g, f in history]
    counted = count_fitting(rules, coded, limit=10**6, budget=10**8)
    assert (counted.codes, counted.complete) == (len(fitting), True)
    found = check(rules, coded, limit=1000)
    assert found.consistent == bool(fitting)
    if fitting:
        assert found.count == len(fitting) and [c.colors for c in found.codes] == fitting


@settings(max_examples=15, deadline=None)
@given(histories())
def test_cp_sat_equals_the_brute_force_on_small_games(case: tuple[Rules, History]) -> None:
    rules, history = case
    fitting = [c for c in colors_of(rules) if all(plain_score(c, g, rules.feedback) == f for g, f in history)]
    found = check(rules, [(rules.code(g), Feedback(*f)) for g, f in history], limit=1000, method="cp-sat")
    assert found.consistent == bool(fitting)
    if fitting:
        assert found.count == len(fitting) and sorted(c.colors for c in found.codes) == fitting
    else:  # the likeliest correction (one score, or the scores changed together) lets the example fit
        assert found.example is not None and found.suspects
        changed_together = found.suspects[:1] if found.changes == 1 else found.suspects
        changed = {s.number - 1: (s.correction.black, s.correction.white) for s in changed_together}
        corrected = [(g, changed.get(k, f)) for k, (g, f) in enumerate(history)]
        assert all(plain_score(found.example.colors, g, rules.feedback) == f for g, f in corrected)


@pytest.mark.parametrize("feedback", ["black", "colours"])
def test_cp_sat_on_a_game_too_large_to_enumerate(feedback: str) -> None:
    rules = Rules(10, 10, feedback=feedback)
    rng = random.Random(31)
    secret = rules.code([rng.randrange(10) for _ in range(10)])
    guesses = [rules.code([rng.randrange(10) for _ in range(10)]) for _ in range(4)]
    history = [(g, score(secret, g)) for g in guesses]
    found = check(rules, history, limit=5, method="cp-sat")
    assert found.consistent and found.example is not None
    assert all(score(found.example, g) == f for g, f in history)
    if feedback == "colours":
        assert all(list(c.colors) == sorted(c.colors) for c in found.codes)
    # two codes each said to break it: no code fits, and the one score to change is found
    broken = [*history, (secret, rules.win)]
    assert check(rules, broken, limit=5, method="cp-sat").codes == [secret]
    contradiction = check(rules, [*broken, (guesses[0], rules.win)], limit=5, method="cp-sat")
    assert not contradiction.consistent and contradiction.changes == 1
    assert [(s.number, s.correction, s.example) for s in contradiction.suspects] == [(6, history[0][1], secret)]


# -- whole trees of every strategy ---------------------------------------------------------------

TREE_GAMES = [
    Rules(3, 3, feedback="black"),
    Rules(3, 4, repeats=False, feedback="black"),
    Rules(3, 4, feedback="colours"),
    Rules(2, 3, blanks=True, feedback="colours"),
]


def reach(root: Node, secret: Colors, feedback: str, rows: int) -> int:
    """The guesses the tree plays for ``secret``, following the plain scores; fails if it never wins."""
    node, depth = root, 1
    while True:
        guess = node.guess.colors
        scored = plain_score(secret, guess, feedback)
        if guess == secret:
            assert scored == (len(secret), 0)
            return depth
        assert scored != (len(secret), 0), "a win scored for a code that is not the secret"
        node = node.children[Feedback(*scored)]
        depth += 1
        assert depth <= rows


@pytest.mark.parametrize(
    ("rules", "name"),
    [(r, n) for r in TREE_GAMES for n in NAMES if n != "genetic" or r.size <= 20],  # genetic: the cheaper games
    ids=lambda x: x.slug if isinstance(x, Rules) else x,
)
def test_every_strategy_reaches_every_secret(rules: Rules, name: str) -> None:
    tree = build_tree(make_strategy(name, seed=7) if name in ("random", "genetic") else make_strategy(name), rules)
    depths = Counter(reach(tree.root, secret, rules.feedback, rules.rows) for secret in colors_of(rules))
    assert dict(depths) == tree.stats.distribution


@pytest.mark.parametrize("rules", TREE_GAMES, ids=game_id)
def test_the_tree_kernel_plays_as_python(rules: Rules) -> None:
    for name in ("worst-case", "expected-size", "entropy", "most-parts"):
        compiled = build_tree(make_strategy(name), rules).stats
        assert build_tree(make_strategy(name), rules, compiled=False).stats == compiled


# -- the optimal search against an exhaustive one ------------------------------------------------


def exhaustive(rules: Rules, pool: str) -> tuple[int, int, int]:
    """The optimal total, the optimal worst case and the least total within that worst case, by trying
    every guess at every set of codes (guesses from every code, or the fitting ones); sets of codes are
    bit masks, ``by_score[g]`` the codes giving guess ``g`` each score but the win."""
    codes = colors_of(rules)
    win = (rules.pegs, 0)
    by_score: list[list[int]] = []
    for guess in codes:
        masks: dict[tuple[int, int], int] = {}
        for i, secret in enumerate(codes):
            scored = plain_score(secret, guess, rules.feedback)
            if scored != win:
                masks[scored] = masks.get(scored, 0) | 1 << i
        by_score.append(list(masks.values()))

    @cache
    def total(left: int, rounds: int) -> float:
        if not left:
            return 0
        if rounds == 0:
            return float("inf")
        n, best = left.bit_count(), float("inf")
        for g in range(len(codes)) if pool == "all" else (g for g in range(len(codes)) if left >> g & 1):
            split = [part for mask in by_score[g] if (part := left & mask)]
            if split != [left]:  # no progress otherwise
                best = min(best, n + sum(total(part, rounds - 1) for part in split))
        return best

    every = (1 << len(codes)) - 1
    worst = next(r for r in range(1, len(codes) + 1) if total(every, r) < float("inf"))
    return int(total(every, len(codes))), worst, int(total(every, worst))


OPTIMAL_GAMES = [
    Rules(f_pegs, f_colors, repeats=repeats, feedback=feedback)
    for feedback in FEEDBACKS
    for f_pegs, f_colors, repeats in ((2, 3, True), (2, 4, True), (3, 2, True), (2, 4, False), (3, 3, False))
] + [
    Rules(3, 3, feedback="colours"),
    Rules(3, 4, feedback="colours"),
    Rules(2, 5, feedback="colours"),
    Rules(4, 3, feedback="colours"),
]


@pytest.mark.parametrize("rules", OPTIMAL_GAMES, ids=game_id)
@pytest.mark.parametrize("pool", ["all", "consistent"])
def test_optimal_search_equals_exhaustive_search(rules: Rules, pool: str) -> None:
    assert rules.size <= 20
    best_total, worst, total_within = exhaustive(rules, pool)
    solver = OptimalSolver(rules, pool)  # type: ignore[arg-type]
    assert solver.solve() == best_total
    assert solver.fewest_rounds() == (worst, total_within)


# -- published figures ---------------------------------------------------------------------------


@pytest.mark.parametrize("pegs", [2, 3])
def test_black_pegs_on_permutations_are_standard_scores(pegs: int) -> None:
    """With as many colours as pegs and no repeats every code uses every colour, so white is always
    ``pegs - black``: black-peg Mastermind is then the standard game (noted of the AB game with p = c,
    doi:10.1007/978-3-319-71147-8_28). The optimal totals and worst cases agree."""
    black = OptimalSolver(Rules(pegs, pegs, repeats=False, feedback="black"), "all")
    standard = OptimalSolver(Rules(pegs, pegs, repeats=False), "all")
    assert (black.solve(), black.fewest_rounds()) == (standard.solve(), standard.fewest_rounds())


# -- symmetry ------------------------------------------------------------------------------------


@st.composite
def positions(draw: st.DrawFn) -> tuple[Rules, History, bool]:
    """A game of each feedback with symmetry to use, 1-2 guesses scored against a secret, and which end ties go to."""
    feedback = draw(st.sampled_from(FEEDBACKS))
    pegs, colors = draw(st.sampled_from([(3, 4), (3, 5), (4, 3)]))
    rules = Rules(pegs, colors, feedback=feedback)
    codes = colors_of(rules)
    secret = draw(st.sampled_from(codes))
    guesses = draw(st.lists(st.sampled_from(codes), min_size=1, max_size=2))
    return rules, [(g, plain_score(secret, g, feedback)) for g in guesses], draw(st.booleans())


@settings(max_examples=30, deadline=None)
@given(positions())
def test_one_guess_per_symmetry_class_loses_no_kind_of_guess(case: tuple[Rules, History, bool]) -> None:
    """Every guess splits the fitting codes as some kept representative does (the same part sizes, and
    fitting or not): a class merged wrongly (a peg permutation of sorted colours codes) loses one."""
    from keypeg.symmetry import representatives

    rules, history, largest = case
    fitting = [c for c in colors_of(rules) if all(plain_score(c, g, rules.feedback) == f for g, f in history)]

    def kind(guess: Colors) -> tuple[tuple[int, ...], bool]:
        sizes = Counter(plain_score(s, guess, rules.feedback) for s in fitting)
        return tuple(sorted(sizes.values())), guess in fitting

    space = CodeSpace.of(rules)
    scored = [(space.index(rules.code(g)), feedback_ordinal(Feedback(*f), rules.pegs)) for g, f in history]
    candidates = space.consistent(scored)
    kept = representatives(space, space.all, scored, candidates, largest=largest)
    assert {kind(tuple(int(c) for c in space.codes[i])) for i in kept} == {kind(c) for c in colors_of(rules)}


@pytest.mark.parametrize("rules", [Rules(4, 8, feedback="colours"), Rules(3, 6, feedback="black")], ids=game_id)
@pytest.mark.parametrize(("name", "tie"), [("worst-case", "first"), ("most-parts", "last")])
def test_trees_with_symmetry_equal_trees_without(rules: Rules, name: str, tie: str) -> None:
    """The tree kernel's symmetry classes (none for sorted colours codes) and the Python path's give the tree
    grown with no symmetry at all: a class's representative is the guess the ties pick anyway."""
    with_symmetry = build_tree(make_strategy(name, tie=tie), rules).stats
    assert build_tree(make_strategy(name, tie=tie, symmetry=False), rules, compiled=False).stats == with_symmetry


@pytest.mark.parametrize(("colors", "worst"), [(5, 5), (6, 5), (7, 6)])
def test_three_pegs_worst_case_is_jager_and_peczarski(colors: int, worst: int) -> None:
    """Jäger and Peczarski (2009), Theorem 1: with 3 pegs and c >= 5 colours (standard feedback) the
    fewest guesses that always suffice, the winning guess counted, are floor((c - 1) / 3) + 4."""
    assert worst == (colors - 1) // 3 + 4
    assert OptimalSolver(Rules(3, colors), "all").fewest_rounds()[0] == worst


def test_a_random_colours_secret_is_a_uniform_set_of_colours() -> None:
    """Each set of colours is one secret, drawn as often as any other (drawing pegs one by one would make
    AAA six times rarer than ABC)."""
    from keypeg.game import random_code

    rng = random.Random(31)
    for rules in (Rules(3, 4, feedback="colours"), Rules(3, 5, repeats=False, feedback="colours")):
        drawn = Counter(random_code(rules, rng).colors for _ in range(200 * rules.size))
        assert sorted(drawn) == colors_of(rules)
        assert max(drawn.values()) < 1.5 * min(drawn.values())
