"""What the codebreaker knows: the scored guesses so far and the codes that still fit."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from keypeg.code import Code, Feedback
from keypeg.consistency import Consistency, check
from keypeg.errors import InvalidCodeError
from keypeg.kernels import CodeSpace, Index, feedback_ordinal
from keypeg.rules import Rules

__all__ = ["Knowledge"]


@dataclass(frozen=True, eq=False)
class Knowledge:
    """Scored guesses under some rules, with the fitting codes computed on demand.

    >>> from keypeg import Rules
    >>> rules = Rules(4, 6)
    >>> k = Knowledge.from_text(rules, ["AABB=1,0", "ACDE=0,2"])
    >>> k.count, k.is_consistent
    (51, True)
    """

    rules: Rules
    history: tuple[tuple[Code, Feedback], ...] = ()
    space: CodeSpace = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "space", CodeSpace.of(self.rules))
        for guess, feedback in self.history:
            if guess.rules.pegs != self.rules.pegs or guess.rules.num_colors != self.rules.num_colors:
                raise InvalidCodeError(f"guess {str(guess)!r} does not follow {self.rules.describe()}")
            self.rules.check_feedback(feedback)

    @classmethod
    def from_text(cls, rules: Rules, scored: Iterable[str]) -> Knowledge:
        """Knowledge from ``GUESS=B,W`` strings."""
        return cls(rules, tuple(rules.parse_scored(item) for item in scored))

    def add(self, guess: Code, feedback: Feedback) -> Knowledge:
        """This knowledge with one more scored guess."""
        return Knowledge(self.rules, (*self.history, (guess, feedback)))

    @cached_property
    def indexed(self) -> tuple[tuple[int, int], ...]:
        """The history as (code index, feedback ordinal) pairs, for the kernels."""
        return tuple((self.space.index(g), feedback_ordinal(f, self.rules.pegs)) for g, f in self.history)

    @cached_property
    def candidates(self) -> Index:
        """Indices of the codes that fit every scored guess, in order."""
        return self.space.consistent(self.indexed)

    @property
    def count(self) -> int:
        """How many codes fit."""
        return int(self.candidates.size)

    @property
    def is_consistent(self) -> bool:
        """Whether any code fits every score (if not, the codemaker scored wrongly)."""
        return self.count > 0

    @property
    def solved(self) -> bool:
        """Whether the last guess broke the code."""
        return bool(self.history) and self.history[-1][1] == self.rules.win

    def codes(self, limit: int | None = None) -> list[Code]:
        """The fitting codes (the first ``limit`` of them)."""
        return [self.space.code(int(i)) for i in self.candidates[:limit]]

    def check(self) -> Consistency:
        """Whether any code fits, and if none does, the scores most likely wrong."""
        return check(self.rules, self.history, method="enumeration")
