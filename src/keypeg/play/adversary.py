"""An adversarial codemaker: it commits to no secret and answers so as to keep the most codes alive."""

from __future__ import annotations

import numpy as np

from keypeg.code import Code, Feedback
from keypeg.kernels import feedback_ordinal, ordinal_feedback
from keypeg.knowledge import Knowledge
from keypeg.rules import Rules

__all__ = ["Adversary"]


class Adversary:
    """Answers every guess with the score that leaves the most codes fitting (ties: the lowest score),
    so every answer is consistent and some secret always fits: the game stays fair."""

    def __init__(self, rules: Rules) -> None:
        self.knowledge = Knowledge(rules)

    def answer(self, guess: Code) -> Feedback:
        """Score ``guess`` and remember it."""
        space = self.knowledge.space
        feedbacks = space.feedbacks(space.index(guess), self.knowledge.candidates)
        counts = np.bincount(feedbacks, minlength=space.num_feedbacks)
        win = feedback_ordinal(self.knowledge.rules.win, space.pegs)
        if self.knowledge.count > 1:
            counts[win] = 0  # never concede while another code fits
        feedback = ordinal_feedback(int(np.argmax(counts)), space.pegs)
        self.knowledge = self.knowledge.add(guess, feedback)
        return feedback

    def secret(self) -> Code:
        """A secret that fits every answer given (the first)."""
        return self.knowledge.codes(1)[0]
