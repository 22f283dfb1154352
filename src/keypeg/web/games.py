"""Games and matches as the web keeps them: started, loaded and saved through :mod:`keypeg.play` and the
store, and shown as views that hold nothing secret before a game ends. The JSON API and the pages both
use these; neither keeps any game in memory between requests.

A game belongs to the player of the session that started it (a guest gets a player of their own); a
game or match of anyone else is "not found", exactly like one that does not exist.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, replace
from typing import Literal

from fastapi import HTTPException, Request

from keypeg.code import Feedback
from keypeg.errors import KeypegError, NotFoundError, TooLargeError
from keypeg.game import Match
from keypeg.limits import WEB_THINK_LIMIT
from keypeg.play.codemakers import RandomCodemaker
from keypeg.play.matches import MatchSession
from keypeg.services.recording import GameKeeper, RecordingError, continue_game
from keypeg.play.sessions import BreakSession, Session, SolveSession
from keypeg.rules import Rules
from keypeg.store import StoreError
from keypeg.web.sessions import GUEST_PREFIX, WebSession, store_of

__all__ = [
    "COMPUTER",
    "YOU",
    "EXPLAIN_TOP",
    "GameView",
    "MatchView",
    "player_for",
    "check_thinkable",
    "new_game",
    "load_game",
    "expect_row",
    "save_game",
    "new_match",
    "load_match",
    "next_match_game",
    "game_view",
    "match_view",
    "new_id",
]

COMPUTER, YOU = "computer", "you"
"""The two seats of a match against the computer (the games are recorded under the session's player)."""
EXPLAIN_TOP = 4
"""How many of the computer's candidate guesses the verbose view shows, with their figures."""

Status = Literal["playing", "won", "lost"]


def new_id() -> str:
    """An unguessable public id for a game or a match."""
    return secrets.token_urlsafe(16)


def player_for(request: Request, session: WebSession) -> str:
    """The session's player; a guest gets a player of their own on their first game."""
    if session.player is not None:
        return session.player
    guest = f"{GUEST_PREFIX}{secrets.token_hex(6)}"
    store_of(request).web_sessions.bind(session.token_hash, guest)
    return guest


def check_thinkable(rules: Rules, work: str) -> None:
    """Refuse (a usage error, 400) ``work`` that needs the computer to think on too large a game."""
    if rules.size > WEB_THINK_LIMIT:
        raise TooLargeError(
            f"{rules.size:,} codes are too many for {work} here (at most {WEB_THINK_LIMIT:,}); "
            "the terminal's 'keypeg solve' has no such limit"
        )


def new_game(rules: Rules, role: str, *, level: int = 3, practice: bool = False) -> Session:
    """A game as a person starts one on the web: breaking the computer's random code (rated unless
    ``practice``), or scoring the computer's guesses at ``level``."""
    if role == "breaker":
        if practice:
            check_thinkable(rules, "hints")
        return BreakSession.new(rules, RandomCodemaker.draw(rules), practice=practice)
    check_thinkable(rules, "the computer to break your code")
    return SolveSession(rules, level=level, top=EXPLAIN_TOP)


def start_game(request: Request, session: WebSession, game: Session, *, match_id: int | None = None) -> str:
    """Record a new game of the session's player; its public id."""
    public_id = new_id()
    GameKeeper.start(store_of(request), player_for(request, session), game, match_id=match_id, public_id=public_id)
    return public_id


@dataclass(frozen=True)
class LoadedGame:
    """A game loaded for a request: the session, its keeper, and the match it belongs to (store id)."""

    game: Session
    keeper: GameKeeper
    match_id: int | None
    daily: str | None = None
    """The daily puzzle the game is (``2026-11-23 classic``), if it is one."""


def load_game(request: Request, session: WebSession, public_id: str) -> LoadedGame:
    """The game, if it is the session's player's (404 otherwise, as for a game that does not exist)."""
    store = store_of(request)
    try:
        game_id, owner = store.games.owned(public_id)
    except NotFoundError:  # a failing store is 503, not 'no such game'
        raise HTTPException(404, "no such game") from None
    if session.player is None or owner != session.player:
        raise HTTPException(404, "no such game")
    saved = store.games.saved(game_id)
    game, keeper = continue_game(store, game_id, session.player, match_id=saved.match_id, over_ok=True, saved=saved)
    return LoadedGame(game, keeper, saved.match_id, saved.record.daily)


def expect_row(loaded: LoadedGame, row: int | None) -> None:
    """Refuse (409) a move meant for another row than the next: the same request sent twice (a double
    click, a retry) is applied once."""
    if row is not None and row != len(loaded.game.history) + 1:
        raise HTTPException(409, f"that move was for row {row}, and the next row is {len(loaded.game.history) + 1}")


def save_game(loaded: LoadedGame) -> None:
    """Write the move just made; 409 when another request moved the game on meanwhile."""
    try:
        loaded.keeper.sync(loaded.game)
    except RecordingError:
        raise HTTPException(409, "the game was played on elsewhere meanwhile: reload it and go on") from None


# -- what may be shown -------------------------------------------------------------------------------


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


def game_view(game: Session) -> GameView:
    """What the player of ``game`` may see of it now."""
    from keypeg.play.sessions import Action

    outcome = game.outcome()
    status: Status = "playing"
    if outcome is not None:
        status = "won" if outcome.solved == (game.role == "breaker") and not game.resigned else "lost"
    secret = outcome.secret if outcome is not None else None
    return GameView(
        rules=game.rules,
        role="maker" if isinstance(game, SolveSession) else "breaker",
        rated=game.rated,
        status=status,
        rows_left=game.rows_left,
        history=tuple((str(g), f) for g, f in game.history),
        guess=str(game.guess()) if isinstance(game, SolveSession) and not game.is_over else None,
        secret=str(secret) if secret is not None else None,
        helps=isinstance(game, BreakSession) and game.helps and not game.is_over,
        can_undo=Action.UNDO in game.actions(),
        resigned=game.resigned,
    )


# -- matches against the computer ---------------------------------------------------------------------


@dataclass(frozen=True)
class LoadedMatch:
    """A match loaded for a request: the play layer's match, its store id, and the state and version it was
    read at."""

    match: MatchSession
    match_id: int
    state: str
    version: int


def new_match(request: Request, session: WebSession, rules: Rules, games: int, level: int) -> str:
    """Start a match against the computer (the computer makes the first code) and its first game; the
    match's public id."""
    check_thinkable(rules, "a match against the computer")
    store = store_of(request)
    player = player_for(request, session)
    session = replace(session, player=player)  # a guest's player, made just now, plays the match's games
    match = MatchSession(rules, Match((COMPUTER, YOU), games=games), computer=COMPUTER, level=level)
    public_id = new_id()
    state = json.dumps(match.to_state())
    match.match_id = store.matches.save(state, player=player, public_id=public_id)
    _start_next(request, session, match, expect=0)  # a new match is at version 0
    return public_id


def load_match(request: Request, session: WebSession, public_id: str) -> LoadedMatch:
    """The match, if it is the session's player's (404 otherwise)."""
    try:
        match_id, owner, state, version = store_of(request).matches.owned(public_id)
    except NotFoundError:  # a failing store is 503, not 'no such match'
        raise HTTPException(404, "no such match") from None
    if session.player is None or owner != session.player:
        raise HTTPException(404, "no such match")
    try:
        match = MatchSession.from_state(json.loads(state))
    except (ValueError, KeypegError):
        raise KeypegError("the match's record is damaged") from None
    return LoadedMatch(match, match_id, state, version)


def current_game(request: Request, loaded: LoadedMatch) -> tuple[str | None, bool]:
    """The public id of the match's game being played (or just finished and not yet counted), and
    whether it is over."""
    game_id = loaded.match.current_id
    if game_id is None:
        return None, False
    record = store_of(request).games.saved(game_id).record
    return record.public_id, record.outcome is not None


def next_match_game(request: Request, session: WebSession, loaded: LoadedMatch) -> None:
    """Count the match's finished game and start the next (409 when the game is still being played)."""
    store, match = store_of(request), loaded.match
    if match.current_id is None:
        raise HTTPException(409, "the match is over" if match.is_over else "no game to count")
    game, _ = continue_game(store, match.current_id, session.player, match_id=loaded.match_id, over_ok=True)
    if not game.is_over:
        raise HTTPException(409, "finish this game first (or resign it)")
    match.resume(game, match.current_id)
    match.finish()
    counted = json.dumps(match.to_state())
    _save_match(request, match, counted, expect=loaded.version)  # only one request counts the game
    _start_next(request, session, match, expect=loaded.version + 1)  # every write moves the version on by one


def _save_match(request: Request, match: MatchSession, state: str, *, expect: int) -> None:
    try:
        store_of(request).matches.save(state, match.match_id, expect=expect)
    except StoreError:
        raise HTTPException(409, "the match was moved on elsewhere meanwhile: reload it") from None


def _start_next(request: Request, session: WebSession, match: MatchSession, *, expect: int) -> None:
    """Start the match's next game (if any) on the version ``expect`` just saved, and save the match (no other
    request can have moved it on from that state: it can count no game)."""
    if match.is_over:
        return
    game = match.start()
    public = start_game(request, session, game, match_id=match.match_id)
    match.current_id = store_of(request).games.by_public_id(public)
    _save_match(request, match, json.dumps(match.to_state()), expect=expect)


@dataclass(frozen=True)
class MatchView:
    """A match as its player sees it: the games played, the points, the game being played."""

    rules: Rules
    games: int
    level: int
    played: tuple[tuple[str, int, bool, int], ...]
    """Per finished game: who made the code (``you`` or ``computer``), the guesses, whether it was broken,
    and the codemaker's points."""
    you: int
    computer: int
    over: bool
    winner: str | None
    game: str | None
    """The public id of the game being played."""
    game_over: bool
    """Whether that game is over (counted when the player goes on to the next)."""


def match_view(request: Request, loaded: LoadedMatch) -> MatchView:
    """What the player may see of a match."""
    match = loaded.match
    points = match.scores()
    game, game_over = current_game(request, loaded)
    return MatchView(
        rules=match.rules,
        games=match.match.games,
        level=match.level,
        played=tuple((g.codemaker, g.guesses, g.broken, g.points(match.match.scoring)) for g in match.match.played),
        you=points.get(YOU, 0),
        computer=points.get(COMPUTER, 0),
        over=match.is_over,
        winner=match.winner(),
        game=game,
        game_over=game_over,
    )
