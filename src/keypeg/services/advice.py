"""Advice on a game played elsewhere, for every face: the next guess of one strategy (``keypeg next``),
every advised strategy's best guesses (the web's Analyse page), and a level's hint (``keypeg hint``).

Each takes the rules, the scored guesses and a check that refuses work too costly for the face (the
command line's guard with ``--force``, the web's fixed budget), and says why there is no guess to make
by kind: scores no code fits are bad input, a broken code is refused, work over the budget too costly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from keypeg.code import Code, Feedback
from keypeg.errors import InconsistentHistoryError, RefusedError
from keypeg.rules import Rules

if TYPE_CHECKING:
    from keypeg.analysis.advice import Advice, Check, Make, Thinking
    from keypeg.strategies import Choice

__all__ = ["Hint", "analyse", "hint", "next_guess"]

History = Sequence[tuple[Code, Feedback]]


def _refuse_closed(rules: Rules, history: History, consistent: bool, mistake: Callable[[], str]) -> None:
    """Refuse advice after scores no code fits (``mistake`` names the likely one) or after the winning
    score."""
    if not consistent:
        raise InconsistentHistoryError(mistake())
    if history and history[-1][1] == rules.win:
        raise RefusedError(f"the code is already broken: {history[-1][0]}")


def next_guess(
    rules: Rules, history: History, name: str, *, top: int, check: Check, make: Make, thinking: Thinking
) -> Choice:
    """Strategy ``name``'s next guess after ``history`` with its ``top`` runners-up (``make`` builds the
    strategy with the conventions asked for, ``thinking`` wraps its decision): the codes that fit are
    checked, not counted, as a guess needs."""
    from keypeg.analysis.advice import advise
    from keypeg.analysis.cost import TooCostlyError
    from keypeg.strategies import playable

    advice = advise(
        rules, history, (name,), top=top, check=check, listed=1, make=make, thinking=thinking, counted=False
    )
    _refuse_closed(rules, advice.history, advice.consistency.consistent, advice.consistency.message)
    played, _ = playable(name, rules)
    refused = [reason for who, reason in advice.left_out if who == played]
    if refused:
        raise TooCostlyError(refused[0])
    (choice,) = advice.choices
    return choice


def analyse(rules: Rules, history: History, *, top: int, check: Check, listed: int) -> Advice:
    """The codes that fit ``history`` (``listed`` of them) and each advised strategy's ``top`` best
    guesses; scores no code fits are answered with the likely mistake, not refused (the Analyse page
    shows them), and a strategy too costly is left out with the reason."""
    from keypeg.analysis.advice import ADVISED, advise

    return advise(rules, history, ADVISED, top=top, check=check, listed=listed)


@dataclass(frozen=True)
class Hint:
    """What a level would play next, the codes that fit, and a note when another strategy plays."""

    guess: Code
    level: int
    candidates: int
    note: str | None


def hint(rules: Rules, history: History, level: int, *, seed: int | None = None) -> Hint:
    """The guess the computer's ``level`` would play after ``history``."""
    from keypeg.knowledge import Knowledge
    from keypeg.play.levels import LEVELS, advise_with, strategy_for

    knowledge = Knowledge(rules, tuple(history))
    _refuse_closed(rules, knowledge.history, knowledge.is_consistent, lambda: knowledge.check().message())
    strategy, note = strategy_for(LEVELS[level].strategy, rules, seed=seed)
    return Hint(advise_with(strategy, knowledge).guess, level, knowledge.count, note)
