"""keypeg's public API (``keypeg.__all__``): every name there and documented, nothing else public, the
functions answering as the engine and the literature do, bad input refused with an exported typed error,
and ``import keypeg`` light."""

from __future__ import annotations

import inspect
import itertools
import json
import pydoc
import subprocess
import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    strategy_names,
)

DATA = {"VARIANTS"}
"""Public names that are values, not classes or functions: documented in the module's docstring."""


def test_every_public_name_exists_is_documented_and_shows_in_help() -> None:
    assert len(set(keypeg.__all__)) == len(keypeg.__all__), "a name listed twice"
    rendered = pydoc.render_doc(keypeg, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
    front = keypeg.__doc__ or ""
    for name in keypeg.__all__:
        value = getattr(keypeg, name)
        if name in DATA:
            assert name in front, f"{name} is not described on the front page"
        else:
            assert inspect.getdoc(value), f"{name} has no docstring"
            assert value.__doc__ != type(value).__doc__, f"{name} shows its type's docstring"
        assert f"{name}" in rendered, f"{name} is not in help(keypeg)"
        assert f":class:`{name}`" in front or f":func:`{name}`" in front or f":data:`{name}`" in front, (
            f"{name} is not named on the front page"
        )


def test_a_sessions_rules_and_history_show_in_help() -> None:
    """Instance attributes appear nowhere in help() unless the class's docstring names them."""
    for session in (keypeg.break_code(keypeg.Rules(3, 3), seed=1), keypeg.make_code(keypeg.Rules(3, 3), seed=1)):
        shown = pydoc.render_doc(type(session), renderer=pydoc.plaintext)  # type: ignore[attr-defined]
        for name in ("rules", "history"):
            assert hasattr(session, name) and f"``session.{name}``" in shown, (type(session).__name__, name)


def test_public_functions_are_typed_and_have_examples() -> None:
    for name in keypeg.__all__:
        value = getattr(keypeg, name)
        if inspect.isfunction(value):
            signature = inspect.signature(value)
            assert signature.return_annotation is not inspect.Signature.empty, name
            assert all(p.annotation is not inspect.Parameter.empty for p in signature.parameters.values()), name
            assert ">>> " in (value.__doc__ or ""), f"{name} has no example"


def test_nothing_else_is_public() -> None:
    """Names of the package not in ``__all__`` are its submodules or underscored (``dir`` and the real
    namespace alike); every error class of :mod:`keypeg.errors` is exported."""
    listed = set(keypeg.__all__)
    for name in set(dir(keypeg)) | set(vars(keypeg)):
        if name in listed or name.startswith("_"):
            continue
        assert isinstance(getattr(keypeg, name), types.ModuleType), f"keypeg.{name} is public but not in __all__"
    errors = [v for v in vars(keypeg.errors).values() if isinstance(v, type) and issubclass(v, keypeg.KeypegError)]
    assert {e.__name__ for e in errors} <= listed
    assert all(issubclass(getattr(keypeg, n), keypeg.KeypegError) for n in listed if n.endswith("Error"))


def test_dir_offers_the_public_names_only() -> None:
    """``dir(keypeg)`` (a shell's completion, ``help``) lists ``__all__`` and dunders, even once submodules
    are loaded: nothing internal is offered."""
    import keypeg.strategies  # a submodule loaded, as any solver's call loads some

    assert {name for name in dir(keypeg) if not name.startswith("__")} == set(keypeg.__all__)


def test_the_lazy_names_are_the_api_s() -> None:
    """Each name the root loads lazily is the object of :mod:`keypeg.api` (or the engine's, re-exported),
    and ``dir(keypeg)`` lists it before it is loaded."""
    import keypeg.api

    assert set(keypeg._LAZY) <= set(keypeg.__all__)
    assert set(keypeg._LAZY) == set(keypeg.api.__all__)
    for name in keypeg._LAZY:
        assert getattr(keypeg, name) is getattr(keypeg.api, name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        keypeg.nothing  # type: ignore[attr-defined]  # noqa: B018


def _loaded(statement: str) -> list[str]:
    heavy = ("numpy", "numba", "ortools", "click", "rich", "sqlalchemy", "fastapi")
    probe = f"import sys\n{statement}\nprint(__import__('json').dumps([m for m in {heavy!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def test_import_keypeg_stays_light() -> None:
    """The core, :class:`History`, the list of names and even the api module load no third-party
    package; the probe can fail: asking for a guess loads the kernels."""
    light = "import keypeg, keypeg.api\nkeypeg.History(keypeg.Rules(3, 3)).add('AAB', '1,0')\nkeypeg.strategy_names()"
    assert _loaded(light + "\ndir(keypeg); keypeg.fitting; keypeg.break_code") == []
    assert {"numpy", "numba"} <= set(_loaded("import keypeg\nkeypeg.best_guess(keypeg.Rules(3, 3))"))


# -- the functions against the engine and the literature -----------------------------------------------


def test_knuth_on_classic_is_5801_in_all_worst_5() -> None:
    """Knuth (1976), "The computer as master mind": 5,801 guesses over the 1,296 secrets, at most 5."""
    tree = analyze("classic", "knuth")
    assert (tree.stats.secrets, tree.stats.total, tree.stats.max) == (1296, 5801, 5)


def test_the_optimum_of_classic_is_5625_in_all() -> None:
    """Koyama and Lai (1993), "An optimal Mastermind strategy": 5,625 guesses in all (average 4.340)."""
    tree = optimal("classic")
    assert (tree.stats.total, round(tree.stats.average, 3)) == (5625, 4.340)
    assert tree.rules.rows == keypeg.find_variant("classic").rules.rows


def test_the_worst_case_optimum_needs_no_fewer_rows() -> None:
    """``objective="worst-case"``: its worst case is the fewest guesses that always suffice (one row fewer
    and no strategy solves every secret), its total the least within them."""
    rules = Rules(3, 3)
    tree = optimal(rules, objective="worst-case")
    least = optimal(rules)
    assert tree.stats.max <= least.stats.max and tree.stats.total >= least.stats.total
    assert tree.rules.rows == tree.stats.max
    with pytest.raises(keypeg.KeypegError, match="no strategy solves every secret"):
        optimal(rules.replace(rows=tree.stats.max - 1))


def _brute_fitting(rules: Rules, history: History) -> list[Code]:
    """The plain-Python reference: every code of the rules in order, kept if it scores as the history."""
    found = []
    for colors in itertools.product(range(rules.colors), repeat=rules.pegs):
        if not rules.repeats and len(set(colors)) < len(colors):
            continue
        code = rules.code(colors)
        if all(score(code, guess) == feedback for guess, feedback in history):
            found.append(code)
    return found


@st.composite
def games(draw: st.DrawFn) -> tuple[Rules, History]:
    """A small game and a history of 0 to 3 guesses: scored by a secret, or (now and then) at random,
    so some no code fits."""
    pegs, colors = draw(st.integers(1, 3)), draw(st.integers(2, 4))
    rules = Rules(pegs, colors, repeats=draw(st.booleans()) or pegs > colors)
    codes = _brute_fitting(rules, History(rules))
    secret = draw(st.sampled_from(codes))
    history = History(rules)
    for _ in range(draw(st.integers(0, 3))):
        guess = draw(st.sampled_from(codes))
        at_random = draw(st.integers(0, 4)) == 0
        history = history.add(guess, draw(st.sampled_from(rules.feedbacks())) if at_random else score(secret, guess))
    return rules, history


@settings(max_examples=60, deadline=None)
@given(games())
def test_fitting_is_the_brute_force(game: tuple[Rules, History]) -> None:
    rules, history = game
    expected = _brute_fitting(rules, history)
    assert fitting(history, limit=100) == expected
    assert fitting(history, limit=2) == expected[:2]
    result = check(history)
    assert (result.consistent, result.count) == (bool(expected), len(expected))
    if not expected:
        assert result.suspects or result.changes > 1


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["knuth", "irving", "most-parts", "entropy"]), st.integers(0, 26))
def test_best_guess_follows_the_strategy_s_tree(strategy: str, which: int) -> None:
    """Along any game of the tree, the tree's next guess (:meth:`StrategyTree.next_guess`) is the
    strategy's best guess after the same history; the tree says nothing once the code is broken."""
    rules = Rules(3, 3)
    tree = analyze(rules, strategy)
    secret = _brute_fitting(rules, History(rules))[which]
    played = tree.replay(secret)
    history = History(rules)
    for guess, feedback in played:
        assert tree.next_guess(history) == guess == best_guess(history, strategy=strategy).guess
        history = history.add(guess, feedback)
    assert history.solved and tree.next_guess(history) is None


