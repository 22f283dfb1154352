"""The JSON API (``/api``): sessions and games, driving :mod:`keypeg.play` sessions kept in the store.

Every request loads the game from the store and writes it back (one transaction, refused if another
request wrote it meanwhile), so any worker can serve any move. A game belongs to the session's player:
anyone else gets 404, as for a game that does not exist; the secret appears only once a game is over.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request, Response
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from keypeg.code import Feedback
from keypeg.errors import InvalidFeedbackError
from keypeg.limits import WEB_MATCH_GAMES
from keypeg.rules import Rules
from keypeg.services import games, matches
from keypeg.strategies.choice import Ranked
from keypeg.variants import rules_from_options
from keypeg.web.sessions import WebSession, check_origin_and_csrf, current, open_session, player_for, store_of

__all__ = [
    "router",
    "RequestBody",
    "RulesIn",
    "rules_query",
    "rules_out",
    "game_out",
    "GameOut",
    "changing",
    "session_of",
    "SessionOut",
    "ErrorOut",
    "ERRORS",
]


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
        (429, "Too many failed logins or registrations, or requests past a fair share: wait Retry-After seconds."),
    )
}
"""The errors every endpoint may answer, all as ``{"error": ...}``."""

router = APIRouter(prefix="/api", responses=ERRORS)

GameId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class SessionOut(BaseModel):
    player: str | None = Field(description="The logged-in player, or null for a guest.")
    csrf: str = Field(description="Send it as X-CSRF-Token with every request that changes something.")


class RequestBody(BaseModel):
    """A request body: values of exactly the documented JSON types (``0.0`` is not ``false``), and no
    field it does not know (a misspelt ``practise`` is refused, not ignored)."""

    model_config = ConfigDict(strict=True, extra="forbid")


FEEDBACK = (
    "What a guess is told: standard (black and white pegs), colours (how many pegs are of a right colour, "
    "in any place: a code is its colours, returned in colour order; `colors` reads the same) or black "
    "(only the pegs right in colour and place). A score is then black = that number, white = 0. "
    "The preset's by default (standard for classic)."
)


def _lower(value: object) -> object:
    """Text in lower case (the command line reads ``--feedback Black`` so too); anything else as it is."""
    return value.lower() if isinstance(value, str) else value


FeedbackName = Annotated[Literal["standard", "colours", "colors", "black"], BeforeValidator(_lower)]
"""A feedback's name in any case; a 422 names the choices."""


def rules_out(rules: Rules) -> dict[str, Any]:
    """A rule set as the API returns it: :meth:`Rules.as_dict` with its ``feedback`` always named."""
    return {**rules.as_dict(), "feedback": rules.feedback}


class RulesIn(RequestBody):
    """A rule set: a preset, and any of its fields changed."""

    variant: str | None = Field(None, min_length=1, max_length=64, description="A preset (classic by default).")
    pegs: int | None = Field(None, ge=1, le=15)
    colors: int | None = Field(None, ge=2, le=26)
    repeats: bool | None = None
    blanks: bool | None = None
    rows: int | None = Field(None, ge=1, le=100)
    feedback: FeedbackName | None = Field(None, description=FEEDBACK)

    def rules(self) -> Rules:
        return rules_from_options(
            self.variant, self.pegs, self.colors, self.repeats, self.blanks, self.rows, self.feedback
        )


def rules_query(
    variant: Annotated[str | None, Query(min_length=1, max_length=64, description="A preset (classic).")] = None,
    pegs: Annotated[int | None, Query(ge=1, le=15)] = None,
    colors: Annotated[int | None, Query(ge=2, le=26)] = None,
    repeats: bool | None = None,
    blanks: bool | None = None,
    rows: Annotated[int | None, Query(ge=1, le=100)] = None,
    feedback: Annotated[FeedbackName | None, Query(description=FEEDBACK)] = None,
) -> Rules:
    """The rule set a GET request's query names: a preset, and any of its fields changed."""
    return rules_from_options(variant, pegs, colors, repeats, blanks, rows, feedback)


