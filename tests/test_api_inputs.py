"""The public API's doors against bad or unexpected input (the review of issue 32): every wrong value a
user can pass is refused with a typed one-line error (a ValueError as documented), never an
AttributeError from deep inside; and the constraint solver's work behind ``fitting``/``check`` is bounded."""

from __future__ import annotations

import random

import pytest

import keypeg
from keypeg import (
    Code,
    Feedback,
    History,
    Rules,
    analyze,
    best_guess,
    break_code,
    check,
    fitting,
    make_code,
    optimal,
    score,
)
from keypeg.errors import (
    InvalidArgumentError,
    InvalidCodeError,
    InvalidFeedbackError,
    TooSlowError,
    UnknownStrategyError,
)

R = Rules(3, 3)


def _big_history(moves: int = 6) -> History:
    """15 pegs, 26 colours: past enumeration, the constraint solver's size (the review's /tmp/p13.py)."""
    rnd = random.Random(1)
    rules = Rules(15, 26)

    def drawn() -> Code:
        return rules.code([rnd.randrange(26) for _ in range(15)])

    secret, history = drawn(), History(rules)
    for _ in range(moves):
        guess = drawn()
        history = history.add(guess, score(secret, guess))
    return history


# -- 23: the solver is bounded --------------------------------------------------------------------


def test_the_constraint_solver_stops_at_its_time_and_says_so() -> None:
    from keypeg.consistency import check as check_history

    history = _big_history()
    try:  # 1 ms: either no answer yet (an error), or a partial count said to be one
        result = check_history(history.rules, history.moves, limit=1000, seconds=0.001)
    except TooSlowError as error:
        assert "allowed" in str(error)
    else:
        assert result.count_is_lower_bound and result.count < 1000
        assert result.message().startswith("consistent: at least")


def test_fitting_never_cuts_its_list_short_silently(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keypeg.api, "_seconds", lambda force: 0.001)
    with pytest.raises(TooSlowError, match="allowed"):
        fitting(_big_history())


def test_the_estimate_of_listing_codes_grows_with_the_model() -> None:
    from keypeg.analysis.cost import consistency_cost

    history = _big_history()
    # measured 36 CPU s for 1,000 codes on 15x26 after 6 guesses (the review); the old estimate said 0.5 s
    assert consistency_cost(history.rules, len(history), 1000).seconds > 10
    with pytest.raises(keypeg.TooCostlyError, match="force=True"):
        fitting(history, limit=100_000)


def test_a_limit_above_the_codes_there_are_means_all_of_them() -> None:
    assert len(fitting(Rules(4, 6), limit=10**9)) == 1296
    assert check(Rules(4, 6), limit=10**9).count == 1296


# -- 1, 9: a score as History.add takes it ---------------------------------------------------------


def test_a_solve_session_takes_a_score_as_a_history_does() -> None:
    session = make_code(R, seed=0)
    guess = session.guess()
    session.score((1, 0))
    assert session.history[-1] == (guess, Feedback(1, 0))
    session.fix(1, (2, 0))
    assert session.history[-1][1] == Feedback(2, 0)
    for wrong in (None, (1,), 2.5, (1, "a")):
        with pytest.raises(InvalidFeedbackError):
            session.score(wrong)  # type: ignore[arg-type]


# -- 2, 3, 4, 24, 25: codes, strategies, histories of the wrong type -------------------------------


@pytest.mark.parametrize("wrong", [1234, None, 2.5, b"AAB"])
def test_a_code_of_the_wrong_type_is_an_invalid_code(wrong: object) -> None:
    with pytest.raises(InvalidCodeError, match="a code is a Code or text"):
        History(R).add(wrong, (1, 0))  # type: ignore[arg-type]
    with pytest.raises(InvalidCodeError):
        break_code(R).guess(wrong)  # type: ignore[arg-type]
    if wrong is not None:  # None is the default: a random secret, the opening of the strategy
        with pytest.raises(InvalidCodeError):
            break_code(R, secret=wrong)  # type: ignore[arg-type]
        with pytest.raises(InvalidCodeError):
            analyze(R, first=wrong)  # type: ignore[arg-type]