def test_next_guess_off_the_tree_is_none() -> None:
    tree = analyze(Rules(3, 3), "knuth")
    opening = tree.first_guess
    other = next(c for c in _brute_fitting(tree.rules, History(tree.rules)) if c != opening)
    assert tree.next_guess([]) == opening
    assert tree.next_guess([(other, Feedback(0, 0))]) is None
    impossible = next(f for f in tree.rules.feedbacks() if f not in tree.root.children and f != tree.rules.win)
    assert tree.next_guess(History(tree.rules).add(opening, impossible)) is None


def test_best_guess_ranks_and_reads_every_kind_of_history() -> None:
    rules = Rules(4, 6)
    choice = best_guess(rules, top=3)
    assert (str(choice.guess), choice.fitting, len(choice.ranked)) == ("AABB", 1296, 3)
    pairs = [(rules.parse("AABB"), Feedback(1, 0))]
    assert best_guess(pairs).guess == best_guess(History(rules, tuple(pairs))).guess == rules.parse("ACDD")
    assert "worst-case" in strategy_names() and "optimal" in strategy_names()


def test_analyze_takes_a_first_guess_or_the_best_one() -> None:
    rules = Rules(3, 3)
    tree = analyze(rules, "simple", first="ABC")
    assert str(tree.first_guess) == "ABC"
    best = analyze(rules, "simple", first="best")
    assert best.stats.total <= min(analyze(rules, "simple", first=c).stats.total for c in ("AAA", "AAB", "ABC"))
    seen: list[int] = []
    analyze(rules, "knuth", progress=seen.append)
    assert sum(seen) == rules.size