IDEMPOTENCY = (
    "A new random key for each game you mean to start (1 to 100 printable ASCII characters; a UUID will do): "
    "the request retried with it within 24 hours answers the game it started. Keys are your player's own."
)


class NewGame(RulesIn):
    role: Literal["breaker", "maker"] = Field("breaker", description="breaker: you break the computer's code.")
    level: int = Field(3, ge=1, le=4, description="The computer's level when it breaks your code.")
    practice: bool = Field(False, description="A practice game: never ranked.")


ROW = "The row this move is for (1 for the first): the same request sent twice is refused (409)."


class GuessIn(RequestBody):
    code: str = Field(min_length=1, max_length=200)
    row: int | None = Field(
        None,
        ge=1,
        le=101,
        description="The row this guess is for (1 for the first): a request sent twice is refused (409).",
    )


class ScoreIn(RequestBody):
    black: int = Field(ge=0, le=100, description="Black pegs; under colours feedback, the pegs of a right colour.")
    white: int = Field(0, ge=0, le=100, description="White pegs (0, or left out, under colours or black feedback).")
    row: int | None = Field(
        None,
        ge=1,
        le=101,
        description="The row this score is for (1 for the first): a request sent twice is refused (409).",
    )


class Move(BaseModel):
    guess: str
    black: int
    white: int


class GameOut(BaseModel):
    id: str
    rules: dict[str, Any] = Field(
        description="The rules: pegs, colors, repeats, blanks, rows, symbols, names, name and feedback "
        "(standard, colours or black)."
    )
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


async def changing(request: Request, session: Annotated[WebSession, Depends(session_of)]) -> WebSession:
    """The session of a state-changing request, its origin and CSRF token checked (no I/O: run in the event
    loop, not sent to a thread as a plain function is)."""
    check_origin_and_csrf(request, session)
    return session


@router.get("/session", response_model=SessionOut)
def get_session(request: Request, response: Response) -> SessionOut:
    """Your session (made, and its cookie set, on the first call) and its CSRF token."""
    session = open_session(request, response)
    return SessionOut(player=session.person, csrf=session.csrf)


def _out(public_id: str, opened: games.OpenGame, feedback: Feedback | None = None) -> GameOut:
    view = games.view(opened.game, counts=opened.counts)
    return GameOut(
        id=public_id,
        rules=rules_out(view.rules),
        role=view.role,
        rated=view.rated,
        status=view.status,
        rows_left=view.rows_left,
        history=[Move(guess=g, black=f.black, white=f.white) for g, f in view.history],
        guess=view.guess,
        secret=view.secret,
        black=feedback.black if feedback is not None else None,
        white=feedback.white if feedback is not None else None,
    )


def load_game(request: Request, session: WebSession, public_id: str) -> games.OpenGame:
    """The session's player's game (404 for anyone else's, as for one that does not exist)."""
    return games.load(store_of(request), session.player, public_id)


@router.post("/games", status_code=201, response_model=GameOut, response_model_exclude_none=True)
def create_game(
    request: Request,
    response: Response,
    body: NewGame,
    session: Annotated[WebSession, Depends(changing)],
    key: Annotated[str | None, Header(alias="Idempotency-Key", description=IDEMPOTENCY)] = None,
) -> GameOut:
    """Start a game: you break the computer's code (a rated game unless ``practice``), or it breaks yours.

    Send an ``Idempotency-Key`` to retry safely: the same key again within 24 hours answers 201 with the
    game it started, as it is now (the same body unless it was played on since), with the header
    ``Idempotent-Replayed: true``, and starts nothing; the key with another body is a 409."""
    rules, player = body.rules(), player_for(request, session)
    opened = games.start_new(
        store_of(request), player, rules, body.role, level=body.level, practice=body.practice, key=key
    )
    assert opened.public_id is not None
    if opened.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return _out(opened.public_id, opened)


