"""One game, for every face: start it (either role), load it, make a move (guess, score, fix, undo,
resign, help) and save it, in that order, and what its player may see of it.

A game is kept in the store as it is played when a store is given (the web always; the terminal unless
``--no-record``); a game of someone else's is "not found", exactly like one that does not exist.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar, cast

from keypeg.code import Code, Feedback
from keypeg.errors import ConflictError, IllegalMoveError, KeypegError, NotFoundError, RefusedError, TooLargeError
from keypeg.limits import WEB_MATCH_GAMES, WEB_THINK_LIMIT
from keypeg.play.codemakers import DailyCodemaker, RandomCodemaker
from keypeg.play.daily import attempt_day, check_open
from keypeg.play.sessions import BreakSession, Session, SolveSession
from keypeg.rules import Rules
from keypeg.services.accounts import is_guest
from keypeg.services.recording import GameKeeper, continue_game
from keypeg.store.game_keys import KeyTakenError

if TYPE_CHECKING:
    from keypeg.play.coach import Review
    from keypeg.store import SavedGame, Store
    from keypeg.store.games import GameWrite
    from keypeg.strategies.choice import Choice

__all__ = [
    "EXPLAIN_TOP",
    "KEY_LENGTH",
    "BadKeyError",
    "GameView",
    "KeyReusedError",
    "OpenGame",
    "RowPlayedError",
    "breaking",
    "check_key",
    "check_match_games",
    "check_row",
    "check_thinkable",
    "explain",
    "fix",
    "guess",
    "hint",
    "load",
    "new_id",
    "new_session",
    "play",
    "resign",
    "resume",
    "review",
    "save",
    "score",
    "solving",
    "start",
    "start_new",
    "undo",
    "view",
]

EXPLAIN_TOP = 4
"""How many of the computer's candidate guesses the verbose view shows, with their figures."""

Status = Literal["playing", "won", "lost"]


def new_id() -> str:
    """An unguessable public id for a game or a match."""
    return secrets.token_urlsafe(16)


def check_thinkable(rules: Rules, work: str) -> None:
    """Refuse ``work`` that needs the computer to think on a game of more than
    :data:`~keypeg.limits.WEB_THINK_LIMIT` codes, as a server shared by many must."""
    if rules.size > WEB_THINK_LIMIT:
        raise TooLargeError(
            f"{rules.size:,} codes are too many for {work} here (at most {WEB_THINK_LIMIT:,}); "
            "the terminal has no such limit"
        )


def check_match_games(count: int) -> None:
    """Refuse a match of other than an even number of games from 2 to
    :data:`~keypeg.limits.WEB_MATCH_GAMES`, as matches are started on the web."""
    if count < 2 or count % 2 or count > WEB_MATCH_GAMES:
        raise RefusedError(f"a match has an even number of games, from 2 to {WEB_MATCH_GAMES}, not {count:,}")


def new_session(rules: Rules, role: str, *, level: int = 3, practice: bool = False) -> Session:
    """A game as a person starts one on the web: breaking the computer's random code (rated unless
    ``practice``), or scoring the computer's guesses at ``level``."""
    if role == "breaker":
        if practice:
            check_thinkable(rules, "hints")
        return BreakSession.new(rules, RandomCodemaker.draw(rules), practice=practice)
    check_thinkable(rules, "the computer to break your code")
    return SolveSession(rules, level=level, top=EXPLAIN_TOP)


@dataclass
class OpenGame:
    """A game loaded (or just started) for a use case: the play layer's session and its keeper."""

    game: Session
    keeper: GameKeeper
    public_id: str | None = None
    match_id: int | None = None
    """The store's id of the match the game belongs to, if any."""
    daily: str | None = None
    """The daily puzzle the game is (``2026-11-23 classic``), if it is one."""
    counts: bool | None = None
    """Whether the store ranks the game (``None``: as the session says): a guest's game, and one adopted
    into an account as practice, is played on without help but never counts."""
    replayed: bool = False
    """Whether the game was started earlier by the same request (its idempotency key): nothing new started."""


def start(
    store: Store | None,
    player: str,
    game: Session,
    *,
    match_id: int | None = None,
    public: bool = False,
    daily: str | None = None,
    maker: str | None = None,
    key: tuple[str, str] | None = None,
) -> OpenGame:
    """Record a new game of ``player`` (unrecorded without a ``store``); with ``public`` it gets an
    unguessable public id, as the web shows games, and with ``key`` (an idempotency key and the digest of
    the request) the key is recorded with it. A guest's game is never rated (ranked means committed:
    a guest can be new at will), though it is played without help as a rated game is."""
    if store is None:
        return OpenGame(game, GameKeeper(None))
    public_id = new_id() if public else None
    counts = False if is_guest(player) else None
    keeper = GameKeeper.start(
        store, player, game, match_id=match_id, public_id=public_id, daily=daily, maker=maker, rated=counts, key=key
    )
    return OpenGame(game, keeper, public_id, match_id, daily, counts)


