"""The store's operations: players, games written as they are played, and the queries behind
``stats``, ``top``, ``history`` and ``replay``."""

from __future__ import annotations

import atexit
import errno
import functools
import json
import logging
import os
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from platformdirs import user_data_dir
from sqlalchemy import Engine, bindparam, case, create_engine, delete, event, func, or_, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import (
    ArgumentError,
    DatabaseError,
    IntegrityError,
    NoSuchModuleError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.orm import Session, aliased, joinedload, sessionmaker

from keypeg.code import Feedback
from keypeg.errors import (
    ConflictError,
    ForbiddenError,
    KeypegError,
    NotFoundError,
    RefusedError,
    UnavailableError,
)
from keypeg.limits import MIN_RANKED_GAMES, TOP_SIZE
from keypeg.rules import Rules
from keypeg.store.models import (
    GameRow,
    GuessRow,
    LoginFailureRow,
    MatchRow,
    PlayerRow,
    ServerKeyRow,
    WebSessionRow,
)
from keypeg.store.names import GUEST_PREFIX, name_key, player_name
from keypeg.text import quoted, visible
from keypeg.variants import game_label

__all__ = [
    "Store",
    "StoreError",
    "WrongPasswordError",
    "PlayedAlreadyError",
    "GameRecord",
    "LiveRecord",
    "Move",
    "PlayerStats",
    "Ranking",
    "SavedGame",
    "default_url",
    "safe_url",
]

T = TypeVar("T")
MIGRATIONS = Path(__file__).parent / "migrations"
BUSY_RETRIES = 5
POOL_SIZE = 15
"""Connections a process keeps to a database server (a web worker's requests share them)."""


_engines: weakref.WeakSet[Engine] = weakref.WeakSet()
"""The stores' engines, closed at exit (:func:`_close_engines`)."""


@atexit.register
def _close_engines() -> None:
    """Close the pooled connections at exit, whatever way the process exits (the ``keypeg`` script
    skips tearing objects down): SQLite folds its write-ahead log into the database file then, so
    the file alone holds every game."""
    for engine in list(_engines):
        engine.dispose()


class StoreError(KeypegError):
    """Root of what the store raises; each error is also of one kind of :mod:`keypeg.errors`."""


class StoreUnavailableError(StoreError, UnavailableError):
    """The database cannot be used now: locked, corrupt, unreachable, full, read-only, newer schema."""


class BadStoreAddressError(StoreError, ValueError):
    """A database asked for wrongly: a bad URL, a driver not installed, a folder that is not there."""


class UnknownRecordError(StoreError, NotFoundError):
    """No such player, game or match (or not one the asker may see: the same answer)."""


class MovedOnError(StoreError, ConflictError):
    """A record was changed elsewhere since it was loaded: this copy is not kept."""


class PlayedAlreadyError(StoreError, RefusedError):
    """A second attempt at a daily puzzle (refused: one attempt per player and puzzle)."""


class WrongPasswordError(StoreError, ForbiddenError):
    """A player's password did not match (or was not given for a protected player)."""


class EmptyPasswordError(StoreError, ValueError):
    """A password that is empty."""


def safe_url(url: str) -> str:
    """``url`` fit to print: its password, if any, written as ``***``."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        parsed = None
    secretive = "@" in url or "pass" in url.lower() or "secret" in url.lower()
    if parsed is None:
        return "the database URL given (password hidden)" if secretive else visible(url, 400)
    if any("pass" in key.lower() or "secret" in key.lower() for key in parsed.query):
        return f"the {parsed.drivername} database URL given (password hidden)"
    return visible(parsed.render_as_string(hide_password=True), 400)


def default_url() -> str:
    """``$KEYPEG_DB``, or a SQLite file in the user's data folder."""
    url = os.environ.get("KEYPEG_DB")
    if url:
        return url
    folder = Path(user_data_dir("keypeg"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'keypeg.sqlite3'}"


WEB_SESSION_LIFETIME = timedelta(days=30)
"""A web session ends this long after it began (and is then deleted)."""


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Move:
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
    moves: list[Move] = field(default_factory=list)
    rated: bool = False
    """Whether the game counts on the leaderboard (else it is a practice game)."""
    public_id: str | None = None
    """The unguessable id of a game started on the web (its address there)."""
    daily: str | None = None
    """The daily puzzle the game is (``2026-11-23 classic``), if it is one."""
    maker: str | None = None
    """The person who set the code, in a game between two people."""

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
        return (_aware(self.ended_at) - _aware(self.started_at)).total_seconds()

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {
            "id": self.id,
            "player": self.player,
            "maker": self.maker,
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
    """A match between two people as stored: its seats, its version and state, and when each seat was
    last seen."""

    id: int
    first: str | None
    second: str | None
    version: int
    state: str
    seen: tuple[datetime | None, ...]


@dataclass(frozen=True)
class SavedGame:
    """A stored game as the play layer continues it: the public record, the session state and the secret."""

    record: GameRecord
    state: str | None
    secret: str | None
    """The private side: for the play layer only, never for display."""
    match_id: int | None = None
    """The match the game belongs to, if any."""


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


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


class Store:
    """A connection to keypeg's database; the schema is brought up to date when it opens.

    >>> store = Store("sqlite://")
    >>> game = store.start_game("ann", Rules(4, 6), role="breaker", secret="ABCD")
    >>> store.update_game(game, keep=0, moves=[("ABCD", Feedback(4, 0))], outcome="solved")
    >>> store.game(game).guesses, store.game(game).secret
    (1, 'ABCD')
    """

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_url()
        self.shown_url = safe_url(self.url)
        """The URL as printed (never with its password)."""
        try:
            self.engine: Engine = create_engine(self.url, **_engine_options(self.url))
        except (ArgumentError, NoSuchModuleError, ValueError) as error:
            raise BadStoreAddressError(f"bad database URL {self.shown_url!r}: {visible(error)}") from None
        except ModuleNotFoundError as error:
            raise BadStoreAddressError(f"the driver for {self.shown_url!r} is not installed: {error.name}") from None
        _engines.add(self.engine)
        if self.engine.dialect.name == "sqlite":
            _private_file(self.engine.url.database)
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._guarded(self._upgrade)

    # -- plumbing ----------------------------------------------------------------------------------

    def _guarded(self, work: Callable[[], T]) -> T:
        """Run ``work``, retrying while SQLite is busy, turning database failures into :class:`StoreError`."""
        for attempt in range(BUSY_RETRIES):
            try:
                return work()
            except OperationalError as error:
                text = str(error.orig)
                if "locked" in text or "busy" in text:
                    if attempt + 1 < BUSY_RETRIES:
                        time.sleep(0.2 * (attempt + 1))
                        continue
                    raise StoreUnavailableError(
                        f"the database {self.shown_url!r} stays locked by another program"
                    ) from None
                raise StoreUnavailableError(f"cannot use the database {self.shown_url!r}: {text}") from None
            except DatabaseError as error:
                raise StoreUnavailableError(f"cannot use the database {self.shown_url!r}: {error.orig}") from None
            except SQLAlchemyError as error:
                reason = getattr(error, "orig", None) or type(error).__name__  # never the statement or its values
                raise StoreUnavailableError(f"database error on {self.shown_url!r}: {reason}") from None
            except (ValueError, TypeError, OverflowError) as error:  # a value that cannot be what keypeg wrote
                if isinstance(error, KeypegError) and not isinstance(error, DamagedRecordError):
                    raise
                found = f"{type(error).__name__}: {visible(error, 200)}"
                raise StoreUnavailableError(f"the database {self.shown_url!r} holds damaged data ({found})") from None
        raise AssertionError("unreachable")  # pragma: no cover

    @contextmanager
    def _session(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session

    def _upgrade(self) -> None:
        if self._schema_version() == _head_revision():
            return  # the usual case, without loading Alembic
        from alembic import command
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        known = {rev.revision for rev in ScriptDirectory.from_config(config).walk_revisions()}
        with self.engine.begin() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
            if current is not None and current not in known:
                raise StoreUnavailableError(
                    f"the database {self.shown_url!r} was written by a newer keypeg (schema {current!r}); "
                    "upgrade keypeg"
                )
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def _schema_version(self) -> str | None:
        """The schema revision the database is at (``None`` for a new database)."""
        try:
            with self.engine.connect() as connection:
                return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        except DatabaseError:
            return None

    # -- players ----------------------------------------------------------------------------------

    def _player(self, session: Session, name: str, create: bool) -> PlayerRow:
        key = name_key(name)
        row = session.scalar(select(PlayerRow).where(PlayerRow.key == key))
        if row is None:
            if not create:
                raise UnknownRecordError(f"unknown player {player_name(name)!r}")
            row = PlayerRow(name=player_name(name), key=key, created_at=_now())
            session.add(row)
            session.flush()
        return row

    def player(self, name: str) -> str | None:
        """The name a player was registered under (``Ann`` for ``ANN``), or ``None`` for a new player."""

        def work() -> str | None:
            with self._session() as session:
                row = session.scalar(select(PlayerRow).where(PlayerRow.key == name_key(name)))
                return row.name if row is not None else None

        return self._guarded(work)

    def ensure_player(self, name: str) -> str:
        """Create the player on first use; the name they are registered under."""

        def work() -> str:
            with self._session() as session:
                return self._player(session, name, create=True).name

        return self._guarded(work)

    def set_password(self, name: str, password: str, *, old: str | None = None) -> None:
        """Store an argon2 hash of the player's new ``password`` (never the password); a player who has
        a password already must give it as ``old`` (:class:`WrongPasswordError` otherwise)."""
        from argon2 import PasswordHasher

        if not password:
            raise EmptyPasswordError("a password cannot be empty")
        if self.has_password(name) and not self.check_password(name, old or ""):
            raise WrongPasswordError(f"wrong password for {player_name(name)!r}: the password is not changed")
        digest = PasswordHasher().hash(password)

        def work() -> None:
            with self._session() as session:
                self._player(session, name, create=True).password_hash = digest

        self._guarded(work)

    def has_password(self, name: str) -> bool:
        """Whether the player has set a password."""

        def work() -> bool:
            with self._session() as session:
                row = session.scalar(select(PlayerRow).where(PlayerRow.key == name_key(name)))
                return row is not None and row.password_hash is not None

        return self._guarded(work)

    def check_password(self, name: str, password: str) -> bool:
        """Whether ``password`` is the player's (any password is, for a player without one)."""
        from argon2 import PasswordHasher
        from argon2.exceptions import InvalidHashError, VerificationError

        def work() -> str | None:
            with self._session() as session:
                row = session.scalar(select(PlayerRow).where(PlayerRow.key == name_key(name)))
                return row.password_hash if row is not None else None

        digest = self._guarded(work)
        if digest is None:
            return True
        try:
            return PasswordHasher().verify(digest, password)
        except (VerificationError, InvalidHashError):
            return False

    # -- games --------------------------------------------------------------------------------------

    def start_game(
        self,
        player: str,
        rules: Rules,
        *,
        role: str,
        level: int | None = None,
        secret: str | None = None,
        match_id: int | None = None,
        state: str | None = None,
        rated: bool = False,
        public_id: str | None = None,
        daily: str | None = None,
        maker: str | None = None,
    ) -> int:
        """Record a game as it starts; returns its id. Codes are kept in the rules' own symbols.
        ``secret`` is kept on the private side: no query shows it before the game ends
        (:meth:`saved_game` gives it to the play layer). A ``rated`` game counts on the leaderboard
        from now on, as a loss until it is won. A game of the ``daily`` puzzle (``YYYY-MM-DD preset``)
        is refused (:class:`PlayedAlreadyError`) when the player has played that puzzle."""

        def work() -> int:
            with self._session() as session:
                owner = self._player(session, player, create=True)
                if daily is not None:
                    taken = select(GameRow.id).where(GameRow.player_id == owner.id, GameRow.daily == daily)
                    if session.scalar(taken) is not None:
                        raise PlayedAlreadyError(f"{owner.name} has played the puzzle of {daily} already")
                maker_id = self._player(session, maker, create=True).id if maker is not None else None
                row = GameRow(
                    player=owner,
                    maker_id=maker_id,
                    variant=rules.slug,
                    rules=json.dumps(rules.as_dict()),
                    pegs=rules.pegs,
                    colors=rules.colors,
                    repeats=rules.repeats,
                    blanks=rules.blanks,
                    rows=rules.rows,
                    role=role,
                    level=level,
                    secret=secret,
                    guesses=0,
                    started_at=_now(),
                    match_id=match_id,
                    state=state,
                    rated=rated,
                    public_id=public_id,
                    daily=daily,
                )
                session.add(row)
                try:
                    session.flush()
                except IntegrityError:  # the same attempt started at the same moment elsewhere
                    raise PlayedAlreadyError(f"{owner.name} has played the puzzle of {daily} already") from None
                return row.id

        return self._guarded(work)

    def update_game(
        self,
        game_id: int,
        *,
        keep: int,
        moves: list[tuple[str, Feedback]],
        state: str | None = None,
        outcome: str | None = None,
        secret: str | None = None,
        expect: int | None = None,
    ) -> None:
        """Bring a game up to date in one transaction: keep its first ``keep`` guesses, add ``moves`` after
        them, store the session's ``state`` (when given), and, with an ``outcome``, finish it.

        ``expect`` is how many guesses the writer last knew the game to have: if another process has
        written the game since (two terminals on one game), nothing is written and :class:`StoreError`
        says so."""

        def work() -> None:
            with self._session() as session:
                # the game's row locked until this transaction ends: a writer that read it before another
                # committed would otherwise pass the check below and replace that writer's moves
                # (PostgreSQL; SQLite's transactions take the write lock as they begin)
                row = session.get_one(GameRow, game_id, with_for_update=True)
                if expect is not None and row.guesses != expect:
                    raise MovedOnError(f"game {game_id} was played on elsewhere meanwhile; this copy is not kept")
                if row.outcome is not None:
                    raise MovedOnError(f"game {game_id} is over already; this copy is not kept")
                session.execute(  # one statement, without loading the moves kept
                    delete(GuessRow).where(GuessRow.game_id == game_id, GuessRow.number > keep),
                    execution_options={"synchronize_session": False},
                )
                for number, (guess, feedback) in enumerate(moves, keep + 1):
                    session.add(
                        GuessRow(
                            game_id=game_id,
                            number=number,
                            guess=guess,
                            black=feedback.black,
                            white=feedback.white,
                            made_at=_now(),
                        )
                    )
                row.guesses = keep + len(moves)
                if state is not None:
                    row.state = state
                if outcome is not None:
                    row.outcome = outcome
                    row.ended_at = _now()
                    if secret is not None:
                        row.secret = secret

        self._guarded(work)

    def saved_game(self, game_id: int) -> SavedGame:
        """A game with its session state and its secret, for the play layer to continue it."""
        if isinstance(game_id, bool) or not isinstance(game_id, int) or not 0 < game_id < 2**63:
            raise UnknownRecordError(f"no game {visible(game_id)!r} in the database")

        def work() -> SavedGame:
            with self._session() as session:
                row = session.get(GameRow, game_id, options=[joinedload(GameRow.player), joinedload(GameRow.moves)])
                if row is None:
                    raise UnknownRecordError(f"no game {game_id!r} in the database")
                record = self._records(session, [row], with_moves=True)[0]
                return SavedGame(record, row.state, row.secret, row.match_id)

        return self._guarded(work)

    def game_by_public_id(self, public_id: str) -> int:
        """The id of the game with this public id (:class:`StoreError`, a usage error, when none has it)."""

        def work() -> int:
            with self._session() as session:
                found = session.scalar(select(GameRow.id).where(GameRow.public_id == public_id))
                if found is None:
                    raise UnknownRecordError("no such game")
                return int(found)

        return self._guarded(work)

    def public_game(self, public_id: str) -> tuple[int, str]:
        """The id and the player of the game with this public id, in one query (:class:`StoreError`, a
        usage error, when none has it)."""

        def work() -> tuple[int, str]:
            with self._session() as session:
                found = session.execute(
                    select(GameRow.id, PlayerRow.name)
                    .join(PlayerRow, PlayerRow.id == GameRow.player_id)
                    .where(GameRow.public_id == public_id)
                ).first()
                if found is None:
                    raise UnknownRecordError("no such game")
                return int(found[0]), str(found[1])

        return self._guarded(work)

    # -- web sessions -------------------------------------------------------------------------------

    def web_session(self, token_hash: str) -> tuple[str, str | None] | None:
        """A web session's CSRF token and player (``None`` for a guest), or ``None`` if there is none."""

        def work() -> tuple[str, str | None] | None:
            with self._session() as session:  # one query: the session and its player, if any
                found = session.execute(
                    select(WebSessionRow.csrf, PlayerRow.name)
                    .outerjoin(PlayerRow, PlayerRow.id == WebSessionRow.player_id)
                    .where(
                        WebSessionRow.token_hash == token_hash,
                        WebSessionRow.created_at >= _now() - WEB_SESSION_LIFETIME,
                    )
                ).first()
                return (found[0], found[1]) if found is not None else None

        return self._guarded(work)

    def new_web_session(self, token_hash: str, csrf: str) -> None:
        """Keep a new web session (a guest until it logs in)."""

        def work() -> None:
            with self._session() as session:
                session.execute(delete(WebSessionRow).where(WebSessionRow.created_at < _now() - WEB_SESSION_LIFETIME))
                session.add(WebSessionRow(token_hash=token_hash, csrf=csrf, created_at=_now()))

        self._guarded(work)

    def bind_web_session(self, token_hash: str, player: str | None) -> None:
        """Make a web session ``player``'s (``None``: a guest again)."""

        def work() -> None:
            with self._session() as session:
                row = session.get_one(WebSessionRow, token_hash)
                row.player_id = self._player(session, player, create=True).id if player is not None else None

        self._guarded(work)

    def drop_web_session(self, token_hash: str) -> None:
        """Forget a web session (its cookie then means nothing)."""

        def work() -> None:
            with self._session() as session:
                row = session.get(WebSessionRow, token_hash)
                if row is not None:
                    session.delete(row)

        self._guarded(work)

    def login_failures(self, keys: list[str], since: datetime) -> int:
        """Failed logins since ``since`` on any of ``keys`` (the most on one key)."""

        def work() -> int:
            with self._session() as session:
                failed = select(func.count(LoginFailureRow.id)).where(LoginFailureRow.at >= since)
                counts = [session.scalar(failed.where(LoginFailureRow.key == key)) or 0 for key in keys]
                return max(counts, default=0)

        return self._guarded(work)

    def record_login_failure(self, keys: list[str]) -> list[int]:
        """Count a failed login against each of ``keys`` (a login is counted as failed before its password
        is checked, so attempts sent at once cannot all pass the limit); the ids, to forget them once the
        password proves right."""

        def work() -> list[int]:
            with self._session() as session:
                rows = [LoginFailureRow(key=key[:200], at=_now()) for key in keys]
                session.add_all(rows)
                session.flush()
                return [row.id for row in rows]

        return self._guarded(work)

    def forget_login_failures(self, ids: list[int]) -> None:
        """Forget counted failures (a login that succeeded)."""

        def work() -> None:
            with self._session() as session:
                session.execute(delete(LoginFailureRow).where(LoginFailureRow.id.in_(ids)))

        self._guarded(work)

    def adopt_games(self, guest: str, player: str) -> int:
        """Make a guest's games ``player``'s (a guest who registers or logs in keeps what they played);
        how many moved."""

        def work() -> int:
            with self._session() as session:
                old = session.scalar(select(PlayerRow).where(PlayerRow.key == name_key(guest)))
                if old is None or old.key is None or not old.key.startswith(GUEST_PREFIX):
                    return 0
                new = self._player(session, player, create=False)
                moved = session.execute(update(GameRow).where(GameRow.player_id == old.id).values(player_id=new.id))
                session.execute(update(GameRow).where(GameRow.maker_id == old.id).values(maker_id=new.id))
                return int(moved.rowcount)  # type: ignore[attr-defined]

        return self._guarded(work)

    def save_match(
        self,
        state: str,
        match_id: int | None = None,
        *,
        expect: str | None = None,
        player: str | None = None,
        public_id: str | None = None,
    ) -> int:
        """Store (or update) a match's state; returns its id. With ``expect``, the update happens only if
        the stored state is still ``expect`` (else :class:`StoreError`: another request moved the match
        on meanwhile). A new match may name its ``player`` and the ``public_id`` the web shows for it."""

        def work() -> int:
            with self._session() as session:
                row = session.get(MatchRow, match_id) if match_id is not None else None
                if row is None:
                    owner = self._player(session, player, create=True).id if player is not None else None
                    row = MatchRow(state=state, started_at=_now(), public_id=public_id, player_id=owner)
                    session.add(row)
                elif expect is not None:
                    moved = session.execute(
                        update(MatchRow).where(MatchRow.id == row.id, MatchRow.state == expect).values(state=state)
                    )
                    if moved.rowcount != 1:  # type: ignore[attr-defined]
                        raise MovedOnError("the match was moved on elsewhere meanwhile")
                    return row.id
                row.state = state
                session.flush()
                return row.id

        return self._guarded(work)

    def match_by_public_id(self, public_id: str) -> tuple[int, str | None, str]:
        """The id, player and state of the match with this public id (a usage error when none has it)."""

        def work() -> tuple[int, str | None, str]:
            with self._session() as session:
                row = session.scalar(select(MatchRow).where(MatchRow.public_id == public_id))
                if row is None:
                    raise UnknownRecordError("no such match")
                owner = session.get(PlayerRow, row.player_id) if row.player_id is not None else None
                return row.id, owner.name if owner is not None else None, row.state

        return self._guarded(work)

    def server_key(self, name: str) -> bytes:
        """The server's secret key ``name`` (32 random bytes made on first use, the same for every
        process after): never shown."""

        def work() -> bytes:
            with self._session() as session:
                row = session.get(ServerKeyRow, name)
                if row is not None:
                    return bytes.fromhex(row.value)
            try:
                with self._session() as session:
                    session.add(ServerKeyRow(name=name, value=secrets.token_hex(32)))
            except IntegrityError:
                pass  # made at the same moment by another process: theirs stands
            with self._session() as session:
                return bytes.fromhex(session.get(ServerKeyRow, name).value)  # type: ignore[union-attr]

        return self._guarded(work)

    def daily_games(self, daily: str, player: str | None = None) -> list[GameRecord]:
        """The games of the ``daily`` puzzle (``YYYY-MM-DD preset``), or ``player``'s only, oldest first."""

        def work() -> list[GameRecord]:
            with self._session() as session:
                query = select(GameRow).where(GameRow.daily == daily).order_by(GameRow.id)
                if player is not None:
                    query = query.where(GameRow.player_id == self._player(session, player, create=True).id)
                return self._records(session, session.scalars(query))

        return self._guarded(work)

    def daily_days(self, player: str, suffix: str) -> list[str]:
        """The puzzles ``player`` solved whose name ends in `` suffix`` (a preset), newest first."""

        def work() -> list[str]:
            with self._session() as session:
                row = session.scalar(select(PlayerRow).where(PlayerRow.key == name_key(player)))
                if row is None:
                    return []
                query = (
                    select(GameRow.daily)
                    .where(GameRow.player_id == row.id, GameRow.daily.like(f"% {suffix}"), GameRow.outcome == "solved")
                    .order_by(GameRow.daily.desc())
                )
                return [d for d in session.scalars(query) if d is not None]

        return self._guarded(work)

    # -- matches between two people ----------------------------------------------------------------

    def start_live(self, player: str, state: str, public_id: str) -> int:
        """Record a match between two people, waiting for its second player; returns its id."""

        def work() -> int:
            with self._session() as session:
                row = MatchRow(
                    state=state,
                    started_at=_now(),
                    public_id=public_id,
                    player_id=self._player(session, player, create=True).id,
                    version=0,
                    seen_first=_now(),
                )
                session.add(row)
                session.flush()
                return row.id

        return self._guarded(work)

    def live(self, public_id: str) -> LiveRecord:
        """The match with this public id, as live play needs it (a usage error when there is none)."""

        def work() -> LiveRecord:
            with self._session() as session:
                row = session.execute(_live_query(), {"public_id": public_id}).one_or_none()
                if row is None:
                    raise UnknownRecordError("no such match")
                match_id, first_name, second_name, version, state, *times = row
                seen = tuple(_aware(t) if t is not None else None for t in times)
                return LiveRecord(match_id, first_name, second_name, version, state, seen)

        return self._guarded(work)

    def save_live(self, match_id: int, state: str, version: int, *, opponent: str | None = None) -> int:
        """Store a match's new state if it is still at ``version`` (else :class:`StoreError`: another request
        moved it on); the new version. ``opponent`` takes the second seat (only if it is free)."""

        def work() -> int:
            with self._session() as session:
                values: dict[str, Any] = {"state": state, "version": version + 1}
                where = [MatchRow.id == match_id, MatchRow.version == version]
                if opponent is not None:
                    values.update(opponent_id=self._player(session, opponent, create=True).id, seen_second=_now())
                    where.append(MatchRow.opponent_id.is_(None))
                moved = session.execute(update(MatchRow).where(*where).values(**values))
                if moved.rowcount != 1:  # type: ignore[attr-defined]
                    raise MovedOnError("the match was moved on elsewhere meanwhile")
                return version + 1

        return self._guarded(work)

    def touch_live(self, match_id: int, seat: int, *, bump: bool = False) -> int:
        """Note that seat ``seat`` (0 or 1) of a match is here now; with ``bump``, mark the match changed
        (a move in its game) for live viewers. The match's version, after."""

        def work() -> int:
            with self._session() as session:
                values: dict[str, Any] = {"seen_first" if seat == 0 else "seen_second": _now()}
                if bump:
                    values["version"] = MatchRow.version + 1
                query = update(MatchRow).where(MatchRow.id == match_id).values(**values).returning(MatchRow.version)
                return int(session.execute(query).scalar_one())

        return self._guarded(work)

    def notify(self, channel: str, payload: str) -> None:
        """Tell every process listening on ``channel`` (PostgreSQL's NOTIFY); nothing on other databases,
        whose one process is told directly."""
        if self.engine.dialect.name != "postgresql":
            return

        def work() -> None:
            with self._session() as session:
                session.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": channel, "payload": payload})

        self._guarded(work)

    def live_matches(self, player: str, limit: int = 50) -> list[tuple[str, str]]:
        """The public ids and states of the matches between people ``player`` sits in, newest first."""

        def work() -> list[tuple[str, str]]:
            with self._session() as session:
                row = session.scalar(select(PlayerRow).where(PlayerRow.key == name_key(player)))
                if row is None:
                    return []
                query = (
                    select(MatchRow.public_id, MatchRow.state)
                    .where(or_(MatchRow.player_id == row.id, MatchRow.opponent_id == row.id))
                    .where(MatchRow.opponent_id.is_not(None) | MatchRow.state.like('%"live"%'))
                    .order_by(MatchRow.id.desc())
                    .limit(limit)
                )
                return [(p, s) for p, s in session.execute(query) if p is not None]

        return self._guarded(work)

    def listen(self, channel: str, heard: Callable[[str], None]) -> bool:
        """On PostgreSQL, call ``heard`` with the payload of every NOTIFY on ``channel`` (``heard`` checks it),
        from a thread of its own that reconnects if the server goes away; ``False`` (and nothing) on other
        databases."""
        if self.engine.dialect.name != "postgresql":
            return False
        conninfo = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

        def listen() -> None:
            import psycopg

            while True:
                try:
                    with psycopg.connect(conninfo, autocommit=True) as connection:
                        connection.execute(f"LISTEN {channel}")
                        for note in connection.notifies():
                            heard(note.payload)
                except Exception as error:  # the server went away: listen again shortly
                    logging.getLogger("keypeg.store").warning("listening on %s paused: %s", channel, error)
                    time.sleep(1.0)

        threading.Thread(target=listen, name=f"keypeg-listen-{channel}", daemon=True).start()
        return True

    def match_public_id(self, match_id: int) -> str | None:
        """The public id of a match started on the web (``None`` for one started elsewhere)."""

        def work() -> str | None:
            with self._session() as session:
                row = session.get(MatchRow, match_id)
                return row.public_id if row is not None else None

        return self._guarded(work)

    # -- queries ------------------------------------------------------------------------------------

    def _records(self, session: Session, rows: Any, with_moves: bool = False) -> list[GameRecord]:
        records = []
        for row in rows:
            try:
                moves = [Move(m.number, m.guess, Feedback(m.black, m.white)) for m in row.moves] if with_moves else []
            except KeypegError as error:
                raise DamagedRecordError(f"game {row.id}: {error}") from None
            records.append(
                GameRecord(
                    id=row.id,
                    player=row.player.name,
                    rules=_rules_of(row),
                    role=row.role,
                    level=row.level,
                    secret=row.secret if row.outcome is not None else None,
                    outcome=row.outcome,
                    guesses=row.guesses,
                    started_at=row.started_at,
                    ended_at=row.ended_at,
                    moves=moves,
                    rated=bool(row.rated),
                    public_id=row.public_id,
                    daily=row.daily,
                    maker=session.get(PlayerRow, row.maker_id).name if row.maker_id is not None else None,  # type: ignore[union-attr]
                )
            )
        return records

    def game(self, game_id: int) -> GameRecord:
        """One game with its guesses (its secret only once it is over)."""
        return self.saved_game(game_id).record

    def history(
        self,
        player: str | None = None,
        *,
        limit: int | None = 20,
        rules: Rules | None = None,
        with_moves: bool = False,
        made: bool = False,
    ) -> list[GameRecord]:
        """The latest games, newest first (of one player, and with ``made`` the games whose code they set
        for another person too; of one game and row limit)."""

        def work() -> list[GameRecord]:
            with self._session() as session:
                query = select(GameRow).order_by(GameRow.started_at.desc(), GameRow.id.desc())
                if player is not None:
                    who = self._player(session, player, create=False).id
                    query = query.where(
                        or_(GameRow.player_id == who, GameRow.maker_id == who) if made else GameRow.player_id == who
                    )
                if rules is not None:
                    query = query.where(GameRow.variant == rules.slug, GameRow.rows == rules.rows)
                if limit is not None:
                    query = query.limit(limit)
                return self._records(session, session.scalars(query), with_moves)

        return self._guarded(work)

    def top(self, rules: Rules, *, limit: int = TOP_SIZE, minimum: int = MIN_RANKED_GAMES) -> list[Ranking]:
        """The leaderboard of a game (its pegs, colours, repeats, blanks and row limit): the players with at
        least ``minimum`` rated games, by average guesses, a game lost, resigned or unfinished counted as
        the row limit plus one; ties go to the player with more rated games, then to the one whose latest
        rated game came first. Practice games and guests never count."""
        score = case((GameRow.outcome == "solved", GameRow.guesses), else_=GameRow.rows + 1)  # GameRecord.score
        games, average, last = func.count(GameRow.id), func.avg(score), func.max(GameRow.started_at)

        def work() -> list[Ranking]:
            with self._session() as session:
                query = (
                    select(PlayerRow.name, games, average, func.min(score), last)
                    .join(GameRow, GameRow.player_id == PlayerRow.id)
                    .where(
                        GameRow.rated.is_(True),
                        GameRow.role == "breaker",
                        PlayerRow.key.not_like(f"{GUEST_PREFIX}%"),  # a guest can be new at will: never ranked
                        GameRow.variant == rules.slug,
                        GameRow.rows == rules.rows,
                    )
                    .group_by(PlayerRow.id, PlayerRow.name)
                    .having(games >= minimum)
                    .order_by(average, games.desc(), last, PlayerRow.id)
                    .limit(limit)
                )
                return [
                    Ranking(rank, name, int(count), float(mean), int(best), when)
                    for rank, (name, count, mean, best, when) in enumerate(session.execute(query), 1)
                ]

        return self._guarded(work)

    def stats(self, player: str, *, rules: Rules | None = None) -> PlayerStats:
        """A player's finished games as codebreaker (of one game and row limit, when ``rules`` are given):
        count, wins, average/best/worst guesses of the wins, the average with losses counted as the row
        limit plus one, breakdowns by variant and row limit and by level, and the trend."""
        games = [
            g
            for g in reversed(self.history(player, limit=None, rules=rules))
            if g.role == "breaker" and g.outcome is not None
        ]
        wins = [g for g in games if g.outcome == "solved"]

        def summary(group: list[GameRecord]) -> tuple[int, int, float | None]:
            won = [g.guesses for g in group if g.outcome == "solved"]
            return len(group), len(won), (sum(won) / len(won) if won else None)

        by_variant: dict[str, list[GameRecord]] = {}
        by_level: dict[str, list[GameRecord]] = {}
        for g in games:
            by_variant.setdefault(g.variant, []).append(g)
            by_level.setdefault(str(g.level) if g.level is not None else "-", []).append(g)
        return PlayerStats(
            games=len(games),
            wins=len(wins),
            average=sum(g.guesses for g in wins) / len(wins) if wins else None,
            best=min((g.guesses for g in wins), default=None),
            worst=max((g.guesses for g in wins), default=None),
            by_variant={k: summary(v) for k, v in sorted(by_variant.items())},
            by_level={k: summary(v) for k, v in sorted(by_level.items())},
            trend=[g.score or 0 for g in games],
            score=sum(g.score or 0 for g in games) / len(games) if games else None,
        )


@functools.cache
def _head_revision() -> str:
    """The newest schema revision keypeg knows: revision files are named by their id (``0002_...``)."""
    return max(path.name.split("_")[0] for path in (MIGRATIONS / "versions").glob("[0-9]*_*.py"))


class DamagedRecordError(KeypegError, ValueError):
    """A stored game whose values cannot be rules or moves (a hand-edited database)."""


def _rules_of(row: GameRow) -> Rules:
    """A stored game's rules: kept whole since schema 0003; before, only the game and row limit (letters)."""
    try:
        plain = Rules(row.pegs, row.colors, repeats=row.repeats, blanks=row.blanks, rows=row.rows)
    except KeypegError as error:
        raise DamagedRecordError(f"game {row.id}: {error}") from None
    if row.rules is None:
        return plain
    try:
        rules = Rules.from_dict(json.loads(row.rules))
    except (ValueError, TypeError, KeypegError):
        return plain
    return rules if rules.game == plain.game and rules.rows == plain.rows else plain


def _private_file(path: str | None) -> None:
    """Create the SQLite file readable by its owner only (it holds password hashes); a folder that does
    not exist is not made (a mistyped URL would otherwise start a new, empty database somewhere)."""
    if path and path.startswith("file:"):  # a URI: file:/path/to/db?mode=...
        path = path.removeprefix("file:").split("?", 1)[0].removeprefix("//localhost")
    if not path or path == ":memory:":
        return
    file = Path(path)
    try:
        if file.exists():
            if file.stat().st_mode & 0o077 and file.stat().st_uid == os.getuid():
                file.chmod(0o600)  # a database an earlier keypeg made readable by everyone
        elif file.parent.is_dir():
            os.close(os.open(file, os.O_CREAT | os.O_WRONLY, 0o600))  # SQLite gives its -wal and -shm files this mode
        else:
            raise BadStoreAddressError(f"no folder {quoted(str(file.parent))} for the database {quoted(path)}")
    except OSError as error:  # a name too long is bad input; anything else a failure here
        kind = BadStoreAddressError if error.errno == errno.ENAMETOOLONG else StoreUnavailableError
        raise kind(f"cannot create the database file {quoted(path)}: {error.strerror or error}") from None


@functools.cache
def _live_query() -> Any:
    """A live match by its public id, with its seats' names: one round trip. Built once (an aliased join
    costs more to build than to run)."""
    first, second = aliased(PlayerRow), aliased(PlayerRow)
    return (
        select(MatchRow.id, first.name, second.name, MatchRow.version, MatchRow.state)
        .add_columns(MatchRow.seen_first, MatchRow.seen_second)
        .outerjoin(first, first.id == MatchRow.player_id)
        .outerjoin(second, second.id == MatchRow.opponent_id)
        .where(MatchRow.public_id == bindparam("public_id"))
    )


def _engine_options(url: str) -> dict[str, Any]:
    if url.startswith("sqlite"):
        return {"connect_args": {"timeout": 15}}
    # At most 15 connections per process, as SQLAlchemy's default (5 kept, 10 more), but all 15 kept
    # once opened: a web worker busy with more than 5 requests otherwise opened and closed a connection
    # for every few requests (a server process forked and ended each time, on PostgreSQL).
    return {"pool_pre_ping": True, "pool_size": POOL_SIZE, "max_overflow": 0}


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    connection.isolation_level = None  # transactions are begun explicitly, below
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=15000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(connection: Any) -> None:
    """Take the write lock when a transaction starts, so two processes queue instead of failing
    (a read transaction that later writes cannot wait for the lock in WAL mode)."""
    connection.exec_driver_sql("BEGIN IMMEDIATE")
