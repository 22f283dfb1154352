"""The JSON API (``/api``): sessions and games, driving :mod:`keypeg.play` sessions kept in the store.

Every request loads the game from the store and writes it back (one transaction, refused if another
request wrote it meanwhile), so any worker can serve any move. A game belongs to the session's player:
anyone else gets 404, as for a game that does not exist; the secret appears only once a game is over.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field

from keypeg.code import Feedback
from keypeg.errors import IllegalMoveError
from keypeg.play.codemakers import RandomCodemaker
from keypeg.play.records import GameKeeper, RecordingError, continue_game
from keypeg.play.sessions import BreakSession, Session, SolveSession
from keypeg.store import StoreError
from keypeg.variants import rules_from_options
from keypeg.web.sessions import GUEST_PREFIX, WebSession, check_origin_and_csrf, current, open_session, store_of

__all__ = ["router", "changing", "session_of", "SessionOut", "ErrorOut", "ERRORS"]


class ErrorOut(BaseModel):
    error: str = Field(description="What was wrong, in one line.")


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": about}
    for status, about in (
        (400, "A move or value the rules refuse."),
        (401, "No session, or a wrong login."),
        (403, "No CSRF token, or another site's request."),
        (404, "No such game (or not yours)."),
        (409, "A score that contradicts the others, or a game played on meanwhile."),
        (422, "A request that does not fit the schema."),
        (429, "Too many failed logins."),
    )
}
"""The errors every endpoint may answer, all as ``{"error": ...}``."""

router = APIRouter(prefix="/api", responses=ERRORS)

GameId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class SessionOut(BaseModel):
    player: str | None = Field(description="The logged-in player, or null for a guest.")
    csrf: str = Field(description="Send it as X-CSRF-Token with every request that changes something.")


class NewGame(BaseModel):
    variant: str | None = Field(None, min_length=1, max_length=64, description="A preset (classic by default).")
    pegs: int | None = Field(None, ge=1, le=15)
    colors: int | None = Field(None, ge=2, le=26)
    repeats: bool | None = None
    blanks: bool | None = None
    rows: int | None = Field(None, ge=1, le=100)
    role: Literal["breaker", "maker"] = Field("breaker", description="breaker: you break the computer's code.")
    level: int = Field(3, ge=1, le=4, description="The computer's level when it breaks your code.")
    practice: bool = Field(False, description="A practice game: never ranked.")


class GuessIn(BaseModel):
    code: str = Field(min_length=1, max_length=200)


class ScoreIn(BaseModel):
    black: int = Field(ge=0, le=100)
    white: int = Field(ge=0, le=100)


class Move(BaseModel):
    guess: str
    black: int
    white: int


class GameOut(BaseModel):
    id: str
    rules: dict[str, Any]
    role: Literal["breaker", "maker"]
    rated: bool
    status: Literal["playing", "won", "lost"] = Field(description="How it went for you.")
    rows_left: int
    history: list[Move]
    guess: str | None = Field(None, description="The computer's guess awaiting your score (role maker).")
    secret: str | None = Field(None, description="Only once the game is over.")
    black: int | None = Field(None, description="The score of the guess just made (role breaker).")
    white: int | None = None


def session_of(request: Request) -> WebSession:
    found = current(request)
    if found is None:
        raise HTTPException(401, "no session: GET /api/session first")
    return found


def changing(request: Request, session: Annotated[WebSession, Depends(session_of)]) -> WebSession:
    check_origin_and_csrf(request, session)
    return session


@router.get("/session", response_model=SessionOut)
def get_session(request: Request, response: Response) -> SessionOut:
    """Your session (made, and its cookie set, on the first call) and its CSRF token."""
    session = open_session(request, response)
    return SessionOut(player=session.person, csrf=session.csrf)


def _player(request: Request, session: WebSession) -> str:
    """The session's player; a guest gets a player of their own on their first game."""
    if session.player is not None:
        return session.player
    guest = f"{GUEST_PREFIX}{secrets.token_hex(6)}"
    store_of(request).bind_web_session(session.token_hash, guest)
    return guest