class BadKeyError(KeypegError, ValueError):
    """An idempotency key that is empty, too long, or not printable ASCII."""


class KeyReusedError(ConflictError):
    """An idempotency key sent again with another request than the one that started its game."""


KEY_LENGTH = 100
"""The longest idempotency key taken (characters)."""


def check_key(key: str) -> None:
    """Refuse (:class:`BadKeyError`) an idempotency key other than 1 to :data:`KEY_LENGTH` printable
    ASCII characters (never echoed)."""
    if not 0 < len(key) <= KEY_LENGTH or not all(" " <= c <= "~" for c in key):
        raise BadKeyError(f"an idempotency key is 1 to {KEY_LENGTH} printable ASCII characters")


def start_new(
    store: Store,
    player: str,
    rules: Rules,
    role: str,
    *,
    level: int = 3,
    practice: bool = False,
    key: str | None = None,
) -> OpenGame:
    """A game of ``player`` as the web starts one (:func:`new_session`), recorded under an unguessable
    public id. With an idempotency ``key`` (:func:`check_key`), the game ``player`` started with that key
    in the last 24 hours is loaded instead, as it is now (``replayed``), and nothing is started: a request
    retried because its answer was lost makes one game; the key sent with another request (other rules,
    role, level or practice) is refused (:class:`KeyReusedError`). Keys are the player's: nobody else's
    key finds their game."""
    if key is not None:
        check_key(key)
        asked = json.dumps({"rules": rules.as_dict(), "role": role, "level": level, "practice": practice})
        request = hashlib.sha256(asked.encode()).hexdigest()
        found = store.games.keyed(player, key)
        if found is None:
            try:
                return start(
                    store,
                    player,
                    new_session(rules, role, level=level, practice=practice),
                    public=True,
                    key=(key, request),
                )
            except KeyTakenError:  # the same request sent twice at once: the other one started the game
                found = store.games.keyed(player, key)
                if found is None:
                    raise
        if found.request != request:
            raise KeyReusedError("this idempotency key started a game of other settings: a new game needs a new key")
        opened = load(store, player, found.public_id)
        opened.replayed = True
        return opened
    return start(store, player, new_session(rules, role, level=level, practice=practice), public=True)


def load(store: Store, player: str | None, public_id: str) -> OpenGame:
    """The game of public id ``public_id``, if it is ``player``'s (:class:`NotFoundError` otherwise, as
    for a game that does not exist)."""
    try:
        game_id, owner = store.games.owned(public_id)
    except NotFoundError:
        raise NotFoundError("no such game") from None
    if player is None or owner != player:
        raise NotFoundError("no such game")
    saved = store.games.saved(game_id)
    game, keeper = continue_game(store, game_id, player, match_id=saved.match_id, over_ok=True, saved=saved)
    return OpenGame(game, keeper, public_id, saved.match_id, saved.record.daily, saved.record.rated)


T = TypeVar("T")


class _Daily(Exception):
    """A daily attempt: played by :func:`load` and its own writes (its day may close it as it loads)."""


class _InMove:
    """A stand-in for the store within one move's transaction: the game is written there."""

    def __init__(self, write: GameWrite) -> None:
        self.games = write


def play(store: Store, player: str | None, public_id: str, act: Callable[[OpenGame], T]) -> tuple[OpenGame, T]:
    """``act`` on ``player``'s game of public id ``public_id`` (:class:`NotFoundError` for anyone else's)
    in ONE transaction: the game read (its row locked), moved by ``act`` and written as it saves; nothing is
    written when ``act`` raises. The game as moved, and what ``act`` returned."""
    if player is None:
        raise NotFoundError("no such game")

    def work(saved: SavedGame, write: GameWrite) -> tuple[OpenGame, T]:
        record = saved.record
        if record.player != player:
            raise NotFoundError("no such game")
        if record.daily is not None:
            raise _Daily
        within = cast("Store", _InMove(write))
        game, keeper = continue_game(within, record.id, player, match_id=saved.match_id, over_ok=True, saved=saved)
        opened = OpenGame(game, keeper, public_id, saved.match_id, record.daily, record.rated)
        return opened, act(opened)

    try:
        opened, result = store.games.move(public_id, work)
    except _Daily:
        opened = load(store, player, public_id)
        return opened, act(opened)
    except NotFoundError:
        raise NotFoundError("no such game") from None
    opened.keeper = GameKeeper(None)  # the transaction is over: nothing more is written through it
    return opened, result


def resume(store: Store, game_id: int, player: str, kind: str) -> OpenGame:
    """Game ``game_id`` of ``player``, of ``kind`` (``break`` or ``solve``), to go on where it stopped."""
    game, keeper = continue_game(store, game_id, player, kind=kind)
    return OpenGame(game, keeper)


