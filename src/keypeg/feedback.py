"""The plain-Python reference for scoring a guess; every fast kernel is tested against it."""

from __future__ import annotations

from collections import Counter

from keypeg.code import Code, Feedback
from keypeg.errors import InvalidCodeError
from keypeg.text import quoted

__all__ = ["score", "score_colors"]


def score_colors(secret: tuple[int, ...], guess: tuple[int, ...]) -> tuple[int, int]:
    """Black and white pegs for two equally long tuples of colour numbers.

    A guess peg earns a key peg only while the secret still has an unmatched peg
    of its colour: secret RRBB against guess RRRB scores 3 black, 0 white.
    """
    black = sum(s == g for s, g in zip(secret, guess, strict=True))
    secret_counts, guess_counts = Counter(secret), Counter(guess)
    common = sum(min(n, guess_counts[color]) for color, n in secret_counts.items())
    return black, common - black


def score(secret: Code, guess: Code) -> Feedback:
    """The feedback the codemaker gives for ``guess`` when the code is ``secret``, under the secret's rules'
    feedback (see :attr:`Rules.feedback`): ``Feedback(black, 0)`` under ``black``, ``Feedback(black + white, 0)``
    under ``colours``.

    >>> from keypeg import Rules
    >>> rules = Rules(4, 6)
    >>> score(rules.parse("AABB"), rules.parse("BBAB"))
    Feedback(black=1, white=2)
    """
    if not isinstance(secret, Code) or not isinstance(guess, Code):
        wrong = guess if isinstance(secret, Code) else secret
        raise InvalidCodeError(f"score takes two Codes (rules.parse(text) makes one), not {quoted(wrong)}")
    if len(secret.colors) != len(guess.colors) or len(guess.colors) != guess.rules.pegs:
        raise InvalidCodeError(f"cannot score {guess.colors} against {secret.colors}: not codes of the same length")
    if secret.rules.pegs != guess.rules.pegs or secret.rules.num_colors != guess.rules.num_colors:
        raise InvalidCodeError(f"cannot score {str(guess)!r} against {str(secret)!r}: they follow different rules")
    black, white = score_colors(secret.colors, guess.colors)
    if secret.rules.feedback == "black":
        return Feedback(black, 0)
    if secret.rules.feedback == "colours":
        return Feedback(black + white, 0)
    return Feedback(black, white)
