"""The daily puzzle: one secret per preset per UTC day, the same for every player, derived from a key
kept in the store (an HMAC of the day and the preset's name), so that nobody can work it out from the
date or the source. Each player has one attempt a day; the result is shared as a grid of key pegs that
shows how the game went without the secret. An attempt belongs to its day: once that UTC day has ended
it can no longer be won (a guess is refused, :class:`DayOverError`) and counts as not broken. The rules
only, with no store: the attempts, the day's board
and the streaks are :mod:`keypeg.services.daily`'s.

>>> from keypeg.variants import find_variant
>>> classic = find_variant("classic")
>>> key = bytes(32)
>>> daily_secret(key, "2026-11-23", classic) == daily_secret(key, "2026-11-23", classic)
True
>>> daily_secret(key, "2026-11-23", classic) == daily_secret(key, "2026-11-24", classic)
False
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence
from datetime import UTC, date, datetime

from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError, RefusedError
from keypeg.game import random_code
from keypeg.play.codemakers import DailyCodemaker
from keypeg.play.sessions import BreakSession, Session
from keypeg.variants import Variant

__all__ = [
    "KEY_NAME",
    "DayOverError",
    "today",
    "check_day",
    "over",
    "check_open",
    "attempt_day",
    "puzzle_name",
    "daily_secret",
    "daily_game",
    "share_grid",
]

KEY_NAME = "daily"
"""The name of the store's key the daily secrets come from."""


def today() -> str:
    """Today's date in UTC, ``YYYY-MM-DD``: the day of the puzzle."""
    return datetime.now(UTC).date().isoformat()


FIRST_DAY = date(2000, 1, 1)
"""No daily puzzle is older (a day before it is refused: counting a streak back from year 1 overflowed)."""


def check_day(text: str) -> str:
    """A day written ``YYYY-MM-DD``, from :data:`FIRST_DAY` (a usage error otherwise)."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise KeypegError(f"a day is written YYYY-MM-DD, not {text.strip()[:20]!r}") from None
    if day < FIRST_DAY:
        raise KeypegError(f"there is no daily puzzle before {FIRST_DAY.isoformat()}")
    return day.isoformat()


class DayOverError(RefusedError):
    """A move on a daily attempt after its UTC day has ended: it can no longer be won."""


def over(day: str) -> bool:
    """Whether the UTC day ``day`` has ended: an attempt at its puzzle can no longer be won, and one
    not finished by then counts as not broken."""
    return check_day(day) < today()


def check_open(day: str) -> None:
    """Refuse (:class:`DayOverError`) a move on an attempt at the puzzle of ``day`` once the day is over."""
    if over(day):
        raise DayOverError(
            f"the daily puzzle of {check_day(day)} is over: its day (UTC) has ended, so the attempt can no "
            "longer be won, and one not finished by then counts as not broken"
        )


def attempt_day(game: Session) -> str | None:
    """The day of the puzzle ``game`` is an attempt at (``None``: not a daily puzzle)."""
    codemaker = getattr(game, "codemaker", None)
    return codemaker.day if isinstance(codemaker, DailyCodemaker) else None


def puzzle_name(day: str, variant: Variant) -> str:
    """How the store names a puzzle: ``2026-11-23 classic``."""
    return f"{check_day(day)} {variant.name}"


def daily_secret(key: bytes, day: str, variant: Variant) -> Code:
    """The secret of ``variant``'s puzzle on ``day``: uniform over the preset's codes, and without the
    key unpredictable from the day and the name."""
    digest = hmac.new(key, f"keypeg daily|{check_day(day)}|{variant.name}".encode(), hashlib.sha256).digest()
    return random_code(variant.rules, random.Random(int.from_bytes(digest, "big")))


def daily_game(key: bytes, day: str, variant: Variant) -> BreakSession:
    """The puzzle of ``day`` as a game: no help, never on the general leaderboard (the daily board
    ranks it)."""
    return BreakSession(variant.rules, DailyCodemaker(daily_secret(key, day, variant), check_day(day)), helps=False)


def share_grid(day: str, variant: Variant, history: Sequence[tuple[object, Feedback]], solved: bool) -> str:
    """The result to share: a line per guess of its key pegs (black ●, white ○, none ·; a peg of a right
    colour ◆ under colours feedback), never a colour.

    >>> from keypeg.variants import find_variant
    >>> print(share_grid("2026-11-23", find_variant("classic"), [("x", Feedback(1, 2)), ("y", Feedback(4, 0))], True))
    keypeg daily 2026-11-23 classic: 2/12
    ●○○·
    ●●●●
    """
    rules = variant.rules
    result = f"{len(history)}/{rules.rows}" if solved else f"X/{rules.rows}"
    lines = [f"keypeg daily {day} {variant.name}: {result}"]
    lines.extend(rules.drawn(feedback) for _, feedback in history)
    return "\n".join(lines)
