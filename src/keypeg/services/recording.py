"""What is recorded of a game and a match, and how a game kept in the store is continued.

:class:`GameKeeper` writes a session to the store as it is played: after every move the
guesses and the session's public state, in one transaction; the secret only on the
store's private side; the outcome, and whether the game is rated, when it ends.
:func:`continue_game` loads a game in progress by id, in any process (a daily attempt whose day has
ended is closed there, as not broken).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from keypeg.code import Code, Feedback
from keypeg.errors import ConflictError, KeypegError, NotFoundError, RefusedError, UnavailableError
from keypeg.play.daily import attempt_day, check_open
from keypeg.play.sessions import Session, session_from_state
from keypeg.rules import Rules
from keypeg.services.daily import close_ended

if TYPE_CHECKING:
    from keypeg.play.matches import MatchSession
    from keypeg.store import SavedGame, Store

__all__ = [
    "GameKeeper",
    "InMatchError",
    "MatchKeeper",
    "NotKeptError",
    "PlayedElsewhereError",
    "RecordingError",
    "continue_game",
]


class RecordingError(KeypegError):
    """A move of a game in progress could not be written: the store keeps the copy it had, which
    :attr:`game_id` goes on with; :attr:`cause` says why, as the store said it."""

    def __init__(self, message: str, game_id: int | None, cause: str) -> None:
        super().__init__(message)
        self.game_id = game_id
        self.cause = cause


class NotKeptError(RecordingError, UnavailableError):
    """The store could not take the move (locked, read-only, down)."""


class InMatchError(RefusedError):
    """A game of a match asked for outside its match: it goes on only within the match."""


class PlayedElsewhereError(RecordingError, ConflictError):
    """The game was played on elsewhere since it was loaded: this copy is not kept."""


@dataclass
class GameKeeper:
    """Keeps one session's game in the store. A write that fails raises :class:`PlayedElsewhereError`
    (another process played the game meanwhile) or :class:`NotKeptError` (the database is locked,
    read-only or down): the game must stop there, its secret unshown, for the store still holds it
    unfinished (the faces say how to go on with it)."""

    store: Store | None
    game_id: int | None = None
    written: list[tuple[Code, Feedback]] = field(default_factory=list)
    finished: bool = False
    """Whether the end of the game is written (nothing more is, after it)."""
    version: int = 0
    """The game's version in the store as this keeper last read or wrote it (a write names it: a game
    written elsewhere since is not overwritten)."""

    @property
    def recording(self) -> bool:
        """Whether the game is kept in the store (not when unrecorded, or once a write failed)."""
        return self.store is not None and self.game_id is not None

    @classmethod
    def start(
        cls,
        store: Store,
        player: str,
        session: Session,
        *,
        match_id: int | None = None,
        public_id: str | None = None,
        daily: str | None = None,
        maker: str | None = None,
        rated: bool | None = None,
        key: tuple[str, str] | None = None,
    ) -> GameKeeper:
        """Record a new game of ``player`` as it starts (the store's errors propagate); ``public_id`` is
        the unguessable id a web front end shows for it, ``daily`` the puzzle it is, ``maker`` the person
        who set its code (a game between two people); ``rated=False`` keeps a game the session would rate
        out of the rankings; ``key``, an idempotency key and the digest of the request, is recorded with
        the game, in its transaction."""
        state, secret = session.to_state()
        level = getattr(session, "level", None)
        game_id = store.games.start(
            player,
            session.rules,
            role=session.role,
            level=level,
            secret=str(secret) if secret is not None else None,
            match_id=match_id,
            state=json.dumps(state),
            rated=session.rated and rated is not False,
            public_id=public_id,
            daily=daily,
            maker=maker,
            key=key,
        )
        keeper = cls(store, game_id)
        keeper.sync(session)
        return keeper

    def sync(self, session: Session) -> None:
        """Write what changed since the last call: guesses taken back or rescored, new guesses, the
        state; the outcome once the game is over."""
        if self.store is None or self.game_id is None or self.finished:
            return
        history = list(session.history)
        keep = next((k for k, (a, b) in enumerate(zip(self.written, history, strict=False)) if a != b), None)
        keep = min(len(self.written), len(history)) if keep is None else keep
        moves = [(str(g), f) for g, f in history[keep:]]
        state, _ = session.to_state()
        outcome = session.outcome()
        secret = outcome.secret if outcome is not None else None
        try:
            self.version = self.store.games.update(
                self.game_id,
                keep=keep,
                moves=moves,
                state=json.dumps(state),
                outcome=outcome.termination.value if outcome is not None else None,
                secret=str(secret) if secret is not None else None,
                expect=self.version,
            )
            self.written = history
            self.finished = outcome is not None
        except ConflictError as error:
            self.store = None
            raise PlayedElsewhereError(
                "the game was played on elsewhere meanwhile: load it again to go on", self.game_id, str(error)
            ) from None
        except KeypegError as error:
            self.store = None
            raise NotKeptError(f"the move was not kept: {error}", self.game_id, str(error)) from None


def continue_game(
    store: Store,
    game_id: int,
    player: str | None = None,
    *,
    kind: str | None = None,
    match_id: int | None = None,
    over_ok: bool = False,
    saved: SavedGame | None = None,
) -> tuple[Session, GameKeeper]:
    """A game in progress, loaded from the store to go on where it stopped (in this process or another).

    The game must be ``player``'s (when given) and of ``kind`` (``break`` or ``solve``, when given); a
    game of a match continues only within that match (``match_id``). A finished game is refused, or,
    with ``over_ok``, loaded to be shown (its keeper writes nothing more). An attempt at a daily puzzle
    whose day has ended unfinished is closed as not broken and kept so; then, unless ``over_ok``, refused
    (:class:`~keypeg.play.daily.DayOverError`). ``saved`` is the game as just read from the store, when
    the caller has it."""
    saved = saved if saved is not None and saved.record.id == game_id else store.games.saved(game_id)
    record = saved.record
    if player is not None and record.player != player:
        raise NotFoundError(f"game {game_id} is {record.player}'s, not {player}'s")
    if saved.match_id != match_id:
        raise InMatchError(f"game {game_id} belongs to a match: continue it within its match")
    if record.outcome is not None and not over_ok:
        raise RefusedError(f"game {game_id} is over ({record.outcome}); there is nothing to continue")
    if saved.state is None:
        raise KeypegError(f"game {game_id} was recorded by an earlier keypeg and cannot be continued")
    try:
        state = json.loads(saved.state)
        if not isinstance(state, dict):
            raise ValueError
        rules = Rules.from_dict(state.get("rules", {}))
        secret = rules.adopt(record.rules.parse(saved.secret)) if saved.secret else None
    except (ValueError, KeypegError):
        raise KeypegError(f"game {game_id} has a damaged state") from None
    session = session_from_state(state, secret)
    if kind is not None and session.kind != kind:
        raise RefusedError(f"game {game_id} is not a '{'play' if kind == 'break' else 'solve'}' game")
    keeper = GameKeeper(
        store, game_id, written=list(session.history), finished=record.outcome is not None, version=saved.version
    )
    if close_ended(session, keeper) and not over_ok:
        day = attempt_day(session)
        assert day is not None
        check_open(day)
    return session, keeper


@dataclass
class MatchKeeper:
    """Keeps a match's state in the store (its games point at it) under :attr:`MatchSession.match_id`."""

    store: Store | None
    on_error: Callable[[str], None] | None = None

    def save(self, match: MatchSession) -> int | None:
        """Store the match's state now; returns its id."""
        if self.store is None:
            return None
        try:
            match.match_id = self.store.matches.save(json.dumps(match.to_state()), match.match_id)
        except KeypegError as error:
            if self.on_error is not None:
                self.on_error(f"match recording stopped: {error}")
            self.store = None
        return match.match_id
