"""The store's values: what its repositories hand out (games, moves, matches between people, statistics
and rankings), plain frozen dataclasses that hold no connection."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from keypeg.code import Feedback
from keypeg.rules import Rules
from keypeg.variants import game_label

__all__ = ["GameRecord", "LiveRecord", "MoveRecord", "PlayerStats", "Ranking", "SavedGame", "aware"]


def aware(moment: datetime) -> datetime:
    """``moment`` with its time zone (SQLite gives times back without one: they are UTC)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class MoveRecord:
    """A scored guess as stored."""

    number: int
    guess: str
    feedback: Feedback


@dataclass(frozen=True)
class GameRecord:
    """A stored game: its full rules (codes in their own symbols), who played it and how it went."""

    id: int
    player: str
    rules: Rules
    role: str
    level: int | None
    secret: str | None
    outcome: str | None
    guesses: int
    started_at: datetime
    ended_at: datetime | None
    moves: list[MoveRecord] = field(default_factory=list)
    rated: bool = False
    """Whether the game counts on the leaderboard (else it is a practice game)."""
    public_id: str | None = None
    """The unguessable id of a game started on the web (its address there)."""
    daily: str | None = None
    """The daily puzzle the game is (``2026-11-23 classic``), if it is one."""
    maker: str | None = None
    """The person who set the code, in a game between two people."""
    room: str | None = None
    """The public id of the room the game is a board of (a room's round), if it is one."""

    @property
    def variant(self) -> str:
        """The game's label (:func:`~keypeg.variants.game_label`): ``classic``, or ``4x6, 8 rows``."""
        return game_label(self.rules)

    @property
    def rows(self) -> int:
        """Guesses the game allowed."""
        return self.rules.rows

    @property
    def score(self) -> int | None:
        """Guesses as ranked: the guesses of a broken code; the row limit plus one for a game lost,
        resigned or left unfinished (``None`` for the computer's games as codebreaker)."""
        if self.role != "breaker":
            return None
        return self.guesses if self.outcome == "solved" else self.rows + 1

    @property
    def seconds(self) -> float | None:
        """How long the game took."""
        if self.ended_at is None:
            return None
        return (aware(self.ended_at) - aware(self.started_at)).total_seconds()

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {
            "id": self.id,
            "player": self.player,
            "maker": self.maker,
            "room": self.room,
            "variant": self.variant,
            "rules": self.rules.as_dict(),
            "role": self.role,
            "level": self.level,
            "secret": self.secret,
            "outcome": self.outcome,
            "rated": self.rated,
            "guesses": self.guesses,
            "score": self.score,
            "rows": self.rows,
            "started_at": self.started_at.isoformat(),
            "ended_at": self.ended_at.isoformat() if self.ended_at else None,
            "seconds": self.seconds,
            "moves": [{"guess": m.guess, "black": m.feedback.black, "white": m.feedback.white} for m in self.moves],
        }


@dataclass(frozen=True)
class LiveRecord:
    """A match between two people as stored: its seats, its version (bumped at every write) and state."""

    id: int
    first: str | None
    second: str | None
    version: int
    state: str


@dataclass(frozen=True)
class SavedGame:
    """A stored game as the play layer continues it: the public record, the session state and the secret."""

    record: GameRecord
    state: str | None
    secret: str | None
    """The private side: for the play layer only, never for display."""
    match_id: int | None = None
    """The match the game belongs to, if any."""
    version: int = 0
    """The game's version as loaded, bumped at every write: :meth:`keypeg.store.games.Games.update` takes it as
    ``expect``."""


@dataclass(frozen=True)
class PlayerStats:
    """A player's record as codebreaker, with per-variant and per-level breakdowns."""

    games: int
    wins: int
    average: float | None
    best: int | None
    worst: int | None
    by_variant: dict[str, tuple[int, int, float | None]]
    """variant -> (games, wins, average guesses of the wins)."""
    by_level: dict[str, tuple[int, int, float | None]]
    trend: list[int]
    """Guesses per finished game, oldest first (a lost game as the row limit plus one)."""
    score: float | None = None
    """Average guesses with every lost or resigned game counted as the row limit plus one."""


@dataclass(frozen=True)
class Ranking:
    """A player's place on a leaderboard."""

    rank: int
    player: str
    games: int
    """Rated games played."""
    average: float
    """Average guesses, a lost, resigned or unfinished game counted as the row limit plus one."""
    best: int
    last: datetime
    """When the player's latest rated game started."""
