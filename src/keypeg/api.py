"""keypeg's public functions: thin doors onto the engine, re-exported by the package :mod:`keypeg`.

Each turns its arguments into the engine's values, guards work that may be big with the cost model the
command line uses (:class:`~keypeg.errors.TooCostlyError` before the work starts, naming ``force=True``),
and calls the same engine function as ``keypeg`` on the command line. Import from :mod:`keypeg`, not from
here: the names of this module that :data:`keypeg.__all__` does not list are internal.

>>> from keypeg import Rules, analyze
>>> analyze(Rules(3, 3), "knuth").stats.total
74
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Literal

from keypeg.arguments import checked_seed, one_of, true_or_false, whole_number
from keypeg.code import Code, Feedback
from keypeg.consistency import Consistency, Suspect
from keypeg.errors import InvalidArgumentError, TooSlowError
from keypeg.history import History
from keypeg.limits import DEFAULT_COUNT_LIMIT
from keypeg.play.sessions import BreakSession, SolveSession
from keypeg.rules import Rules
from keypeg.strategy_tree import StrategyTree, TreeStats
from keypeg.text import quoted
from keypeg.variants import find_variant

if TYPE_CHECKING:
    from keypeg.analysis.cost import Estimate
    from keypeg.strategies import Choice, Figures, Ranked
    from keypeg.strategies.optimal import SearchProgress

__all__ = [
    "BreakSession",
    "Choice",
    "Consistency",
    "Figures",
    "Ranked",
    "SearchProgress",
    "SolveSession",
    "StrategyTree",
    "Suspect",
    "TreeStats",
    "analyze",
    "best_guess",
    "break_code",
    "check",
    "fitting",
    "make_code",
    "optimal",
    "strategy_names",
]

OBJECTIVES = ("total", "worst-case")
POOLS = ("all", "consistent")
WAY_ROUND = "force=True runs it anyway"
SOLVER_TAG = 0x5E55_1017
"""Mixed into :func:`make_code`'s seed, so that the session's draws are its own (the command line's
``keypeg solve --seed`` keeps the strategy's plain seed)."""


def _rules(rules: Rules | str) -> Rules:
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return find_variant(rules).rules
    raise InvalidArgumentError(f"rules must be a Rules or a variant's name, not {quoted(rules)}")


def _history(history: History | Rules | Iterable[tuple[Code, Feedback]]) -> History:
    if isinstance(history, History):
        return history
    if isinstance(history, Rules):
        return History(history)
    if isinstance(history, str):
        raise InvalidArgumentError(f"a history is a History or a Rules, not the text {quoted(history)}")
    wrong = InvalidArgumentError(
        "a history is a History, a Rules, or (Code, Feedback) pairs (their codes give the rules), "
        f"not {quoted(history)}"
    )
    if not isinstance(history, Iterable):
        raise wrong
    moves = tuple(history)
    first = moves[0][0] if moves and isinstance(moves[0], tuple) and moves[0] else None
    if not isinstance(first, Code):
        raise wrong
    return History(first.rules, moves)


def _progress(progress: Callable[..., None] | None) -> None:
    if progress is not None and not callable(progress):
        raise InvalidArgumentError(f"progress must be a function or None, not {quoted(progress)}")


def _seconds(force: bool) -> float | None:
    """The constraint solver's time for one check: the machine's time budget, or none when ``force``."""
    from keypeg.machine import time_budget

    if true_or_false(force, "force"):
        return None
    try:
        return time_budget()
    except ValueError as error:
        raise InvalidArgumentError(str(error)) from None


def _guard(force: bool) -> Callable[[Estimate], None]:
    """The command line's guard (:func:`keypeg.analysis.cost.guard`), with ``force`` as ``--force``."""
    from keypeg.analysis.cost import guard

    true_or_false(force, "force")
    return lambda estimate: guard(estimate, force, WAY_ROUND)


def fitting(
    history: History | Rules | Iterable[tuple[Code, Feedback]], *, limit: int = 1000, force: bool = False
) -> list[Code]:
    """The codes that fit every score of ``history``, in code order, at most ``limit`` of them.

    Any size of game: the codes are enumerated up to :data:`keypeg.limits.ENUMERATE_LIMIT` codes, past
    it found by CP-SAT (then ``limit`` codes that fit, sorted, not necessarily the first ones). Scores no
    code fits give an empty list (:func:`check` names the likely mistake). Past enumeration the solver
    has the machine's time budget (:func:`keypeg.machine.time_budget`, ``$KEYPEG_TIME_LIMIT``) unless
    ``force``: the list is never cut short silently.

    Raises:
        TooCostlyError: the work is estimated above this machine's budget (unless ``force``).
        TooSlowError: the solver ran out of that time before it found ``limit`` codes or all of them
            (the message says how many it found: ask for fewer).

    >>> from keypeg import History, Rules
    >>> [str(code) for code in fitting(History.parse(Rules(3, 3), ["AAB=1,1", "ABC=1,2"]))]
    ['BAC']
    >>> len(fitting(Rules(4, 6), limit=5))
    5
    """
    from keypeg.analysis.cost import consistency_cost
    from keypeg.consistency import check as check_history

    scored = _history(history)
    whole_number(limit, 0, "limit")
    wanted = max(min(limit, scored.rules.size), 1)  # a limit above the codes there are means all of them
    _guard(force)(consistency_cost(scored.rules, len(scored), wanted))
    seconds = _seconds(force)
    result = check_history(scored.rules, scored.moves, limit=wanted, search_limit=0, seconds=seconds)
    if result.count_is_lower_bound and result.count < wanted:
        raise TooSlowError(
            f"listing {wanted:,} fitting codes of {scored.rules.describe()} stopped after the {seconds:g} s allowed, "
            f"with {result.count:,} found: ask for fewer (limit={result.count}), or {WAY_ROUND}",
            conclusive=True,
        )
    return result.codes[:limit] if result.consistent else []


def check(
    history: History | Rules | Iterable[tuple[Code, Feedback]], *, limit: int = DEFAULT_COUNT_LIMIT, force: bool = False
) -> Consistency:
    """Whether any code fits ``history``: how many (counted up to ``limit``), the first of them, and when
    none fits, the scores most likely wrong (:attr:`Consistency.suspects`, likeliest first).

    Past enumeration the solver has the machine's time budget unless ``force``: when it runs out while
    counting, the count is what was found (``count_is_lower_bound``, ``message()`` says "at least").

    Raises:
        TooCostlyError: the work is estimated above this machine's budget (unless ``force``).
        TooSlowError: the solver ran out of that time before it could say whether any code fits, or
            which scores are likely wrong.

    >>> from keypeg import History, Rules
    >>> result = check(History.parse(Rules(4, 6), ["AABB=1,0", "ACDE=0,2"]))
    >>> result.consistent, result.count, str(result.example)
    (True, 51, 'CACC')
    >>> wrong = check(History.parse(Rules(3, 3), ["AAA=0,0", "BBB=0,0", "CCC=0,0"]))
    >>> wrong.consistent, wrong.message().split(":")[0]
    (False, 'no code fits these scores')
    """
    from keypeg.analysis.cost import consistency_cost
    from keypeg.consistency import check as check_history

    scored = _history(history)
    whole_number(limit, 1, "limit")
    _guard(force)(consistency_cost(scored.rules, len(scored), min(limit, scored.rules.size)))
    return check_history(scored.rules, scored.moves, limit=limit, seconds=_seconds(force))


def strategy_names() -> tuple[str, ...]:
    """The strategies' names, as :func:`best_guess` and :func:`analyze` take them (each also answers to
    its aliases, in any case: ``"knuth"`` is ``"worst-case"``, ``"irving"`` ``"expected-size"``, ...).

    >>> strategy_names()[:4]
    ('simple', 'random', 'careless', 'worst-case')
    """
    from keypeg.strategies import NAMES

    return NAMES


def best_guess(
    history: History | Rules | Iterable[tuple[Code, Feedback]],
    *,
    strategy: str = "knuth",
    top: int = 1,
    seed: int | None = None,
    force: bool = False,
) -> Choice:
    """``strategy``'s next guess after ``history``, ranked with up to ``top - 1`` runners-up.

    ``choice.guess`` is the guess, ``choice.ranked`` the guesses ranked with their figures,
    ``choice.fitting`` how many codes fit. On games too large to score every code the genetic
    codebreaker answers whatever the strategy (:attr:`Choice.strategy` says ``"genetic"``); on smaller
    ones a strategy whose work is too costly is refused (``"optimal"`` on 5 pegs, 8 colours), and
    ``strategy="genetic"`` is always playable. ``seed`` seeds strategies that draw at random.

    Raises:
        UnknownStrategyError: no strategy of that name.
        InconsistentHistoryError: no code fits the scores (the message names the likely mistake).
        RefusedError: the code is broken already.
        TooCostlyError: the work is estimated above this machine's budget (unless ``force``).

    >>> from keypeg import History, Rules
    >>> choice = best_guess(Rules(4, 6), top=2)
    >>> str(choice.guess), choice.fitting, [str(r.guess) for r in choice.ranked]
    ('AABB', 1296, ['AABB', 'AABC'])
    >>> str(best_guess(History.parse(Rules(4, 6), ["AABB=1,0"]), strategy="irving").guess)
    'ACDD'
    """
    from keypeg.services.advice import next_guess
    from keypeg.strategies import canonical_name, make_strategy

    scored = _history(history)
    name = canonical_name(strategy)
    whole_number(top, 1, "top")
    checked_seed(seed)
    return next_guess(
        scored.rules,
        scored.moves,
        name,
        top=top,
        check=_guard(force),
        make=lambda wanted: make_strategy(wanted, seed=seed),
        thinking=lambda played, codes: nullcontext(),
    )


def analyze(
    rules: Rules | str,
    strategy: str = "knuth",
    *,
    first: Code | str | None = None,
    seed: int | None = None,
    progress: Callable[[int], None] | None = None,
    force: bool = False,
) -> StrategyTree:
    """``strategy`` played against every secret of ``rules``: its whole tree, figures in ``tree.stats``
    (``total``, ``average``, ``max`` for the worst case, ``distribution``: secrets per round).

    ``first`` is the first guess (a code), or ``"best"``: the opening with the least total (every opening's
    tree is grown, as ``keypeg openings`` does, and kept in the cache folder). ``progress`` is called with
    the number of secrets newly solved as the work goes on (``rules.size`` in all).

    The strategy plays every secret to the end, whatever the rules' rows: on a short board
    ``tree.beyond_rows`` counts the secrets it breaks only after the last row (the games it would lose),
    and ``tree.stats`` counts those guesses too. (:func:`optimal` keeps within the rows, or refuses.)

    Raises:
        UnknownStrategyError: no strategy of that name.
        InvalidCodeError: ``first`` is not a code of ``rules``.
        TooCostlyError: the work is estimated above this machine's budget (unless ``force``).

    >>> tree = analyze("classic", "knuth")
    >>> tree.stats.total, tree.stats.max, str(tree.first_guess)
    (5801, 5, 'RRGG')
    >>> analyze("3x3", "simple", first="ABC").stats.total
    80
    """
    from keypeg.analysis.compare import check_trees
    from keypeg.analysis.tree import build_tree
    from keypeg.strategies import canonical_name, make_strategy

    game = _rules(rules)
    name = canonical_name(strategy)
    checked_seed(seed)
    _progress(progress)
    check = _guard(force)
    check_trees(game, [name], check)
    if isinstance(first, str) and first.strip().lower() == "best":
        from keypeg.analysis.openings import best_opening, openings_cost

        chosen = make_strategy(name, seed=seed)
        check(openings_cost(game, chosen))
        chosen.first = best_opening(game, chosen).guess
    else:
        chosen = make_strategy(name, first=None if first is None else game.adopt(first), seed=seed)
    return build_tree(chosen, game, progress=progress)


def optimal(
    rules: Rules | str,
    *,
    objective: Literal["total", "worst-case"] = "total",
    pool: Literal["all", "consistent"] = "all",
    progress: Callable[[SearchProgress], None] | None = None,
    save: bool = False,
    force: bool = False,
) -> StrategyTree:
    """The optimal strategy of ``rules`` as a tree: the fewest guesses in all over every secret
    (``objective="total"``), or the fewest that always suffice and within them the fewest in all
    (``"worst-case"``). ``pool`` says which codes may be guessed: ``"all"``, or only ``"consistent"``
    ones (those that could still be the secret). A tree within the rules' rows.

    The optimum shipped with keypeg or saved by an earlier search (``keypeg optimal``, or ``save=True``
    here) is read at once; otherwise the exact search runs, guarded first. ``progress`` is called now and
    then with a :class:`SearchProgress`. Ctrl-C stops the search (KeyboardInterrupt).

    Raises:
        InvalidArgumentError: an unknown objective or pool.
        TooCostlyError: the search is estimated above this machine's budget (unless ``force``).
        WriteError: ``save`` and the cache folder takes no file (checked before the search).
        InvalidRulesError: no strategy solves every secret within the rules' rows (a ValueError).

    >>> optimal("classic").stats.total  # Koyama and Lai (1993)
    5625
    >>> tree = optimal("3x3", objective="worst-case")
    >>> tree.stats.max, tree.stats.total
    (4, 73)
    """
    from keypeg.analysis.cost import optimal_cost
    from keypeg.strategies.optimal import OptimalSolver, load_optimal, save_optimal

    game = _rules(rules)
    one_of(objective, OBJECTIVES, "objective")
    one_of(pool, POOLS, "pool")
    _progress(progress)
    true_or_false(save, "save")
    if objective == "total":
        found = load_optimal(game, pool)
        if found is not None:
            return found
    _guard(force)(optimal_cost(game))
    if save:
        from keypeg.storage import check_cache_folder

        check_cache_folder()  # fail now, not after the search
    if objective == "worst-case":
        rounds, _ = OptimalSolver(game, pool=pool, progress=progress).fewest_rounds()
        game = game.replace(rows=rounds)
        found = load_optimal(game, pool)
        if found is not None:
            return found
    solver = OptimalSolver(game, pool=pool, progress=progress)
    tree = solver.tree()
    tree.conventions["nodes"] = solver.nodes
    if save:
        save_optimal(tree, pool)
    return tree


def break_code(
    rules: Rules | str, *, secret: Code | str | None = None, seed: int | None = None, adversarial: bool = False
) -> BreakSession:
    """A game where you break a code the computer keeps: a random secret (``seed`` to repeat it), the
    ``secret`` given, or an ``adversarial`` codemaker that answers each guess so as to leave the most
    codes fitting (no secret is fixed until the end; every answer stays consistent).

    ``session.guess(code)`` returns the :class:`Feedback`; ``session.history``, ``session.is_over``,
    ``session.outcome()``, ``session.hint()``, ``session.undo()`` follow the game.

    Raises:
        InvalidCodeError: ``secret`` is not a code of ``rules``.
        GameOverError: a guess after the game ended.

    >>> session = break_code("3x3", secret="ABC")
    >>> session.guess("AAB"), session.guess("ABC"), session.is_over
    (Feedback(black=1, white=1), Feedback(black=3, white=0), True)
    >>> break_code("classic", adversarial=True).guess("AABB")
    Feedback(black=0, white=0)
    """
    from keypeg.play.codemakers import AdversarialCodemaker, FixedCodemaker, RandomCodemaker

    game = _rules(rules)
    checked_seed(seed)
    true_or_false(adversarial, "adversarial")
    if adversarial and (secret is not None or seed is not None):
        raise InvalidArgumentError("an adversarial codemaker keeps no secret and draws nothing: no secret nor seed")
    if adversarial:
        return BreakSession(game, AdversarialCodemaker(game))
    if secret is not None:
        if seed is not None:
            raise InvalidArgumentError("give a secret or a seed, not both")
        return BreakSession(game, FixedCodemaker(game.adopt(secret)))
    return BreakSession(game, RandomCodemaker.draw(game, seed))


def make_code(rules: Rules | str, *, level: int = 3, seed: int | None = None) -> SolveSession:
    """A game where the computer, at ``level`` (1 to 4, the strongest 4), breaks a code you keep and you
    score each of its guesses: ``session.guess()`` is its guess, ``session.score(feedback)`` your score
    (a :class:`Feedback`, a ``(black, white)`` pair or text, as :meth:`History.add` takes it).

    On games too large to score every code, every level plays the genetic codebreaker (the levels
    differ only where codes can be enumerated; ``session.note`` says so).

    Raises:
        InvalidFeedbackError: a score that cannot happen.
        InconsistentScoreError: a score no code fits with the scores before it (the likely mistake named).
        GameOverError: a score after the game ended.

    >>> from keypeg import Rules, score
    >>> rules = Rules(3, 3)
    >>> session, secret = make_code(rules), rules.parse("CAB")
    >>> while not session.is_over:
    ...     session.score(score(secret, session.guess()))
    >>> session.outcome().solved, str(session.outcome().secret)
    (True, 'CAB')
    """
    game = _rules(rules)
    whole_number(level, 1, "level")
    checked_seed(seed)
    if level > 4:
        raise InvalidArgumentError(f"level must be from 1 to 4, not {level!r}")
    session = SolveSession(game, level=level, seed=seed)
    if seed is not None:  # draws of its own, not those of keypeg.envs from the same seed (level 1's first
        import numpy as np  # guess was an environment's seed-s secret, 20 seeds of 20)

        session.strategy.restart(rng=np.random.default_rng((seed, SOLVER_TAG)))
    return session


if not TYPE_CHECKING:  # hidden from type checkers, so that a misspelt name is an error there

    def __getattr__(name: str) -> object:
        """The classes that load the kernels (:class:`Choice`, :class:`Ranked`, :class:`Figures`,
        :class:`SearchProgress`), imported on first use so that importing this module stays light."""
        if name in ("Choice", "Figures", "Ranked"):
            from keypeg import strategies

            value = getattr(strategies, name)
        elif name == "SearchProgress":
            from keypeg.strategies.optimal import SearchProgress

            value = SearchProgress
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value
        return value
