"""The public :class:`History` value: the scored guesses of one game, under its rules (standard library only).

>>> from keypeg import Rules
>>> history = History.parse(Rules(4, 6), ["AABB=1,0", "ACDE 0 2"])
>>> len(history), str(history.last[0]), history.last[1]
(2, 'ACDE', Feedback(black=0, white=2))
>>> str(history.add("FDEB", (1, 1)))
'AABB=1,0 ACDE=0,2 FDEB=1,1'
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from keypeg.code import Code, Feedback
from keypeg.errors import InvalidArgumentError, InvalidFeedbackError
from keypeg.rules import Rules
from keypeg.text import quoted

__all__ = ["History", "Move", "FeedbackLike", "with_equals"]

Move = tuple[Code, Feedback]
"""One scored guess: the guess and the codemaker's score of it."""
FeedbackLike = Feedback | tuple[int, int] | str
"""A score as :meth:`History.add` takes it: a :class:`Feedback`, a ``(black, white)`` pair, or text as
:meth:`Rules.parse_feedback` reads it (``"2,1"``, ``"2b1w"``; ``"2"`` under black or colours feedback)."""


def with_equals(text: str) -> str:
    """A scored guess written with its score apart, ``GUESS B W`` or ``GUESS SCORE`` (the guess may have
    spaces: ``A B C C 1 1``), as ``GUESS=B,W`` / ``GUESS=SCORE`` for :meth:`Rules.parse_scored`; text with
    ``=``, or of one word, unchanged.

    >>> with_equals("A B C C 1 1"), with_equals("AABB 1b2w"), with_equals("AABB=1,0")
    ('A B C C=1,1', 'AABB=1b2w', 'AABB=1,0')
    """
    words = text.split()
    if "=" in text or len(words) < 2:
        return text
    if len(words) >= 3 and words[-1].isdigit() and words[-2].isdigit():
        return f"{' '.join(words[:-2])}={words[-2]},{words[-1]}"
    return f"{' '.join(words[:-1])}={words[-1]}"


def read_feedback(rules: Rules, feedback: object) -> Feedback:
    """``feedback`` (a :class:`Feedback`, a pair or text) as a score that can happen under ``rules``;
    anything else raises :class:`InvalidFeedbackError` (the one reader of a score a person gives)."""
    if isinstance(feedback, Feedback):
        return rules.check_feedback(feedback)
    if isinstance(feedback, str):
        return rules.parse_feedback(feedback)
    if isinstance(feedback, tuple) and len(feedback) == 2:
        try:
            black, white = (operator.index(n) for n in feedback)
        except TypeError:
            raise InvalidFeedbackError(f"a score counts key pegs in whole numbers, not {quoted(feedback)}") from None
        return rules.check_feedback(Feedback(black, white))
    raise InvalidFeedbackError(f"a score is a Feedback, a (black, white) pair or text ('2,1'), not {quoted(feedback)}")


@dataclass(frozen=True)
class History(Sequence[Move]):
    """The scored guesses of one game so far, oldest first; an immutable value (a sequence of moves:
    ``len``, iteration, ``history[i]``; a slice is a tuple of moves).

    Args:
        rules: the game's rules.
        moves: ``(guess, feedback)`` pairs; a guess is a :class:`Code` or text in the rules' symbols, a
            feedback a :class:`Feedback`, a ``(black, white)`` pair or text (see :data:`FeedbackLike`).

    A bad guess raises :class:`~keypeg.errors.InvalidCodeError`, an impossible score
    :class:`~keypeg.errors.InvalidFeedbackError`. Scores that no secret fits together are accepted here
    (a history is what was said); :func:`keypeg.check` finds the likely mistake. A history is not a game:
    it takes moves past the rules' rows, and after a winning score (then :attr:`solved` is False again, and
    :func:`keypeg.check` finds the scores inconsistent); a game (:func:`keypeg.break_code`) refuses both.

    >>> from keypeg import Rules
    >>> rules = Rules(3, 3)
    >>> history = History(rules).add("AAB", "1,1").add(rules.parse("BCA"), (0, 3))
    >>> [(str(guess), str(feedback)) for guess, feedback in history]
    [('AAB', '1,1'), ('BCA', '0,3')]
    >>> history.solved, History(rules).last
    (False, None)
    """

    rules: Rules
    moves: tuple[Move, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise InvalidArgumentError(f"a history's rules must be a Rules, not {quoted(self.rules)}")
        if isinstance(self.moves, str) or not isinstance(self.moves, Iterable):
            raise InvalidArgumentError(
                f"a history's moves are (guess, feedback) pairs (History.parse reads text), not {quoted(self.moves)}"
            )
        moves = []
        for move in self.moves:
            if not isinstance(move, (tuple, list)) or len(move) != 2:
                raise InvalidArgumentError(f"a move is a (guess, feedback) pair, not {quoted(move)}")
            moves.append((self.rules.adopt(move[0]), read_feedback(self.rules, move[1])))
        object.__setattr__(self, "moves", tuple(moves))

    @classmethod
    def parse(cls, rules: Rules, scored: Iterable[str] | str) -> History:
        """A history from scored guesses written ``GUESS=B,W`` (``"AABB=1,0"``; ``"AABB 1 0"`` too), a list
        of them or one string separated by spaces or commas between moves (``"AABB=1,0 ACDE=0,2"``).

        >>> from keypeg import Rules
        >>> len(History.parse(Rules(4, 6), "AABB=1,0 ACDE=0,2"))
        2
        """
        items = scored.split() if isinstance(scored, str) else list(scored)
        return cls(rules, tuple(rules.parse_scored(with_equals(item.strip())) for item in items))

    def add(self, guess: Code | str, feedback: FeedbackLike) -> History:
        """This history with one more scored guess (a new value; this one is unchanged)."""
        return History(self.rules, (*self.moves, (self.rules.adopt(guess), read_feedback(self.rules, feedback))))

    def __len__(self) -> int:
        return len(self.moves)

    def __iter__(self) -> Iterator[Move]:
        return iter(self.moves)

    @overload
    def __getitem__(self, index: int) -> Move: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Move, ...]: ...
    def __getitem__(self, index: int | slice) -> Move | tuple[Move, ...]:
        return self.moves[index]

    def __str__(self) -> str:
        return " ".join(f"{guess}={self.rules.key(feedback)}" for guess, feedback in self.moves)

    @property
    def last(self) -> Move | None:
        """The last scored guess, or ``None`` before the first."""
        return self.moves[-1] if self.moves else None

    @property
    def guesses(self) -> tuple[Code, ...]:
        """The guesses, oldest first."""
        return tuple(guess for guess, _ in self.moves)

    @property
    def solved(self) -> bool:
        """Whether the last guess broke the code (scored all black)."""
        return bool(self.moves) and self.moves[-1][1] == self.rules.win