def _view(public_id: str, game: Session, feedback: Feedback | None = None) -> GameOut:
    outcome = game.outcome()
    if outcome is None:
        status: Literal["playing", "won", "lost"] = "playing"
    else:
        broken = outcome.solved
        status = "won" if broken == (game.role == "breaker") and not game.resigned else "lost"
    secret = outcome.secret if outcome is not None else None
    return GameOut(
        id=public_id,
        rules=game.rules.as_dict(),
        role="breaker" if game.role == "breaker" else "maker",
        rated=game.rated,
        status=status,
        rows_left=game.rows_left,
        history=[Move(guess=str(g), black=f.black, white=f.white) for g, f in game.history],
        guess=str(game.guess()) if isinstance(game, SolveSession) and not game.is_over else None,
        secret=str(secret) if secret is not None else None,
        black=feedback.black if feedback is not None else None,
        white=feedback.white if feedback is not None else None,
    )


def _load(request: Request, session: WebSession, public_id: str) -> tuple[Session, GameKeeper]:
    """The game, if it is the session's player's (404 otherwise, as for a game that does not exist)."""
    store = store_of(request)
    try:
        game_id, owner = store.public_game(public_id)
    except StoreError:
        raise HTTPException(404, "no such game") from None
    if session.player is None or owner != session.player:
        raise HTTPException(404, "no such game")
    return continue_game(store, game_id, session.player, over_ok=True)


def _moved(keeper: GameKeeper, game: Session) -> None:
    try:
        keeper.sync(game)
    except RecordingError:
        raise HTTPException(409, "the game was played on elsewhere meanwhile: GET it and go on") from None


@router.post("/games", status_code=201, response_model=GameOut, response_model_exclude_none=True)
def new_game(request: Request, body: NewGame, session: Annotated[WebSession, Depends(changing)]) -> GameOut:
    """Start a game: you break the computer's code (a rated game unless ``practice``), or it breaks yours."""
    rules = rules_from_options(body.variant, body.pegs, body.colors, body.repeats, body.blanks, body.rows)
    game: Session
    if body.role == "breaker":
        game = BreakSession.new(rules, RandomCodemaker.draw(rules), practice=body.practice)
    else:
        game = SolveSession(rules, level=body.level)
    public_id = secrets.token_urlsafe(16)
    GameKeeper.start(store_of(request), _player(request, session), game, public_id=public_id)
    return _view(public_id, game)


@router.get("/games/{game_id}", response_model=GameOut, response_model_exclude_none=True)
def get_game(request: Request, game_id: GameId, session: Annotated[WebSession, Depends(session_of)]) -> GameOut:
    """The board so far (the secret only once the game is over)."""
    game, _ = _load(request, session, game_id)
    return _view(game_id, game)


@router.post("/games/{game_id}/guesses", response_model=GameOut, response_model_exclude_none=True)
def guess(
    request: Request, game_id: GameId, body: GuessIn, session: Annotated[WebSession, Depends(changing)]
) -> GameOut:
    """Guess the computer's code: the score, and the secret once the game is over."""
    game, keeper = _load(request, session, game_id)
    if not isinstance(game, BreakSession):
        raise IllegalMoveError("in this game the computer guesses: send scores")
    feedback = game.guess(body.code)
    _moved(keeper, game)
    return _view(game_id, game, feedback)


@router.post("/games/{game_id}/scores", response_model=GameOut, response_model_exclude_none=True)
def score(
    request: Request, game_id: GameId, body: ScoreIn, session: Annotated[WebSession, Depends(changing)]
) -> GameOut:
    """Score the computer's guess; an impossible or contradicting score is refused (409 names the likely
    mistake)."""
    game, keeper = _load(request, session, game_id)
    if not isinstance(game, SolveSession):
        raise IllegalMoveError("in this game you guess: send guesses")
    game.score(Feedback(body.black, body.white))
    _moved(keeper, game)
    return _view(game_id, game)


@router.post("/games/{game_id}/resign", response_model=GameOut, response_model_exclude_none=True)
def resign(request: Request, game_id: GameId, session: Annotated[WebSession, Depends(changing)]) -> GameOut:
    """Give the game up (a rated game counts as lost); the secret is shown."""
    game, keeper = _load(request, session, game_id)
    game.resign()
    _moved(keeper, game)
    return _view(game_id, game)
