"""The database tables (SQLAlchemy 2): players, games, their guesses, and matches."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

__all__ = [
    "Base",
    "PlayerRow",
    "GameRow",
    "GameKeyRow",
    "GuessRow",
    "MatchRow",
    "ServerKeyRow",
    "WebSessionRow",
    "LoginFailureRow",
    "RoomGameRow",
    "RoomRow",
    "RoomSeatRow",
    "RatingResultRow",
    "RatingChangeRow",
    "PlayerRatingRow",
]


class Base(DeclarativeBase):
    """Declarative base of keypeg's tables."""


class PlayerRow(Base):
    """A player; the password, when set, is stored only as an argon2 hash."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    """The name as first given (Unicode NFKC)."""
    key: Mapped[str | None] = mapped_column(String(128), unique=True, index=True)
    """What names are compared by (:func:`keypeg.store.names.name_key`): one key, one player."""
    password_hash: Mapped[str | None] = mapped_column(String(255), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    games: Mapped[list[GameRow]] = relationship(back_populates="player", foreign_keys="GameRow.player_id")


class GameRow(Base):
    """One game: its rules, the player's role and the computer's level, the secret and the outcome."""

    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    variant: Mapped[str] = mapped_column(String(64), index=True)
    """The rules' short form, e.g. ``4x6`` or ``4x10-norepeats``: games compare within one variant (and row limit)."""
    rules: Mapped[str | None] = mapped_column(Text, default=None)
    """The full rules as JSON (name, symbols, rows): the codes of such a game are kept in its own symbols
    (games without it, from an earlier keypeg, keep them in letters)."""
    pegs: Mapped[int] = mapped_column(Integer)
    colors: Mapped[int] = mapped_column(Integer)
    repeats: Mapped[bool]
    blanks: Mapped[bool]
    rows: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    """``breaker`` (the player guessed) or ``maker`` (the computer guessed the player's code)."""
    level: Mapped[int | None] = mapped_column(Integer, default=None)
    secret: Mapped[str | None] = mapped_column(String(64), default=None)
    """The private side: never shown while the game is played."""
    outcome: Mapped[str | None] = mapped_column(String(16), default=None, index=True)
    """``solved``, ``out of rows``, or None while the game is on (or was cut off)."""
    guesses: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"), default=None)
    state: Mapped[str | None] = mapped_column(Text, default=None)
    """The play session's public state (JSON), so that any process can continue the game."""
    public_id: Mapped[str | None] = mapped_column(String(32), unique=True, index=True, default=None)
    """An unguessable id for the web app's URLs and API (games started elsewhere have none)."""
    rated: Mapped[bool] = mapped_column(default=False)
    """Whether the game counts on the leaderboard: the computer drew the secret from an unpredictable source
    and the game offered no help (set when it starts; a game lost, resigned or left unfinished counts as a loss)."""

    maker_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), default=None, index=True)
    """The person who set the code, in a game between two people (the game is in their history too)."""
    daily: Mapped[str | None] = mapped_column(String(80), default=None)
    """The daily puzzle the game is (``2026-11-23 classic``): one attempt per player and puzzle."""
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Bumped at every write: a writer names the version it loaded, and is refused if it moved on."""

    __table_args__ = (
        Index("ix_games_daily_attempt", "player_id", "daily", unique=True),
        Index("ix_games_daily", "daily"),
    )

    player: Mapped[PlayerRow] = relationship(back_populates="games", foreign_keys=[player_id])
    moves: Mapped[list[GuessRow]] = relationship(back_populates="game", order_by="GuessRow.number")


class GuessRow(Base):
    """A scored guess of a game, written as it is made."""

    __tablename__ = "guesses"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    guess: Mapped[str] = mapped_column(String(64))
    black: Mapped[int] = mapped_column(Integer)
    white: Mapped[int] = mapped_column(Integer)
    made_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    game: Mapped[GameRow] = relationship(back_populates="moves")


class MatchRow(Base):
    """A match between two players, its state as the JSON of :meth:`keypeg.game.Match.to_dict`."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    state: Mapped[str] = mapped_column(Text)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    public_id: Mapped[str | None] = mapped_column(String(32), unique=True, index=True, default=None)
    """The unguessable id a web front end shows for the match."""
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), default=None)
    """The player whose match it is, for a match started on the web (the first seat)."""
    opponent_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), default=None)
    """The second seat of a match between two people, once taken."""
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Bumped at every write: a writer names the version it loaded, and live viewers compare it."""


class ServerKeyRow(Base):
    """A secret key of the server's (the daily puzzles' secrets derive from one): never shown."""

    __tablename__ = "server_keys"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class WebSessionRow(Base):
    """A browser's session with the web app: only a hash of its cookie's token is kept."""

    __tablename__ = "web_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    csrf: Mapped[str] = mapped_column(String(64))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LoginFailureRow(Base):
    """A failed login, by what it was limited on (``name:<key>`` or ``address:<ip>``)."""

    __tablename__ = "login_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(200), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class GameKeyRow(Base):
    """A game's idempotency key: the key a client sent with the request that started the game, per player,
    with a digest of that request; kept 24 hours, so that the request retried finds its game."""

    __tablename__ = "game_keys"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    request: Mapped[str] = mapped_column(String(64))
    """The SHA-256 of what was asked (rules, role, level, practice): the key sent with another request is refused."""
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


# -- rooms (issue 30, rooms-engine) ------------------------------------------------------------------


class RoomRow(Base):
    """A room of 2 to 8 players playing rounds: its state is the JSON of
    :meth:`keypeg.play.rooms.Room.to_state` (public: the round in play's code is on the private side)."""

    __tablename__ = "rooms"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, index=True)
    """The unguessable id of the room's links."""
    host_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), default=None, index=True)
    """The host now (the next seated player once the host leaves)."""
    state: Mapped[str] = mapped_column(Text)
    secret: Mapped[str | None] = mapped_column(Text, default=None)
    """The private side (JSON): the round in play's code and its boards' guesses, never in ``state``."""
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Bumped at every write: a writer names the version it loaded, and followers compare it."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RoomGameRow(Base):
    """A room's board: the game a breaker played in one of its rounds (its secret written when the round
    ends; until then the game is left out of every history)."""

    __tablename__ = "room_games"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), index=True)


