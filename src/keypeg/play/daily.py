"""The daily puzzle: one secret per preset per UTC day, the same for every player, derived from a key
kept in the store (an HMAC of the day and the preset's name), so that nobody can work it out from the
date or the source. Each player has one attempt a day; the result is shared as a grid of key pegs that
shows how the game went without the secret.

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
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError
from keypeg.game import random_code
from keypeg.play.codemakers import DailyCodemaker
from keypeg.play.sessions import BreakSession
from keypeg.variants import Variant

if TYPE_CHECKING:
    from keypeg.services.recording import GameKeeper
    from keypeg.store import GameRecord, Store

__all__ = [
    "KEY_NAME",
    "today",
    "check_day",
    "puzzle_name",
    "daily_secret",
    "daily_game",
    "attempt",
    "start_daily",
    "DailyResult",
    "daily_board",
    "streak",
    "share_grid",
]

KEY_NAME = "daily"
"""The name of the store's key the daily secrets come from."""


def today() -> str:
    """Today's date in UTC, ``YYYY-MM-DD``: the day of the puzzle."""
    return datetime.now(UTC).date().isoformat()


def check_day(text: str) -> str:
    """A day written ``YYYY-MM-DD`` (a usage error otherwise)."""
    try:
        return date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        raise KeypegError(f"a day is written YYYY-MM-DD, not {text.strip()[:20]!r}") from None


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


def attempt(store: Store, player: str, variant: Variant, day: str | None = None) -> GameRecord | None:
    """``player``'s attempt at the puzzle of ``variant`` on ``day`` (today by default), if they made one."""
    found = store.daily.games(puzzle_name(day or today(), variant), player)
    return found[0] if found else None


def start_daily(
    store: Store, player: str, variant: Variant, *, public_id: str | None = None
) -> tuple[BreakSession, GameKeeper]:
    """``player``'s attempt at today's puzzle of ``variant``: started now, or continued where it was left
    (a process stopped mid-game); once finished, another is refused (``PlayedAlreadyError``)."""
    from keypeg.services.recording import GameKeeper, continue_game
    from keypeg.store import PlayedAlreadyError

    day = today()
    made = attempt(store, player, variant, day)
    if made is not None:
        if made.outcome is not None:
            raise PlayedAlreadyError(
                f"{made.player} has played the puzzle of {puzzle_name(day, variant)}: one attempt a day"
            )
        game, keeper = continue_game(store, made.id, made.player)
        assert isinstance(game, BreakSession)
        return game, keeper
    game = daily_game(store.keys.server_key(KEY_NAME), day, variant)
    keeper = GameKeeper.start(store, player, game, public_id=public_id, daily=puzzle_name(day, variant))
    return game, keeper


@dataclass(frozen=True)
class DailyResult:
    """One player's attempt at a puzzle, as the day's board ranks it."""

    rank: int
    player: str
    solved: bool
    guesses: int
    seconds: float | None


def daily_board(store: Store, day: str, variant: Variant) -> list[DailyResult]:
    """The finished attempts at a puzzle, best first: solved before not, then fewer guesses, then faster."""
    finished = [g for g in store.daily.games(puzzle_name(day, variant)) if g.outcome is not None]

    def order(game: GameRecord) -> tuple[bool, int, float]:
        return (game.outcome != "solved", game.guesses, game.seconds or 0.0)

    ranked = sorted(finished, key=order)
    return [DailyResult(k + 1, g.player, g.outcome == "solved", g.guesses, g.seconds) for k, g in enumerate(ranked)]


def streak(store: Store, player: str, variant: Variant, day: str | None = None) -> int:
    """How many days in a row, up to ``day`` (today by default) or the day before, ``player`` solved the
    puzzle of ``variant``."""
    solved = {d.split(" ", 1)[0] for d in store.daily.days(player, variant.name)}
    current = date.fromisoformat(check_day(day) if day is not None else today())
    if current.isoformat() not in solved:
        current -= timedelta(days=1)  # today's may still be to come
    count = 0
    while current.isoformat() in solved:
        count += 1
        current -= timedelta(days=1)
    return count


def share_grid(day: str, variant: Variant, history: Sequence[tuple[object, Feedback]], solved: bool) -> str:
    """The result to share: a line per guess of its key pegs (black ●, white ○, none ·), never a colour.

    >>> from keypeg.variants import find_variant
    >>> print(share_grid("2026-11-23", find_variant("classic"), [("x", Feedback(1, 2)), ("y", Feedback(4, 0))], True))
    keypeg daily 2026-11-23 classic: 2/12
    ●○○·
    ●●●●
    """
    rules = variant.rules
    result = f"{len(history)}/{rules.rows}" if solved else f"X/{rules.rows}"
    lines = [f"keypeg daily {day} {variant.name}: {result}"]
    for _, feedback in history:
        lines.append("●" * feedback.black + "○" * feedback.white + "·" * (rules.pegs - feedback.black - feedback.white))
    return "\n".join(lines)
