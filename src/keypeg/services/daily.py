"""The daily puzzle's use cases: a player's attempt (started, continued, or refused once played), the
day's board, the streak, and the grid to share, for the terminal and the web alike.

The rules of the puzzle (the day, its secret, its game, the grid) are :mod:`keypeg.play.daily`'s; here
they meet the store. An attempt belongs to its day: one not finished when its day ends counts as not
broken (on its day's board, for the streak), and is closed as such (resigned, kept) when it is next
loaded (:func:`close_ended`). The day is read through that module (``daily.today``), so that one clock serves
every face.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from keypeg.errors import RefusedError
from keypeg.play import daily
from keypeg.play.codemakers import DailyCodemaker
from keypeg.play.sessions import BreakSession, Session
from keypeg.services.stores import GameRecord, Store
from keypeg.store import PlayedAlreadyError
from keypeg.variants import VARIANTS, Variant

if TYPE_CHECKING:
    from keypeg.services.recording import GameKeeper

__all__ = [
    "DailyResult",
    "DailyView",
    "PlayedAlreadyError",
    "StartedElsewhereError",
    "attempt",
    "close_ended",
    "daily_board",
    "daily_view",
    "start_daily",
    "start_on_web",
    "streak",
    "streaks",
]


class StartedElsewhereError(RefusedError):
    """An attempt started where it has no public id (the terminal) cannot be played on the web: it is
    finished where it began."""


@dataclass(frozen=True)
class DailyResult:
    """One player's attempt at a puzzle, as the day's board ranks it."""

    rank: int
    player: str
    solved: bool
    guesses: int
    seconds: float | None


@dataclass(frozen=True)
class DailyView:
    """A day's puzzle of a preset as a face shows it: the day's board and, for a player, their attempt."""

    day: str
    variant: Variant
    board: list[DailyResult]
    player: str | None = None
    game: str | None = None
    """The public id of the player's attempt (``None``: none, or one started in the terminal)."""
    played: bool = False
    """Whether the player has finished their attempt."""
    solved: bool = False
    grid: str | None = None
    """The finished attempt to share: key pegs only, never the code."""
    streak: int = 0


def attempt(store: Store, player: str, variant: Variant, day: str | None = None) -> GameRecord | None:
    """``player``'s attempt at the puzzle of ``variant`` on ``day`` (today by default), if they made one."""
    found = store.daily.games(daily.puzzle_name(day or daily.today(), variant), player)
    return found[0] if found else None


def start_daily(
    store: Store, player: str, variant: Variant, *, public_id: str | None = None
) -> tuple[BreakSession, GameKeeper]:
    """``player``'s attempt at today's puzzle of ``variant``: started now, or continued where it was left
    (a process stopped mid-game); once finished, another is refused (:class:`PlayedAlreadyError`)."""
    from keypeg.services.recording import GameKeeper, continue_game

    day = daily.today()
    made = attempt(store, player, variant, day)
    if made is not None:
        if made.outcome is not None:
            raise PlayedAlreadyError(
                f"{made.player} has played the puzzle of {daily.puzzle_name(day, variant)}: one attempt a day"
            )
        game, keeper = continue_game(store, made.id, made.player)
        assert isinstance(game, BreakSession)
        return game, keeper
    game = daily.daily_game(store.keys.server_key(daily.KEY_NAME), day, variant)
    keeper = GameKeeper.start(store, player, game, public_id=public_id, daily=daily.puzzle_name(day, variant))
    return game, keeper


def start_on_web(store: Store, player: str, variant: Variant, public_id: str) -> str:
    """Start ``player``'s attempt at today's puzzle under ``public_id``, or continue it: the attempt's public
    id. A finished attempt is refused (:class:`PlayedAlreadyError`), and so is one started in the terminal
    (:class:`StartedElsewhereError`), which has no public id to be played under."""
    _, keeper = start_daily(store, player, variant, public_id=public_id)
    assert keeper.game_id is not None
    found = store.games.record(keeper.game_id).public_id
    if found is None:
        raise StartedElsewhereError("your attempt was started in the terminal: finish it there ('keypeg daily')")
    return found


def close_ended(game: Session, keeper: GameKeeper) -> bool:
    """Close ``game``, an attempt at a daily puzzle whose day has ended unfinished, as not broken (resigned)
    and keep it so; whether it was closed (nothing is done to another game)."""
    maker = getattr(game, "codemaker", None)
    if not isinstance(maker, DailyCodemaker) or game.is_over or not daily.over(maker.day):
        return False
    maker.cut_off = True  # the page says why it ended
    game.resign()
    keeper.sync(game)
    return True


def _done(game: GameRecord, day: str) -> bool:
    """Whether the attempt ``game`` at the puzzle of ``day`` is finished: ended, or cut off by the end of its
    day (then not broken)."""
    return game.outcome is not None or daily.over(day)


def daily_board(store: Store, day: str, variant: Variant) -> list[DailyResult]:
    """The finished attempts at a puzzle, best first: solved before not, then fewer guesses, then faster.
    Once the day is over, the attempts left unfinished are on it too, not broken."""
    finished = [g for g in store.daily.games(daily.puzzle_name(day, variant)) if _done(g, day)]

    def order(game: GameRecord) -> tuple[bool, int, float]:
        return (game.outcome != "solved", game.guesses, game.seconds or 0.0)

    ranked = sorted(finished, key=order)
    return [DailyResult(k + 1, g.player, g.outcome == "solved", g.guesses, g.seconds) for k, g in enumerate(ranked)]


def streak(store: Store, player: str, variant: Variant, day: str | None = None) -> int:
    """How many days in a row, up to ``day`` (today by default) or the day before when ``day``'s attempt
    is not finished (or not made), ``player`` broke the code of ``variant``'s puzzle: a failed or resigned
    attempt ends the streak, and so does one left unfinished when its day ended."""
    outcomes = {d.split(" ", 1)[0]: outcome for d, outcome in store.daily.results(player, variant.name).items()}
    current = date.fromisoformat(daily.check_day(day) if day is not None else daily.today())
    if outcomes.get(current.isoformat()) is None:
        current -= timedelta(days=1)  # today's may still be to come, or be under way
    count = 0
    while outcomes.get(current.isoformat()) == "solved":
        count += 1
        current -= timedelta(days=1)
    return count


def streaks(store: Store, player: str) -> dict[str, int]:
    """``player``'s running streaks today, by preset (the presets without one left out)."""
    return {v.name: days for v in VARIANTS.values() if (days := streak(store, player, v))}


def daily_view(store: Store, variant: Variant, day: str | None = None, player: str | None = None) -> DailyView:
    """The puzzle of ``variant`` on ``day`` (``YYYY-MM-DD``; today's by default): its board and, for
    ``player`` (``None``: nobody logged in), their attempt, its grid once finished, and their streak."""
    day = daily.check_day(day) if day is not None else daily.today()
    board = daily_board(store, day, variant)
    if player is None:
        return DailyView(day, variant, board)
    made = attempt(store, player, variant, day)
    played = made is not None and _done(made, day)
    grid = None
    if made is not None and played:
        moves = [(m.guess, m.feedback) for m in store.games.record(made.id).moves]
        grid = daily.share_grid(day, variant, moves, made.outcome == "solved")
    return DailyView(
        day,
        variant,
        board,
        player=player,
        game=made.public_id if made is not None else None,
        played=played,
        solved=made is not None and made.outcome == "solved",
        grid=grid,
        streak=streak(store, player, variant, day),
    )
