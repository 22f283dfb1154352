"""The next guess after scored guesses, and the figures behind it: what ``keypeg next`` and the web's
Analyse page share.

Every step that may be big is guarded first by a check handed in: :func:`keypeg.analysis.cost.guard`
with the command line's ``--force``, or the web's fixed :class:`~keypeg.analysis.cost.Budget`. A check
refuses with :class:`~keypeg.analysis.cost.TooCostlyError`.

>>> from keypeg import Rules
>>> from keypeg.analysis.cost import Budget
>>> rules = Rules(4, 6)
>>> advice = advise(rules, read_scored(rules, ["AABB 1 0", "ACDE=0,2"]), top=1, check=Budget(10, 2**30, "allowed"))
>>> advice.consistency.count, [(c.strategy, str(c.guess)) for c in advice.choices][:2]
(51, [('worst-case', 'FDEB'), ('expected-size', 'FDEB')])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from keypeg.analysis.cost import (
    GENETIC_SECONDS_PER_SECRET,
    Estimate,
    TooCostlyError,
    consistency_cost,
    next_cost,
    suspects_cost,
)
from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError
from keypeg.history import with_equals
from keypeg.limits import DEFAULT_COUNT_LIMIT, ENUMERATE_LIMIT, SUSPECT_SEARCH_LIMIT
from keypeg.rules import Rules
from keypeg.text import plural, quoted

if TYPE_CHECKING:
    from keypeg.consistency import Consistency
    from keypeg.knowledge import Knowledge
    from keypeg.strategies import Choice, Strategy

__all__ = [
    "ADVISED",
    "Advice",
    "Check",
    "Make",
    "Thinking",
    "advise",
    "decision_cost",
    "enumeration_cost",
    "read_scored",
]

Check = Callable[[Estimate], None]
"""A guard: returns when the work may go ahead, raises :class:`TooCostlyError` when not."""

ADVISED = ("worst-case", "expected-size", "entropy", "most-parts", "simple")
"""The strategies the Analyse page asks (Knuth, Irving, Neuwirth, Kooi, and the simple one)."""

Scored = tuple[tuple[Code, Feedback], ...]


def read_scored(rules: Rules, lines: Iterable[str]) -> list[tuple[Code, Feedback]]:
    """Scored guesses, one a line, blank lines skipped: ``GUESS=B,W`` as the command line takes them
    (:meth:`Rules.parse_scored`), or the guess and its score apart: ``GUESS B W``, ``GUESS B,W``,
    ``GUESS 2b1w``. An error names the line.

    >>> rules = Rules(4, 6)
    >>> [f"{g}={f}" for g, f in read_scored(rules, ["AABB=1,0", "  ", "abcd 0 2", "A B C C 1,1", "CCDD 1b2w"])]
    ['AABB=1,0', 'ABCD=0,2', 'ABCC=1,1', 'CCDD=1,2']
    """
    found = []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        try:
            if "=" not in text and len(text.split()) < 2:
                raise KeypegError(
                    f"cannot read {quoted(text)}: write a guess and its score, e.g. 'AABB 1 0' or 'AABB=1,0'"
                )
            found.append(rules.parse_scored(with_equals(text)))
        except KeypegError as error:
            raise type(error)(f"line {number}: {error}") from None
    return found


def enumeration_cost(rules: Rules, strategy: str = "worst-case") -> Estimate:
    """The memory of enumerating the codes for ``strategy``'s next guess (its time comes with the
    decision: :func:`decision_cost`)."""
    return replace(next_cost(rules, strategy), seconds=0.0)


def decision_cost(strategy: Strategy, knowledge: Knowledge) -> Estimate | None:
    """What ``strategy``'s decision after ``knowledge`` will take (``None`` for the optimal strategy when
    a saved tree answers it, without a search)."""
    from keypeg.strategies.base import Position

    searches = getattr(strategy, "searches", None)
    if strategy.name != "optimal" or (searches is not None and searches(Position.from_knowledge(knowledge))):
        return next_cost(knowledge.rules, strategy.name, knowledge.count)
    return None


@dataclass(frozen=True)
class Advice:
    """The analysis of a position: the codes that fit (or the likely mistake), and each strategy's next
    guess with its figures."""

    rules: Rules
    history: Scored
    consistency: Consistency
    """The count of fitting codes (a lower bound on games too large to enumerate), the first of them, and
    when none fits, the likely mistakes."""
    choices: tuple[Choice, ...]
    """The strategies' choices, in the order asked (none when no code fits or the code is broken)."""
    left_out: tuple[tuple[str, str], ...]
    """Strategies asked but not answered, with why (too costly for the rules)."""

    @property
    def solved(self) -> bool:
        """Whether the last guess broke the code."""
        return bool(self.history) and self.history[-1][1] == self.rules.win


Make = Callable[[str], "Strategy"]
"""Makes the strategy of a name, with the conventions asked for (by default each strategy's own)."""
Thinking = Callable[["Strategy", "int | None"], AbstractContextManager[object]]
"""Around each strategy's decision, given the strategy and the codes that fit (``None`` when not counted):
a face's spinner, or its note that another strategy plays."""


