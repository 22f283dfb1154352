"""The coach: how good was a guess, in expected guesses still needed, with a one-line rating."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from keypeg.analysis.tree import build_tree
from keypeg.code import Code, Feedback
from keypeg.kernels import Index
from keypeg.knowledge import Knowledge
from keypeg.limits import COACH_EXACT_LIMIT
from keypeg.rules import Rules
from keypeg.strategies import make_strategy, partition_figures, scores_every_code
from keypeg.strategies.base import Position

__all__ = ["Review", "review", "review_history", "RATINGS"]


RATINGS = ((0.0, "best known"), (0.05, "excellent"), (0.15, "good"), (0.35, "inaccuracy"), (0.75, "mistake"))
"""Rating by the extra expected guesses a move costs against the best guess the coach knows, in the
figures as shown (two decimals); worse than the last is a blunder. A guess that breaks the code is
rated ``solved``, whatever its figures."""


@dataclass(frozen=True)
class Review:
    """The coach's view of one guess."""

    guess: Code
    before: int
    """Codes that fitted before the guess."""
    after: int
    """Codes that fit after its score."""
    could_win: bool
    """Whether the guess could have been the secret."""
    solved: bool
    """Whether the guess broke the code."""
    expected: float
    """Expected guesses still needed after playing it (this one included)."""
    best: Code
    """The best guess the coach knows: its heuristic's pick, or the guess itself when that does better."""
    best_expected: float
    measure: str
    """``guesses`` (played out with the best heuristic) or ``expected size`` (large games)."""

    @property
    def loss(self) -> float:
        """Extra expected guesses compared with the best guess known, as the figures are shown."""
        return round(_shown(self.expected) - _shown(self.best_expected), 2)

    @property
    def rating(self) -> str:
        """solved, or by the loss: best known, excellent, good, inaccuracy, mistake or blunder."""
        if self.solved:
            return "solved"
        return next((name for limit, name in RATINGS if self.loss <= limit), "blunder")

    def line(self) -> str:
        """The one-line review."""
        fits = "could have been the secret" if self.could_win else "could not have been the secret"
        if self.solved:
            fits = "was the secret"
        unit = "guesses" if self.measure == "guesses" else "codes left"
        codes = "code" if self.after == 1 else "codes"
        text = f"{self.rating}: {self.before:,} -> {self.after:,} {codes}; {self.guess} {fits}; "
        text += f"expected {unit} {self.expected:.2f}"
        if self.best != self.guess and not self.solved:  # a guess that broke the code needs no better one
            text += f", best known {self.best} {self.best_expected:.2f}"
        return text


def _shown(figure: float) -> float:
    """A figure as the review shows it: to two decimals."""
    return float(f"{figure:.2f}")


def _expected_guesses(knowledge: Knowledge, guess: int, candidates: Index) -> float:
    """Expected guesses to finish (this guess included) playing ``guess`` now, then the best heuristic."""
    space = knowledge.space
    strategy = make_strategy("most-parts")
    feedbacks = space.feedbacks(guess, candidates)
    total = float(candidates.size)  # every secret sees this guess
    win = knowledge.rules.pegs * (knowledge.rules.pegs + 1)
    for value in np.unique(feedbacks).tolist():
        if value == win:
            continue
        part = candidates[feedbacks == value]
        history = (*knowledge.indexed, (guess, value))
        total += build_tree(strategy, knowledge.rules, secrets=part, history=history).stats.total
    return total / candidates.size


def review(before: Knowledge, guess: Code, feedback: Feedback) -> Review:
    """Review ``guess``, scored ``feedback``, played after ``before`` (whose scores must fit some code)."""
    space = before.space
    candidates = before.candidates
    index = space.index(guess)
    after = before.add(guess, feedback).count
    could_win = bool(np.isin(index, candidates))
    strategy = make_strategy("most-parts")
    choice = strategy.rank(Position.from_knowledge(before))
    pick = choice.index if choice.index is not None else space.index(choice.guess)
    if candidates.size <= COACH_EXACT_LIMIT:
        mine = _expected_guesses(before, index, candidates)
        theirs = mine if pick == index else _expected_guesses(before, pick, candidates)
        measure = "guesses"
    else:
        theirs = choice.chosen.expected_size
        mine = theirs if pick == index else partition_figures(space, [index], candidates)[0].expected_size
        measure = "expected size"
    best, theirs = (guess, mine) if mine < theirs else (choice.guess, theirs)
    solved = feedback == before.rules.win
    return Review(guess, int(candidates.size), after, could_win, solved, mine, best, theirs, measure)


def review_history(rules: Rules, history: Sequence[tuple[Code, Feedback]]) -> list[Review | None]:
    """The coach's view of each guess of a game played as codebreaker (``None`` where no review can be
    made: a game too large to review, or scores that no code fits)."""
    reviews: list[Review | None] = []
    for k, (guess, feedback) in enumerate(history):
        before = Knowledge(rules, tuple(history[:k]))
        reviewable = scores_every_code(rules) and before.is_consistent
        reviews.append(review(before, guess, feedback) if reviewable else None)
    return reviews