def game_out(request: Request, session: WebSession, public_id: str) -> GameOut:
    """The game's board as the API shows it (404 unless it is the session's player's)."""
    return _out(public_id, load_game(request, session, public_id))


@router.get("/games/{game_id}", response_model=GameOut, response_model_exclude_none=True)
def get_game(request: Request, game_id: GameId, session: Annotated[WebSession, Depends(session_of)]) -> GameOut:
    """The board so far (the secret only once the game is over)."""
    return game_out(request, session, game_id)


@router.post("/games/{game_id}/guesses", response_model=GameOut, response_model_exclude_none=True)
def guess(
    request: Request, game_id: GameId, body: GuessIn, session: Annotated[WebSession, Depends(changing)]
) -> GameOut:
    """Guess the computer's code: the score, and the secret once the game is over."""
    opened, feedback = games.play(
        store_of(request), session.player, game_id, lambda opened: games.guess(opened, body.code, row=body.row)
    )
    return _out(game_id, opened, feedback)


@router.post("/games/{game_id}/scores", response_model=GameOut, response_model_exclude_none=True)
def score(
    request: Request, game_id: GameId, body: ScoreIn, session: Annotated[WebSession, Depends(changing)]
) -> GameOut:
    """Score the computer's guess; an impossible or contradicting score is refused (409 names the likely
    mistake)."""
    opened = load_game(request, session, game_id)
    feedback = opened.game.rules.feedback
    if body.white and feedback != "standard":
        raise InvalidFeedbackError(f"{feedback} feedback gives no white pegs: send white 0, or leave it out")
    games.score(opened, Feedback(body.black, body.white), row=body.row)
    return _out(game_id, opened)


@router.post("/games/{game_id}/undo", response_model=GameOut, response_model_exclude_none=True)
def undo(request: Request, game_id: GameId, session: Annotated[WebSession, Depends(changing)]) -> GameOut:
    """Take back your last guess (a practice game) or your last score of the computer's guess."""
    opened = load_game(request, session, game_id)
    games.undo(opened)
    return _out(game_id, opened)


@router.post("/games/{game_id}/resign", response_model=GameOut, response_model_exclude_none=True)
def resign(request: Request, game_id: GameId, session: Annotated[WebSession, Depends(changing)]) -> GameOut:
    """Give the game up (a rated game counts as lost); the secret is shown."""
    opened = load_game(request, session, game_id)
    games.resign(opened)
    return _out(game_id, opened)


class FiguresOut(BaseModel):
    guess: str
    parts: dict[str, int] = Field(
        description="Codes left after each answer: 'black,white', or one number under black or colours feedback."
    )
    largest: int
    expected_size: float
    entropy: float
    number_of_parts: int
    fits: bool = Field(description="Whether the guess could be the secret.")


class HelpOut(BaseModel):
    guess: str = Field(description="The guess advised (hint, explain), or the guess reviewed (coach).")
    candidates: int | None = Field(None, description="Codes that fit the scores so far.")
    ranked: list[FiguresOut] = Field(default_factory=list, description="The best guesses with their figures.")
    review: str | None = Field(None, description="The coach's review of your last guess.")


def figures(ranked: Iterable[Ranked]) -> list[FiguresOut]:
    """The figures behind a strategy's best guesses (``Choice.ranked``)."""
    return [
        FiguresOut(
            guess=str(g.guess),
            parts={g.guess.rules.key(f): n for f, n in g.parts.items()},
            largest=g.largest,
            expected_size=round(g.expected_size, 4),
            entropy=round(g.entropy, 4),
            number_of_parts=g.number_of_parts,
            fits=g.fits,
        )
        for g in ranked
    ]


