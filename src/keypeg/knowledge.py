"""What the codebreaker knows: the scored guesses so far and the codes that still fit."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from keypeg.code import Code, Feedback
from keypeg.consistency import Consistency, check
from keypeg.kernels import CodeSpace, Index, feedback_ordinal
from keypeg.limits import MAX_SPACE
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

    def __post_init__(self) -> None:
        history = tuple(
            (self.rules.adopt(guess), self.rules.check_feedback(feedback)) for guess, feedback in self.history
        )
        object.__setattr__(self, "history", history)

    @classmethod
    def from_text(cls, rules: Rules, scored: Iterable[str]) -> Knowledge:
        """Knowledge from ``GUESS=B,W`` strings."""
        return cls(rules, tuple(rules.parse_scored(item) for item in scored))

    def add(self, guess: Code, feedback: Feedback) -> Knowledge:
        """This knowledge with one more scored guess."""
        return Knowledge(self.rules, (*self.history, (guess, feedback)))

    @cached_property
    def space(self) -> CodeSpace:
        """The enumerated code space (:class:`~keypeg.errors.TooLargeError` for very large rule sets)."""
        return CodeSpace.of(self.rules)

    @property
    def enumerable(self) -> bool:
        """Whether the code space is small enough to enumerate."""
        return self.rules.size <= MAX_SPACE

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
        """How many codes fit (for rule sets too large to enumerate, counted up to a limit)."""
        return int(self.candidates.size) if self.enumerable else self.check().count

    @property
    def is_consistent(self) -> bool:
        """Whether any code fits every score (if not, the codemaker scored wrongly)."""
        return self.count > 0 if self.enumerable else self.check().consistent

    @property
    def solved(self) -> bool:
        """Whether the last guess broke the code."""
        return bool(self.history) and self.history[-1][1] == self.rules.win

    def codes(self, limit: int | None = None) -> list[Code]:
        """The fitting codes (the first ``limit`` of them)."""
        return [self.space.code(int(i)) for i in self.candidates[:limit]]

    def check(self) -> Consistency:
        """Whether any code fits, and if none does, the scores most likely wrong (cached)."""
        if "_check" not in self.__dict__:
            method = "enumeration" if self.enumerable else "cp-sat"
            self.__dict__["_check"] = check(self.rules, self.history, method=method)
        result: Consistency = self.__dict__["_check"]
        return result
