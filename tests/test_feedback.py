"""Scores: the reference scorer, reading scores, and which scores a rule set allows."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keypeg import Feedback, Rules, find_variant, score
from keypeg.errors import InvalidCodeError, InvalidFeedbackError, InvalidRulesError
from reference import colors_st, legal_codes, reference_table, rules_st

# -- seed examples -------------------------------------------------------------------------------


def test_classic_rrbb_against_rrrb() -> None:
    rules = find_variant("classic").rules
    assert score(rules.parse("RRBB"), rules.parse("RRRB")) == Feedback(3, 0)


def test_kooi_aabb_against_bbab() -> None:
    rules = Rules(4, 6)
    assert score(rules.parse("AABB"), rules.parse("BBAB")) == Feedback(1, 2)


def test_scoring_codes_of_different_games_is_refused() -> None:
    with pytest.raises(InvalidCodeError):
        score(Rules(4, 6).parse("AABB"), Rules(5, 6).parse("AABBC"))
    with pytest.raises(InvalidCodeError):
        score(Rules(4, 6).parse("AABB"), Rules(4, 8).parse("AABB"))


# -- reading scores ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["2,1", "2 1", "2b1w", "(2, 1)", "2B1W", " 2 , 1 ", "2/1", "2b 1w", "2b,1w", "(2,1)", "  2  1"]
)
def test_feedback_parse_forms(text: str) -> None:
    assert Feedback.parse(text) == Feedback(2, 1)


@pytest.mark.parametrize(("text", "black", "white"), [("0,0", 0, 0), ("4,0", 4, 0), ("0b4w", 0, 4), ("12 3", 12, 3)])
def test_feedback_parse_values(text: str, black: int, white: int) -> None:
    feedback = Feedback.parse(text)
    assert (feedback.black, feedback.white) == (black, white)
    assert Feedback.parse(str(feedback)) == feedback


@pytest.mark.parametrize(
    "text", ["", "2", "two,one", "2,1,0", "-1,2", "2,-1", "2w1b", "2x1", "b2w1", "(2, 1", "2.5,1", "2;1", "abc"]
)
def test_feedback_parse_garbage(text: str) -> None:
    with pytest.raises(InvalidFeedbackError) as info:
        Feedback.parse(text)
    assert isinstance(info.value, ValueError)
    assert repr(text) in str(info.value)


def test_negative_feedback_is_refused() -> None:
    with pytest.raises(InvalidFeedbackError):
        Feedback(-1, 0)
    with pytest.raises(InvalidFeedbackError):
        Feedback(0, -2)


# -- which scores can happen -------------------------------------------------------------------------


def test_classic_has_fourteen_scores_and_not_three_one() -> None:
    feedbacks = Rules(4, 6).feedbacks()
    assert len(feedbacks) == 14
    assert len(set(feedbacks)) == 14
    assert Feedback(3, 1) not in feedbacks
    assert Feedback(4, 0) in feedbacks
    assert Feedback(0, 0) in feedbacks
    assert Feedback(0, 4) in feedbacks


def test_feedbacks_are_ordered_by_black_then_white() -> None:
    for rules in (Rules(4, 6), Rules(5, 3, blanks=True), Rules(3, 5, repeats=False)):
        feedbacks = rules.feedbacks()
        assert list(feedbacks) == sorted(feedbacks, key=lambda f: (f.black, f.white))


def _small_rules() -> list[Rules]:
    found = []
    for pegs, colors, repeats, blanks in itertools.product(range(1, 5), range(2, 6), (True, False), (True, False)):
        try:
            found.append(Rules(pegs, colors, repeats=repeats, blanks=blanks))
        except InvalidRulesError:
            assert not repeats and pegs > colors + blanks
    return found


SMALL_RULES = _small_rules()


def _rules_id(rules: Rules) -> str:
    return f"{rules.pegs}x{rules.colors}" + ("" if rules.repeats else "-norep") + ("-blanks" if rules.blanks else "")


@pytest.mark.parametrize(
    "rules",
    [pytest.param(r, marks=pytest.mark.slow) if r.size > 300 else r for r in SMALL_RULES],
    ids=_rules_id,
)
def test_feedbacks_closed_form_matches_every_pair(rules: Rules) -> None:
    """The closed form behind ``Rules.feedbacks`` against the scores of all pairs of codes (plain Python)."""
    table = reference_table(rules.pegs, rules.num_colors, rules.repeats)
    happened = {Feedback(*divmod(int(o), rules.pegs + 1)) for o in set(table.flat)}
    assert set(rules.feedbacks()) == happened
    for black in range(rules.pegs + 2):
        for white in range(rules.pegs + 2):
            assert rules.is_possible(Feedback(black, white)) == (Feedback(black, white) in happened)


def test_small_rules_cover_the_interesting_cases() -> None:
    kinds = {(r.repeats, r.blanks, r.num_colors == 2) for r in SMALL_RULES}
    assert len(kinds) == 6  # repeats or not, blanks or not, and two peg values with and without repeats
    assert len(SMALL_RULES) > 40
    assert all(len(legal_codes(r.pegs, r.num_colors, r.repeats)) == r.size for r in SMALL_RULES)


@pytest.mark.parametrize("text", ["3,1", "3 1", "3b1w"])
def test_three_black_one_white_is_impossible(text: str) -> None:
    rules = Rules(4, 6)
    with pytest.raises(InvalidFeedbackError) as info:
        rules.check_feedback(Feedback.parse(text))
    assert isinstance(info.value, ValueError)
    with pytest.raises(InvalidFeedbackError):
        rules.parse_feedback(text)


@pytest.mark.parametrize("text", ["3,2", "5,0", "0,5", "4,1"])
def test_too_many_key_pegs(text: str) -> None:
    with pytest.raises(InvalidFeedbackError, match="4 pegs"):
        Rules(4, 6).parse_feedback(text)


def test_check_feedback_returns_possible_scores() -> None:
    rules = Rules(4, 6)
    for feedback in rules.feedbacks():
        assert rules.check_feedback(feedback) is feedback
        assert rules.parse_feedback(str(feedback)) == feedback


def test_parse_scored() -> None:
    rules = Rules(4, 6)
    assert rules.parse_scored("AABB=1,2") == (rules.parse("AABB"), Feedback(1, 2))
    assert rules.parse_scored("1122=0,1") == (rules.parse("AABB"), Feedback(0, 1))
    assert rules.parse_scored("ABCD=2b1w") == (rules.parse("ABCD"), Feedback(2, 1))


@pytest.mark.parametrize(
    ("text", "error", "quoted"),
    [
        ("AABB", InvalidFeedbackError, "AABB"),
        ("AABB=x", InvalidFeedbackError, "x"),
        ("AABB=3,1", InvalidFeedbackError, "3 black 1 white"),
        ("AABG=1,1", InvalidCodeError, "AABG"),
    ],
)
def test_parse_scored_errors(text: str, error: type[Exception], quoted: str) -> None:
    with pytest.raises(error, match=quoted):
        Rules(4, 6).parse_scored(text)


# -- properties of the score ----------------------------------------------------------------------


@st.composite
def rules_and_codes(draw: st.DrawFn) -> tuple[Rules, tuple[int, ...], tuple[int, ...]]:
    rules = draw(rules_st(max_pegs=8, max_colors=10))
    return rules, draw(colors_st(rules)), draw(colors_st(rules))


@given(rules_and_codes())
def test_score_is_symmetric(case: tuple[Rules, tuple[int, ...], tuple[int, ...]]) -> None:
    rules, a, b = case
    assert score(rules.code(a), rules.code(b)) == score(rules.code(b), rules.code(a))


@given(rules_and_codes())
def test_score_of_a_code_with_itself_is_a_win(case: tuple[Rules, tuple[int, ...], tuple[int, ...]]) -> None:
    rules, a, _ = case
    assert score(rules.code(a), rules.code(a)) == Feedback(rules.pegs, 0) == rules.win


@given(rules_and_codes())
def test_score_is_possible_and_bounded(case: tuple[Rules, tuple[int, ...], tuple[int, ...]]) -> None:
    rules, a, b = case
    feedback = score(rules.code(a), rules.code(b))
    assert feedback.black + feedback.white <= rules.pegs
    assert feedback.black == sum(x == y for x, y in zip(a, b, strict=True))
    assert feedback in rules.feedbacks()
    assert rules.check_feedback(feedback) == feedback


@given(rules_and_codes(), st.data())
def test_score_ignores_colour_renaming(
    case: tuple[Rules, tuple[int, ...], tuple[int, ...]], data: st.DataObject
) -> None:
    rules, a, b = case
    rename = data.draw(st.permutations(range(rules.num_colors)))
    a2, b2 = tuple(rename[c] for c in a), tuple(rename[c] for c in b)
    assert score(rules.code(a2), rules.code(b2)) == score(rules.code(a), rules.code(b))


@given(rules_and_codes(), st.data())
def test_score_ignores_peg_order(case: tuple[Rules, tuple[int, ...], tuple[int, ...]], data: st.DataObject) -> None:
    rules, a, b = case
    order = data.draw(st.permutations(range(rules.pegs)))
    a2, b2 = tuple(a[i] for i in order), tuple(b[i] for i in order)
    assert score(rules.code(a2), rules.code(b2)) == score(rules.code(a), rules.code(b))


@given(rules_and_codes())
def test_black_plus_white_counts_shared_colours(case: tuple[Rules, tuple[int, ...], tuple[int, ...]]) -> None:
    """Black plus white is how many pegs can be paired off by colour: checked by greedy pairing."""
    rules, a, b = case
    feedback = score(rules.code(a), rules.code(b))
    left = list(b)
    paired = 0
    for color in a:
        if color in left:
            left.remove(color)
            paired += 1
    assert feedback.black + feedback.white == paired


# -- text from outside --------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["\u0662,\u0661", "\uff12,\uff11", "\u0662b\u0661w", "(\u09e8, \u09e7)", "0002,01"])
def test_scores_in_digits_of_any_script_are_read(text: str) -> None:
    assert Feedback.parse(text) == Feedback(2, 1)


@pytest.mark.parametrize("text", ["9" * 5000 + ",0", "0," + "1" * 5000, "1234567,0", "", " ", "\x1b[2J", "-1,0"])
def test_absurd_scores_are_refused_clearly(text: str) -> None:
    with pytest.raises(InvalidFeedbackError) as info:
        Feedback.parse(text)
    assert len(str(info.value)) < 600 and "\x1b" not in str(info.value)


@pytest.mark.parametrize("args", [("2", 1), (None, 0), (1.5, 0), (-1, 0), (0, -(10**5000))])
def test_a_score_counts_in_whole_numbers(args: tuple[object, object]) -> None:
    with pytest.raises(InvalidFeedbackError):
        Feedback(*args)  # type: ignore[arg-type]


def test_numpy_counts_become_ints() -> None:
    import numpy as np

    feedback = Feedback(np.int64(2), np.int8(1))  # type: ignore[arg-type]
    assert type(feedback.black) is int and feedback == Feedback(2, 1) and hash(feedback) == hash(Feedback(2, 1))


@given(text=st.text(max_size=30))
def test_any_text_is_a_score_or_a_clear_refusal(text: str) -> None:
    try:
        feedback = Feedback.parse(text)
    except InvalidFeedbackError:
        return
    assert Feedback.parse(str(feedback)) == feedback
