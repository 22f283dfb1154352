"""Codemakers: who holds the secret and scores the guesses.

Four kinds behind one protocol: a random secret (from the operating system's
unpredictable source unless a seed is asked for), a fixed secret (given by a person or
a test), the daily puzzle's secret (the same for everyone on a day, from the store's key),
and an adversary that commits to no secret and keeps the most codes alive.
A codemaker never shows its secret before the game is over: :meth:`Codemaker.reveal`
is for the end of the game, and what is saved of it splits into a public part and a
private part (the secret) that only the store's private side keeps.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, Protocol

from keypeg.code import Code, Feedback
from keypeg.errors import IllegalMoveError, KeypegError
from keypeg.feedback import score
from keypeg.game import random_code
from keypeg.rules import Rules

__all__ = [
    "Codemaker",
    "RandomCodemaker",
    "FixedCodemaker",
    "DailyCodemaker",
    "AdversarialCodemaker",
    "codemaker_from_state",
]


class Codemaker(Protocol):
    """Scores guesses against a secret it keeps to itself."""

    kind: ClassVar[str]
    """``random``, ``fixed`` or ``adversarial``."""

    @property
    def unpredictable(self) -> bool:
        """Whether nobody could know the secret in advance (drawn from an unpredictable source)."""

    def answer(self, guess: Code) -> Feedback:
        """Score ``guess``."""

    def take_back(self) -> None:
        """Forget the last guess answered (an undo)."""

    def reveal(self) -> Code:
        """The secret, for the end of the game."""

    def public_state(self) -> dict[str, Any]:
        """What may be saved and shown: never the secret."""

    def hidden(self) -> Code | None:
        """The secret, for the store's private side only (``None`` when there is none yet)."""


class _SecretHolder:
    """A codemaker with a secret chosen before the first guess."""

    kind: ClassVar[str]

    def __init__(self, secret: Code) -> None:
        self._secret = secret

    def answer(self, guess: Code) -> Feedback:
        return score(self._secret, guess)

    def take_back(self) -> None:
        return None

    def reveal(self) -> Code:
        return self._secret

    def hidden(self) -> Code | None:
        return self._secret


class RandomCodemaker(_SecretHolder):
    """A uniformly random secret; :meth:`draw` makes one."""

    kind: ClassVar[str] = "random"

    def __init__(self, secret: Code, *, seeded: bool) -> None:
        super().__init__(secret)
        self.seeded = seeded

    @classmethod
    def draw(cls, rules: Rules, seed: int | random.Random | None = None) -> RandomCodemaker:
        """A secret from the operating system's unpredictable source, or from ``seed`` (a number or a
        generator) when one is given: then the same seed gives the same secret, and it is not unpredictable."""
        source = random.SystemRandom() if seed is None else seed if isinstance(seed, random.Random) else None
        if source is None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise KeypegError(f"a seed is a whole number from 0, not {seed!r}")
            source = random.Random(seed)
        return cls(random_code(rules, source), seeded=seed is not None)

    @property
    def unpredictable(self) -> bool:
        return not self.seeded

    def public_state(self) -> dict[str, Any]:
        return {"kind": self.kind, "seeded": self.seeded}


class FixedCodemaker(_SecretHolder):
    """A secret given from outside: set by a person, or by a test."""

    kind: ClassVar[str] = "fixed"

    @property
    def unpredictable(self) -> bool:
        return False

    def public_state(self) -> dict[str, Any]:
        return {"kind": self.kind}


class DailyCodemaker(_SecretHolder):
    """The daily puzzle's secret: the same for every player on one day, derived from a key only the
    store knows (:mod:`keypeg.play.daily`), so that nobody can know it in advance."""

    kind: ClassVar[str] = "daily"

    def __init__(self, secret: Code, day: str, *, cut_off: bool = False) -> None:
        super().__init__(secret)
        self.day = day
        """The UTC day of the puzzle, ``YYYY-MM-DD``."""
        self.cut_off = cut_off
        """Whether the attempt was closed, not broken, by the end of its day."""

    def answer(self, guess: Code) -> Feedback:
        """Score ``guess``, on the puzzle's day only (:class:`~keypeg.play.daily.DayOverError` after it:
        an attempt belongs to its day)."""
        from keypeg.play import daily  # the day's rules and clock (that module builds on this one)

        daily.check_open(self.day)
        return super().answer(guess)

    @property
    def unpredictable(self) -> bool:
        return True

    def public_state(self) -> dict[str, Any]:
        return {"kind": self.kind, "day": self.day, **({"cut_off": True} if self.cut_off else {})}


class AdversarialCodemaker:
    """Answers every guess with the score that leaves the most codes fitting (ties: the lowest score),
    so every answer is consistent and some secret always fits: the game stays fair."""

    kind: ClassVar[str] = "adversarial"

    def __init__(self, rules: Rules) -> None:
        from keypeg.knowledge import Knowledge

        self.knowledge = Knowledge(rules)
        if not self.knowledge.enumerable:
            raise KeypegError(f"the adversary needs a game it can enumerate; {rules.size:,} codes are too many")

    @property
    def unpredictable(self) -> bool:
        return True

    def answer(self, guess: Code) -> Feedback:
        import numpy as np

        from keypeg.kernels import ordinal_feedback

        space = self.knowledge.space
        feedbacks = space.feedbacks(space.index(guess), self.knowledge.candidates)
        counts = np.bincount(feedbacks, minlength=space.num_feedbacks)
        if self.knowledge.count > 1:
            counts[space.win] = 0  # never concede while another code fits
        feedback = ordinal_feedback(int(np.argmax(counts)), space.pegs)
        self.knowledge = self.knowledge.add(guess, feedback)
        return feedback

    def take_back(self) -> None:
        raise IllegalMoveError("the adversary does not take guesses back")

    def reveal(self) -> Code:
        """A secret that fits every answer given (the first)."""
        return self.knowledge.codes(1)[0]

    def public_state(self) -> dict[str, Any]:
        return {"kind": self.kind}

    def hidden(self) -> Code | None:
        return None


def codemaker_from_state(
    rules: Rules, state: dict[str, Any], secret: Code | None, history: list[tuple[Code, Feedback]]
) -> Codemaker:
    """The codemaker that :meth:`Codemaker.public_state` and :meth:`Codemaker.hidden` describe, after
    ``history``; a damaged state raises :class:`KeypegError`."""
    kind = state.get("kind")
    if kind == "adversarial":
        maker = AdversarialCodemaker(rules)
        for guess, feedback in history:
            maker.knowledge = maker.knowledge.add(guess, feedback)
        return maker
    if secret is None or kind not in ("random", "fixed", "daily"):
        raise KeypegError(f"damaged game state: a {kind!r} codemaker without its secret")
    if kind == "fixed":
        return FixedCodemaker(secret)
    if kind == "daily":
        return DailyCodemaker(secret, str(state.get("day", ""))[:10], cut_off=state.get("cut_off") is True)
    return RandomCodemaker(secret, seeded=bool(state.get("seeded", True)))