def save(game: OpenGame) -> None:
    """Write the moves just made (:class:`~keypeg.services.recording.PlayedElsewhereError` when another
    request moved the game on meanwhile, :class:`~keypeg.services.recording.NotKeptError` when the store
    cannot take them)."""
    game.keeper.sync(game.game)


class RowPlayedError(ConflictError):
    """A move meant for another row than the next: the same request sent twice is applied once."""


def check_row(played: int, row: int | None) -> None:
    """Refuse (:class:`RowPlayedError`) a move meant for another row than the next after ``played`` rows:
    the same request sent twice (pressed twice, retried) is applied once."""
    if row is not None and row != played + 1:
        raise RowPlayedError(f"that move was for row {row}, and the next row is {played + 1}")


def breaking(game: OpenGame) -> BreakSession:
    """The game as one where the player guesses (refused otherwise)."""
    if not isinstance(game.game, BreakSession):
        raise IllegalMoveError("in this game the computer guesses: score its guesses")
    return game.game


def solving(game: OpenGame) -> SolveSession:
    """The game as one where the computer guesses and the player scores (refused otherwise)."""
    if not isinstance(game.game, SolveSession):
        raise IllegalMoveError("in this game you guess")
    return game.game


def guess(game: OpenGame, code: Code | str, *, row: int | None = None) -> Feedback:
    """The player's guess, scored and saved; on an attempt at a daily puzzle whose day has ended (closed by
    then, or not), refused (:class:`~keypeg.play.daily.DayOverError`)."""
    check_row(len(game.game.history), row)
    if (day := attempt_day(game.game)) is not None:
        check_open(day)
    feedback = breaking(game).guess(code)
    save(game)
    return feedback


def score(game: OpenGame, feedback: Feedback | str, *, row: int | None = None) -> None:
    """The player's score of the computer's guess (an impossible or contradicting one refused), saved."""
    check_row(len(game.game.history), row)
    solving(game).score(feedback)
    save(game)


def fix(game: OpenGame, number: int, feedback: Feedback | str) -> None:
    """Guess ``number`` rescored (the player mis-scored it), saved."""
    solving(game).fix(number, feedback)
    save(game)


def undo(game: OpenGame) -> None:
    """The last guess (a practice game) or the last score taken back, saved."""
    game.game.undo()
    save(game)


def resign(game: OpenGame) -> None:
    """The game given up (a rated game counts as lost), saved; a game over already is refused."""
    game.game.resign()
    save(game)


def hint(game: OpenGame) -> Code:
    """A hint (a practice game), kept with the game."""
    found = breaking(game).hint()
    save(game)
    return found


def explain(game: OpenGame, top: int = EXPLAIN_TOP) -> Choice:
    """The best guesses now, with their figures (a practice game), kept with the game."""
    choice = breaking(game).explain(top)
    save(game)
    return choice


def review(game: OpenGame) -> Review:
    """The coach's review of the player's last guess (a practice game), kept with the game."""
    found = breaking(game).review()
    save(game)
    return found


@dataclass(frozen=True)
class GameView:
    """A game as its player may see it: the secret only once the game is over."""

    rules: Rules
    role: Literal["breaker", "maker"]
    rated: bool
    status: Status
    rows_left: int
    history: tuple[tuple[str, Feedback], ...]
    guess: str | None
    """The computer's guess awaiting the player's score (role maker)."""
    secret: str | None
    helps: bool
    """Whether undo, hints, explain and the coach are offered (a practice game)."""
    can_undo: bool
    resigned: bool
    cut_off: bool = False
    """A daily attempt closed, not broken, by the end of its day (resigned for it)."""


def view(game: Session, *, counts: bool | None = None) -> GameView:
    """What the player of ``game`` may see of it now (rated only if the store ``counts`` it, when said)."""
    from keypeg.play.sessions import Action

    outcome = game.outcome()
    status: Status = "playing"
    if outcome is not None:
        status = "won" if outcome.solved == (game.role == "breaker") and not game.resigned else "lost"
    secret = outcome.secret if outcome is not None else None
    return GameView(
        rules=game.rules,
        role="maker" if isinstance(game, SolveSession) else "breaker",
        rated=game.rated and counts is not False,
        status=status,
        rows_left=game.rows_left,
        history=tuple((str(g), f) for g, f in game.history),
        guess=str(game.guess()) if isinstance(game, SolveSession) and not game.is_over else None,
        secret=str(secret) if secret is not None else None,
        helps=isinstance(game, BreakSession) and game.helps and not game.is_over,
        can_undo=Action.UNDO in game.actions(),
        resigned=game.resigned,
        cut_off=isinstance(maker := getattr(game, "codemaker", None), DailyCodemaker) and maker.cut_off,
    )