def advise(
    rules: Rules,
    history: Sequence[tuple[Code, Feedback]],
    names: Sequence[str] = ADVISED,
    *,
    top: int,
    check: Check,
    listed: int = DEFAULT_COUNT_LIMIT,
    make: Make | None = None,
    thinking: Thinking | None = None,
    counted: bool = True,
) -> Advice:
    """The codes that fit ``history`` (``listed`` of them), and each strategy of ``names`` ranking its
    best ``top`` guesses. Work the check refuses for counting the codes raises; a strategy it refuses is
    left out with the reason. On games too large to score every code, the genetic codebreaker answers
    for all (:func:`keypeg.strategies.playable`); with ``counted`` false, the codes that fit are there
    only checked, not counted (none checked before the first score), as ``keypeg next`` needs.
    ``make`` builds each strategy (default: with its own conventions), ``thinking`` wraps each decision."""
    from keypeg.strategies import make_strategy, scores_every_code

    build: Make = make or make_strategy
    around: Thinking = thinking or (lambda strategy, fitting: nullcontext())
    scored: Scored = tuple((rules.adopt(g), rules.check_feedback(f)) for g, f in history)
    if not scores_every_code(rules):
        return _unenumerated(rules, scored, names, top, check, listed, build, around, counted)
    check(enumeration_cost(rules, names[0] if len(names) == 1 else "worst-case"))
    from keypeg.consistency import Consistency
    from keypeg.knowledge import Knowledge

    knowledge = Knowledge(rules, scored)
    if not knowledge.is_consistent:
        return Advice(rules, scored, _mistakes(rules, scored, check), (), ())
    codes = knowledge.codes(listed)
    found = Consistency(True, knowledge.count, False, codes[0], codes=codes)
    if knowledge.solved:
        return Advice(rules, scored, found, (), ())
    choices, left_out = [], []
    for name in names:
        strategy = build(name)
        try:
            cost = decision_cost(strategy, knowledge)
            if cost is not None:
                check(cost)
            with around(strategy, knowledge.count):
                choices.append(strategy.rank(knowledge, top=top))
        except TooCostlyError as refused:
            left_out.append((strategy.name, str(refused)))
    return Advice(rules, scored, found, tuple(choices), tuple(left_out))


def _mistakes(rules: Rules, history: Scored, check: Check) -> Consistency:
    """The consistency check of a history no code fits, looking for the likely mistakes as far as the
    check allows: every set of scores the search may leave out, else every single score, else none."""
    from keypeg.consistency import check as check_history

    tiers, tried = [], 0
    for changes in range(1, len(history) + 1):
        tried += math.comb(len(history), changes)
        if tried > SUSPECT_SEARCH_LIMIT:
            break
        tiers.append(tried)
    for sets in [*reversed(tiers), 0]:
        try:
            check(suspects_cost(rules, len(history), sets))
        except TooCostlyError:
            continue
        method = "enumeration" if rules.size <= ENUMERATE_LIMIT else "cp-sat"
        return check_history(rules, history, limit=1, method=method, search_limit=sets)
    raise AssertionError("an empty search costs nothing")  # pragma: no cover


def _unenumerated(
    rules: Rules,
    history: Scored,
    names: Sequence[str],
    top: int,
    check: Check,
    listed: int,
    build: Make,
    around: Thinking,
    counted: bool,
) -> Advice:
    """A game too large to score every code: the codes that fit counted up to a limit (the kernels, or
    the constraint solver above :data:`~keypeg.limits.ENUMERATE_LIMIT` codes), and the genetic
    codebreaker's guess, which samples them."""
    from keypeg.consistency import Consistency
    from keypeg.consistency import check as check_history
    from keypeg.knowledge import Knowledge
    from keypeg.strategies import playable

    limit = max(listed, DEFAULT_COUNT_LIMIT)
    check(consistency_cost(rules, len(history), limit))
    strategy = build("genetic")  # its conventions refused before any work
    if counted or history:
        consistency = check_history(rules, history, limit=limit if counted else 1, search_limit=0)
    else:
        consistency = Consistency(True, rules.size, False, None)  # nothing to check before the first score
    if not consistency.consistent and consistency.method == "enumeration":
        consistency = _mistakes(rules, history, check)
    consistency = replace(consistency, codes=consistency.codes[:listed])
    too_many = f"{plural(rules.size, 'code')} are too many to score them all: the genetic codebreaker answers"
    left_out = tuple((name, too_many) for name in names if playable(name, rules)[0] != name)
    if not consistency.consistent or (history and history[-1][1] == rules.win):
        return Advice(rules, history, consistency, (), ())
    try:
        check(Estimate(f"the genetic guess on {rules.describe()}", 0, GENETIC_SECONDS_PER_SECRET * 60))
        with around(strategy, None):
            choice = strategy.rank(Knowledge(rules, history), top=top)
    except TooCostlyError as refused:
        return Advice(rules, history, consistency, (), (*left_out, ("genetic", str(refused))))
    return Advice(rules, history, consistency, (choice,), left_out)