class RoomSeatRow(Base):
    """A player seated in a room (kept once they leave or are kicked: the room is among their matches)."""

    __tablename__ = "room_seats"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True, index=True)
    seat: Mapped[int] = mapped_column(Integer)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# -- ratings (issue 30, ratings) ---------------------------------------------------------------------


class RatingResultRow(Base):
    """A rated result (one Glicko-2 rating period): a live match, a room, or a solo game that seeds a new
    player's rating against the computer's levels; replayed in id order to recompute every rating."""

    __tablename__ = "rating_results"
    __table_args__ = (UniqueConstraint("kind", "event_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    """``match``, ``room`` or ``solo``."""
    event_id: Mapped[str] = mapped_column(String(64))
    """The match's or room's id (a solo game's id): one result per event."""
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    places: Mapped[str] = mapped_column(Text)
    """JSON: the players' ids grouped by final place, best first (a level as ``"level 3"``)."""
    fixed: Mapped[str | None] = mapped_column(Text, default=None)
    """JSON: the fixed ratings of the levels in the result (rating, RD, volatility), as they were used."""


class RatingChangeRow(Base):
    """A player's rating before a result (idleness applied) and after it."""

    __tablename__ = "rating_changes"
    __table_args__ = (UniqueConstraint("result_id", "player_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[int] = mapped_column(ForeignKey("rating_results.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    rating_before: Mapped[float] = mapped_column(Float)
    rd_before: Mapped[float] = mapped_column(Float)
    volatility_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)
    rd_after: Mapped[float] = mapped_column(Float)
    volatility_after: Mapped[float] = mapped_column(Float)


class PlayerRatingRow(Base):
    """A player's current rating, rated results and the last one's time."""

    __tablename__ = "player_ratings"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    rating: Mapped[float] = mapped_column(Float, index=True)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    results: Mapped[int] = mapped_column(Integer)
    last_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
