"""Value objects: a :class:`Code` (a row of coloured pegs) and its :class:`Feedback`."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from keypeg.errors import InvalidFeedbackError
from keypeg.text import quoted

if TYPE_CHECKING:
    from keypeg.rules import Rules

__all__ = ["Code", "Feedback"]


@dataclass(frozen=True, slots=True, eq=False)
class Code:
    """A code of a rule set: one colour number per peg, ``0`` being the first colour.

    Build codes with :meth:`Rules.parse` (which validates them) rather than directly.

    >>> from keypeg import Rules
    >>> code = Rules(4, 6).parse("aabc")
    >>> str(code), code.colors
    ('AABC', (0, 0, 1, 2))
    """

    colors: tuple[int, ...]
    rules: Rules
    """The rules the code was written under (how it prints). Two codes are equal when they have the
    same colours in the same game (:attr:`Rules.game`), whatever their symbols or rows."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Code):
            return NotImplemented
        return self.colors == other.colors and self.rules.game == other.rules.game

    def __hash__(self) -> int:
        return hash((self.colors, self.rules.game))

    def __str__(self) -> str:
        return self.rules.format(self.colors)

    def __repr__(self) -> str:
        return f"Code({self.colors!r}, {self.rules!r})"

    def __len__(self) -> int:
        return len(self.colors)


_FEEDBACK_PATTERNS = (
    re.compile(r"^\s*(\d+)\s*[,/ ]\s*(\d+)\s*$"),
    re.compile(r"^\s*(\d+)\s*b\s*,?\s*(\d+)\s*w\s*$", re.IGNORECASE),
    re.compile(r"^\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*$"),
)


@dataclass(frozen=True, slots=True, order=True)
class Feedback:
    """A score: ``black`` pegs (right colour, right place), ``white`` (right colour, wrong place).

    >>> Feedback.parse("2b1w")
    Feedback(black=2, white=1)
    >>> str(Feedback(3, 0))
    '3,0'
    """

    black: int
    white: int

    def __post_init__(self) -> None:
        for name in ("black", "white"):
            count = getattr(self, name)
            try:
                object.__setattr__(self, name, operator.index(count))  # numpy integers become ints
            except TypeError:
                raise InvalidFeedbackError(f"a score counts key pegs in whole numbers, not {quoted(count)}") from None
        if self.black < 0 or self.white < 0:
            raise InvalidFeedbackError(
                f"a score cannot be negative: {quoted(self.black)} black, {quoted(self.white)} white"
            )

    def __str__(self) -> str:
        return f"{self.black},{self.white}"

    @classmethod
    def parse(cls, text: str) -> Feedback:
        """Read a score written ``2,1``, ``2 1``, ``2/1``, ``(2, 1)`` or ``2b1w``.

        Digits of any script count (Arabic-Indic or full-width ``2,1`` is 2 black, 1 white); anything else
        raises :class:`InvalidFeedbackError`.
        """
        if not isinstance(text, str):
            raise InvalidFeedbackError(f"a score must be text, got {quoted(text)}")
        for pattern in _FEEDBACK_PATTERNS:
            match = pattern.match(text)
            if match:
                return cls(_count(match.group(1), text), _count(match.group(2), text))
        raise InvalidFeedbackError(f"cannot read the score {quoted(text)}: write black and white as '2,1' or '2b1w'")

    @classmethod
    def parse_single(cls, text: str, suffix: str) -> Feedback | None:
        """Read a score of one number, ``2`` or ``2`` followed by ``suffix`` (``2b``), as ``Feedback(2, 0)``;
        ``None`` if ``text`` is not written so."""
        if not isinstance(text, str):
            raise InvalidFeedbackError(f"a score must be text, got {quoted(text)}")
        match = re.match(rf"^\s*(\d+)\s*(?:{re.escape(suffix)})?\s*$", text, re.IGNORECASE)
        return None if match is None else cls(_count(match.group(1), text), 0)


def _count(digits: str, text: str) -> int:
    """A number of key pegs written in decimal digits of any script; refused when absurdly long
    (Python will not even read a number of more than 4300 digits)."""
    significant = digits.lstrip("0") or "0"
    if len(significant) > _MAX_COUNT_DIGITS:
        raise InvalidFeedbackError(f"cannot read the score {quoted(text)}: {quoted(digits, 20)} key pegs is too many")
    return int(significant)


_MAX_COUNT_DIGITS = 6