@router.post("/games/{game_id}/help/{kind}", response_model=HelpOut, response_model_exclude_none=True)
def help_(
    request: Request,
    game_id: GameId,
    kind: Literal["hint", "explain", "coach"],
    session: Annotated[WebSession, Depends(changing)],
) -> HelpOut:
    """Help in a practice game: a hint, the best guesses explained, or the coach's review of your last
    guess (a rated game offers none)."""
    opened = load_game(request, session, game_id)
    if kind == "hint":
        return HelpOut(guess=str(games.hint(opened)), candidates=None, review=None)
    if kind == "explain":
        choice = games.explain(opened)
        return HelpOut(guess=str(choice.guess), candidates=choice.fitting, ranked=figures(choice.ranked), review=None)
    review = games.review(opened)
    return HelpOut(guess=str(review.guess), candidates=review.after, review=review.line())


@router.get("/games/{game_id}/reasoning", response_model=HelpOut, response_model_exclude_none=True)
def reasoning(request: Request, game_id: GameId, session: Annotated[WebSession, Depends(session_of)]) -> HelpOut:
    """The computer's reasoning behind the guess it awaits your score for (role maker): the codes that
    fit your scores, and the figures of its best guesses."""
    choice = games.solving(load_game(request, session, game_id)).choice()
    return HelpOut(guess=str(choice.guess), candidates=choice.fitting, ranked=figures(choice.ranked), review=None)


# -- matches -------------------------------------------------------------------------------------------


class NewMatch(RulesIn):
    games: int = Field(2, ge=2, le=WEB_MATCH_GAMES, multiple_of=2, description="An even number of games.")
    level: int = Field(3, ge=1, le=4, description="The computer's level when it breaks your code.")


class PlayedOut(BaseModel):
    codemaker: Literal["you", "computer"]
    guesses: int
    broken: bool
    points: int = Field(description="The codemaker's points for the game.")


class MatchOut(BaseModel):
    id: str
    rules: dict[str, Any]
    games: int
    level: int
    played: list[PlayedOut]
    you: int = Field(description="Your points: a point per guess of the computer's, one more if it failed.")
    computer: int
    over: bool
    winner: Literal["you", "computer"] | None = None
    game: str | None = Field(None, description="The id of the game being played (play it under /api/games).")


def _match_out(request: Request, public_id: str, opened: matches.OpenMatch) -> MatchOut:
    view = matches.view(store_of(request), opened)
    return MatchOut(
        id=public_id,
        rules=rules_out(view.rules),
        games=view.games,
        level=view.level,
        played=[PlayedOut(codemaker=m, guesses=n, broken=b, points=p) for m, n, b, p in view.played],  # type: ignore[arg-type]
        you=view.you,
        computer=view.computer,
        over=view.over,
        winner=view.winner,  # type: ignore[arg-type]
        game=view.game,
    )


@router.post("/matches", status_code=201, response_model=MatchOut, response_model_exclude_none=True)
def create_match(request: Request, body: NewMatch, session: Annotated[WebSession, Depends(changing)]) -> MatchOut:
    """Start a match against the computer: an even number of games, roles alternating (the computer makes
    the first code), the codemaker scoring a point per guess and one more when the code holds."""
    player = player_for(request, session)
    public_id = matches.start_against_computer(store_of(request), player, body.rules(), body.games, body.level)
    return _match_out(request, public_id, matches.load(store_of(request), player, public_id))


@router.get("/matches/{match_id}", response_model=MatchOut, response_model_exclude_none=True)
def get_match(request: Request, match_id: GameId, session: Annotated[WebSession, Depends(session_of)]) -> MatchOut:
    """The match so far, and the id of the game being played."""
    return _match_out(request, match_id, matches.load(store_of(request), session.player, match_id))


@router.post("/matches/{match_id}/next", response_model=MatchOut, response_model_exclude_none=True)
def next_game(request: Request, match_id: GameId, session: Annotated[WebSession, Depends(changing)]) -> MatchOut:
    """Count the finished game and start the next one (409 while the game is still being played)."""
    store = store_of(request)
    opened = matches.load(store, session.player, match_id)
    assert session.player is not None  # the match was found: it is the session's player's
    matches.next_game(store, session.player, opened)
    return _match_out(request, match_id, opened)