@pytest.mark.parametrize("colors", [(0, 9, 1), (0, 1, 2, 2), (0, 1), (0, -1, 1)])
def test_a_code_built_directly_is_checked_at_every_door(colors: tuple[int, ...]) -> None:
    bad = Code(colors, R)
    with pytest.raises(InvalidCodeError):
        History(R).add(bad, "1,0")
    with pytest.raises(InvalidCodeError):
        History(R, ((bad, Feedback(1, 0)),))
    with pytest.raises(InvalidCodeError):
        break_code(R, secret=bad)
    with pytest.raises(InvalidCodeError):
        break_code(R, seed=1).guess(bad)
    with pytest.raises(InvalidCodeError):
        analyze(R, first=bad)
    with pytest.raises(InvalidCodeError):
        fitting([(bad, Feedback(1, 0))])
    if len(colors) != R.pegs:
        with pytest.raises(InvalidCodeError):
            score(bad, R.parse("ABC"))


def test_score_takes_codes_and_says_so() -> None:
    with pytest.raises(InvalidCodeError, match=r"rules.parse"):
        score("AAB", "ABA")  # type: ignore[arg-type]


@pytest.mark.parametrize("wrong", [None, 5, ("knuth",)])
def test_a_strategy_that_is_not_text_is_unknown(wrong: object) -> None:
    with pytest.raises(UnknownStrategyError):
        best_guess(R, strategy=wrong)  # type: ignore[arg-type]
    with pytest.raises(UnknownStrategyError):
        analyze(R, wrong)  # type: ignore[arg-type]


@pytest.mark.parametrize("wrong", [None, 5, 2.5])
def test_a_history_of_the_wrong_type_is_an_invalid_argument(wrong: object) -> None:
    for door in (fitting, check, best_guess):
        with pytest.raises(InvalidArgumentError, match="a history is"):
            door(wrong)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        History(R, moves=wrong)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        History(wrong)  # type: ignore[arg-type]


# -- 10: flags and callbacks checked before the work ------------------------------------------------