def test_the_sessions_play_both_roles() -> None:
    session = break_code("3x3", seed=7)
    again = break_code("3x3", seed=7)
    for guess in ("AAB", "BCA", "CCC"):
        assert session.guess(guess) == again.guess(guess)
    adversary = break_code(Rules(3, 3), adversarial=True)
    while not adversary.is_over:
        adversary.guess(_brute_fitting(adversary.rules, History(adversary.rules, tuple(adversary.history)))[0])
    outcome = adversary.outcome()
    assert outcome is not None and outcome.solved
    maker = make_code(Rules(3, 3), level=4)
    secret = Rules(3, 3).parse("CAB")
    while not maker.is_over:
        maker.score(score(secret, maker.guess()))
    made = maker.outcome()
    assert made is not None and made.secret == secret


# -- bad input: one typed error, exported -----------------------------------------------------------


def _raises(kind: type[keypeg.KeypegError], call: object) -> keypeg.KeypegError:
    with pytest.raises(kind) as raised:
        call()  # type: ignore[operator]
    error = raised.value
    assert getattr(keypeg, type(error).__name__) is type(error), f"{type(error).__name__} is not exported"
    assert "\n" not in str(error)
    return error


def test_bad_input_gets_a_typed_exported_error() -> None:
    rules = Rules(3, 3)
    solved = History(rules).add("ABC", "3,0")
    wrong = History.parse(rules, ["AAA=0,0", "BBB=0,0", "CCC=0,0"])
    cases: list[tuple[type[keypeg.KeypegError], object]] = [
        (keypeg.InvalidCodeError, lambda: History(rules).add("ABZ", "1,0")),
        (keypeg.InvalidCodeError, lambda: History(rules).add("ABCA", "1,0")),
        (keypeg.InvalidFeedbackError, lambda: History(rules).add("ABC", "2,1")),
        (keypeg.InvalidFeedbackError, lambda: History(rules).add("ABC", (1, "x"))),  # type: ignore[arg-type]
        (keypeg.InvalidFeedbackError, lambda: History.parse(rules, ["ABC"])),
        (keypeg.UnknownVariantError, lambda: analyze("no-such-game")),
        (keypeg.UnknownStrategyError, lambda: best_guess(rules, strategy="psychic")),
        (keypeg.UnknownStrategyError, lambda: analyze(rules, "psychic")),
        (keypeg.InconsistentHistoryError, lambda: best_guess(wrong)),
        (keypeg.RefusedError, lambda: best_guess(solved)),
        (keypeg.InvalidArgumentError, lambda: fitting(rules, limit=-1)),
        (keypeg.InvalidArgumentError, lambda: best_guess(rules, top=0)),
        (keypeg.InvalidArgumentError, lambda: optimal(rules, objective="fastest")),  # type: ignore[arg-type]
        (keypeg.InvalidArgumentError, lambda: optimal(rules, pool="some")),  # type: ignore[arg-type]
        (keypeg.InvalidArgumentError, lambda: fitting("AAB=1,0")),  # type: ignore[arg-type]
        (keypeg.InvalidArgumentError, lambda: make_code(rules, level=9)),
        (keypeg.InvalidArgumentError, lambda: break_code(rules, secret="ABC", adversarial=True)),
        (keypeg.InvalidCodeError, lambda: analyze(rules, first="ABCD")),
        (keypeg.InvalidCodeError, lambda: break_code(rules, secret="AB")),
        (keypeg.InvalidRulesError, lambda: Rules(5, 3, repeats=False)),
        (keypeg.InvalidArgumentError, lambda: break_code(rules, seed=-1)),
        (keypeg.InvalidArgumentError, lambda: make_code(rules, seed="x")),  # type: ignore[arg-type]
        (keypeg.InvalidArgumentError, lambda: best_guess(rules, strategy="random", seed=1.5)),  # type: ignore[arg-type]
        (keypeg.InvalidArgumentError, lambda: analyze(rules, "random", seed=True)),
    ]
    for kind, call in cases:
        _raises(kind, call)
    _raises(keypeg.GameOverError, _over)
    assert not wrong.solved and check(wrong).consistent is False


def _over() -> None:
    session = break_code(Rules(3, 3), secret="ABC")
    session.guess("ABC")
    session.guess("AAA")


def test_scores_no_code_fits_are_refused_in_a_solve_session() -> None:
    session = make_code(Rules(3, 3))
    session.score("0,0")
    error = _raises(keypeg.InconsistentScoreError, lambda: _score_everything_zero(session))
    assert "likely" in str(error).lower() or "no code fits" in str(error)


def _score_everything_zero(session: keypeg.SolveSession) -> None:
    while True:
        session.score("0,0")


def test_big_work_is_refused_before_it_starts() -> None:
    """The cost guard the command line uses: refused at once, naming the way round."""
    error = _raises(keypeg.TooCostlyError, lambda: analyze(Rules(8, 12), "knuth"))
    assert "force=True" in str(error)
    _raises(keypeg.TooCostlyError, lambda: optimal(Rules(5, 8)))
    assert isinstance(error, keypeg.TooLargeError) and isinstance(error, ValueError)