def test_flags_and_callbacks_are_checked_up_front() -> None:
    with pytest.raises(InvalidArgumentError, match="force"):
        fitting(R, force="no")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="save"):
        optimal(R, save="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="adversarial"):
        break_code(R, adversarial=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="progress"):
        analyze(R, progress=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="progress"):
        optimal(Rules(3, 4), objective="worst-case", progress=5)  # type: ignore[arg-type]


# -- 6, 26: a tree on a short board says what it would lose -------------------------------------------


def test_a_tree_counts_the_secrets_it_breaks_only_past_the_rows() -> None:
    tree = analyze(Rules(2, 2, rows=1), "knuth")  # the review: 3 guesses on a 1-row board, no failure said
    assert tree.stats.distribution == {1: 1, 2: 2, 3: 1}
    assert tree.beyond_rows == 3
    assert analyze(Rules(2, 2, rows=3), "knuth").beyond_rows == 0
    assert tree.stats.worst == tree.stats.max == 3


# -- 7, 30: bad input is a ValueError of a typed kind ---------------------------------------------------


def test_too_few_rows_for_the_optimum_is_invalid_rules() -> None:
    with pytest.raises(keypeg.InvalidRulesError, match="no strategy solves every secret within 2"):
        optimal(Rules(3, 3, rows=2))


@pytest.mark.parametrize(
    "arguments",
    [
        {"players": ("a", "b"), "games": 3},
        {"players": ("a", "a")},
        {"players": ("a",)},
        {"players": "ab"},
        {"players": ("a", "b"), "points_per": "nope"},
        {"players": ("a", "b"), "games": "2"},
    ],
)
def test_a_match_refuses_bad_arguments_as_invalid(arguments: dict[str, object]) -> None:
    with pytest.raises(InvalidArgumentError):
        keypeg.Match(**arguments)  # type: ignore[arg-type]


def test_a_match_and_a_game_refuse_impossible_values() -> None:
    match = keypeg.Match(("a", "b"))
    with pytest.raises(InvalidArgumentError, match="guesses"):
        match.record_game(-3, broken=True)
    with pytest.raises(InvalidArgumentError, match="rng"):
        keypeg.Game(R, rng=5)  # type: ignore[arg-type]


# -- 14: a misspelt top-level name is a type error --------------------------------------------------------


def test_the_lazy_getattr_is_hidden_from_type_checkers() -> None:
    """A module ``__getattr__`` a type checker sees makes ``keypeg.anything`` type-check as ``object``;
    mypy skips what is under ``if not TYPE_CHECKING`` (a name or ``typing.TYPE_CHECKING``)."""
    import ast
    import inspect

    for module in (keypeg, keypeg.api):
        tree = ast.parse(inspect.getsource(module))
        top = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
        assert "__getattr__" not in top, module.__name__
        hidden = [
            node
            for node in tree.body
            if isinstance(node, ast.If)
            and isinstance(node.test, ast.UnaryOp)
            and isinstance(node.test.op, ast.Not)
            and getattr(node.test.operand, "attr", getattr(node.test.operand, "id", None)) == "TYPE_CHECKING"
            and any(isinstance(inner, ast.FunctionDef) and inner.name == "__getattr__" for inner in node.body)
        ]
        assert hidden, module.__name__


# -- 25: next_guess names the way to read text --------------------------------------------------------------


@pytest.mark.parametrize("wrong", [None, "AAB=1,0", ["AAB=1,0"], 5])
def test_next_guess_refuses_what_is_not_a_history(wrong: object) -> None:
    tree = analyze(R, "knuth")
    with pytest.raises(InvalidArgumentError, match=r"History\.parse"):
        tree.next_guess(wrong)  # type: ignore[arg-type]


# -- 5: a session's history is the public value, not its live list ----------------------------------------


def test_a_sessions_history_is_a_frozen_history_that_best_guess_takes() -> None:
    session = break_code("classic", seed=3)
    assert isinstance(session.history, History) and len(session.history) == 0
    assert best_guess(session.history).guess == best_guess(Rules(4, 6)).guess  # the first turn too
    session.guess("RRGG")
    with pytest.raises(AttributeError):
        session.history.append(session.history[0])  # type: ignore[attr-defined]
    assert len(session.history) == 1 and session.rows_left == 11
    solver = make_code(R, seed=0)
    solver.score(score(R.parse("CAB"), solver.guess()))
    assert isinstance(solver.history, History) and len(solver.history) == 1


# -- 28: a Choice crosses a process boundary ---------------------------------------------------------------


def test_a_choice_pickles_with_its_ranking() -> None:
    import pickle

    choice = best_guess(History.parse(Rules(4, 6), ["AABB=1,0"]), top=3)
    again = pickle.loads(pickle.dumps(choice))
    assert again == choice and [r.guess for r in again.ranked] == [r.guess for r in choice.ranked]
    assert again.ranked[0].figures == choice.ranked[0].figures


# -- 11, 29, 33: sessions -------------------------------------------------------------------------------


def test_a_seeded_solver_does_not_draw_what_an_environment_draws_from_the_same_seed() -> None:
    pytest.importorskip("gymnasium")
    from keypeg.envs import MastermindEnv

    env = MastermindEnv(variant="classic")
    same = 0
    for seed in range(10):  # the review: level 1's first guess was the env's seed-s secret, 20 seeds of 20
        env.reset(seed=seed)
        same += make_code("classic", level=1, seed=seed).guess() == env.secret
    assert same == 0


def test_a_session_shows_its_state_and_resigns_with_an_outcome() -> None:
    session = break_code("3x3", secret="ABC")
    session.guess("AAB")
    assert repr(session) == "<BreakSession 3 pegs, 3 colours, repeats, 10 rows: 1 guess, 9 rows left, in play>"
    solver = make_code("3x3")
    outcome = solver.resign()
    assert outcome is not None and outcome.termination is keypeg.Termination.RESIGNED
