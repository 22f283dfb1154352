"""The Play and Match pages: start a game in either role or a match against the computer, and play it on
a board. Every move is a use case of :mod:`keypeg.services.games`, as the JSON API's are; a refused move
shows the board again with the reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from keypeg.code import Feedback
from keypeg.errors import KeypegError, RefusedError, UnavailableError
from keypeg.play.levels import LEVELS
from keypeg.play.sessions import SolveSession
from keypeg.services import games, matches, records
from keypeg.web.errors import status_of
from keypeg.web.pages import Csrf, RulesForm, form_session, page, redirect, rules_form, whole_number
from keypeg.web.sessions import current, player_for, store_of

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

Code = Annotated[str, Form(max_length=200)]
Row = Annotated[str, Form(max_length=4)]
PublicId = Annotated[str, Form(max_length=64)]


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    """Start a game: rules, your role, the computer's level."""
    session = current(request)
    playing = []
    if session is not None and session.player is not None:
        recent = records.history(store_of(request), session.player, limit=20)
        playing = [g for g in recent if g.outcome is None and g.public_id is not None]
    return page(
        request, "home.html", active="Play", chosen=RulesForm(), levels=LEVELS, playing=playing, key=games.new_id()
    )


@router.post("/play", response_class=HTMLResponse)
def start(
    request: Request,
    csrf: Csrf,
    fields: Annotated[RulesForm, Depends(rules_form)],
    role: Annotated[Literal["breaker", "maker"], Form()] = "breaker",
    level: Annotated[str, Form(max_length=3)] = "3",
    practice: Annotated[str, Form(max_length=8)] = "",
    key: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """Start the game the form asks for; the form's idempotency ``key`` (drawn as the page was shown)
    makes a form sent twice (pressed twice, sent again after a lost answer) start one game."""
    session = form_session(request, csrf)
    try:
        rules, strength = fields.rules(), whole_number(level, "level")
        opened = games.start_new(
            store_of(request),
            player_for(request, session),
            rules,
            role,
            level=strength,
            practice=practice == "yes",
            key=key or None,
        )
    except KeypegError as error:
        if isinstance(error, UnavailableError):
            raise  # the store is down: the error page, not the form
        return page(
            request,
            "home.html",
            status=400,
            active="Play",
            chosen=fields,
            levels=LEVELS,
            playing=[],
            key=games.new_id(),
            error=str(error),
        )
    return redirect(f"/play/{opened.public_id}")


def _board(
    request: Request, public_id: str, loaded: games.OpenGame, *, status: int = 200, error: str = "", **extra: Any
) -> Response:
    """The game's page."""
    game = loaded.game
    view = games.view(game, counts=loaded.counts)
    reasoning = None
    if isinstance(game, SolveSession) and not game.is_over:
        reasoning = game.choice()
    match = None
    if loaded.match_id is not None:
        match = store_of(request).matches.public_id(loaded.match_id)
    grid = None
    if loaded.daily is not None and view.status != "playing":
        from keypeg.play.daily import share_grid
        from keypeg.variants import find_variant

        day, preset = loaded.daily.split(" ", 1)
        grid = share_grid(day, find_variant(preset), view.history, view.status == "won")
    last = view.history[-1] if view.history else None
    said = ""
    if last is not None:
        who = "Your guess" if view.role == "breaker" else "The computer's guess"
        said = f"{who} {len(view.history)}, {last[0]}: {game.rules.say(last[1])}."
    if view.status != "playing":
        said += f" The game is over: you {view.status}."
    elif view.guess is not None:
        said += f" The computer guesses {view.guess}: score it."
    return page(
        request,
        "game.html",
        status=status,
        active="Match" if match else "Play",
        id=public_id,
        view=view,
        rules=game.rules,
        reasoning=reasoning,
        match=match,
        daily=loaded.daily,
        grid=grid,
        error=error,
        said=said,
        explain_top=games.EXPLAIN_TOP,
        **{"hint": None, "review": None, "explained": None, **extra},
    )


@router.get("/play/{public_id}", response_class=HTMLResponse)
def board(request: Request, public_id: str) -> Response:
    session = current(request)
    if session is None:
        raise HTTPException(404, "no such game")
    return _board(request, public_id, games.load(store_of(request), session.player, public_id))


SHOWN_ON_THE_BOARD = (RefusedError, ValueError)
"""The errors of a move shown on the board with the reason: a move the rules refuse, a bad code or score
(a score no code fits, 409). Others (not found, a conflict, a store that is down) are error pages."""


def _row(row: str) -> int | None:
    """The row a form's move was for (none: the next; a row that is not a number: none that can come)."""
    if not row:
        return None
    return int(row) if row.isdigit() else -1


def _move(request: Request, public_id: str, csrf: str, move: Callable[[games.OpenGame], object]) -> Response:
    """Load the game, make ``move`` on it (a use case), and show the board again, with the reason when the
    move is refused. A move for a row already played (a form sent twice) changes nothing."""
    session = form_session(request, csrf)
    loaded = games.load(store_of(request), session.player, public_id)
    try:
        move(loaded)
    except games.RowPlayedError:
        pass  # the form was sent twice: it is played already
    except SHOWN_ON_THE_BOARD as error:
        return _board(request, public_id, loaded, status=status_of(error), error=str(error))
    return redirect(f"/play/{public_id}")


@router.post("/play/{public_id}/guess", response_class=HTMLResponse)
def guess(request: Request, public_id: str, csrf: Csrf, code: Code = "", row: Row = "") -> Response:
    return _move(request, public_id, csrf, lambda game: games.guess(game, code, row=_row(row)))


@router.post("/play/{public_id}/score", response_class=HTMLResponse)
def score(
    request: Request,
    public_id: str,
    csrf: Csrf,
    black: Annotated[str, Form(max_length=3)] = "",
    white: Annotated[str, Form(max_length=3)] = "",
    row: Row = "",
) -> Response:
    def move(game: games.OpenGame) -> None:
        feedback = Feedback(whole_number(black or "0", "black"), whole_number(white or "0", "white"))
        games.score(game, feedback, row=_row(row))

    return _move(request, public_id, csrf, move)


@router.post("/play/{public_id}/undo", response_class=HTMLResponse)
def undo(request: Request, public_id: str, csrf: Csrf) -> Response:
    return _move(request, public_id, csrf, games.undo)


@router.post("/play/{public_id}/resign", response_class=HTMLResponse)
def resign(request: Request, public_id: str, csrf: Csrf) -> Response:
    return _move(request, public_id, csrf, games.resign)


@router.post("/play/{public_id}/help", response_class=HTMLResponse)
def help_(
    request: Request, public_id: str, csrf: Csrf, kind: Annotated[Literal["hint", "explain", "coach"], Form()]
) -> Response:
    """A hint, the best guesses explained, or the coach's review (practice games only), shown on the board."""
    session = form_session(request, csrf)
    loaded = games.load(store_of(request), session.player, public_id)
    try:
        found: dict[str, Any] = {}
        if kind == "hint":
            found["hint"] = str(games.hint(loaded))
        elif kind == "explain":
            found["explained"] = games.explain(loaded)
        else:
            found["review"] = games.review(loaded)
    except SHOWN_ON_THE_BOARD as error:
        return _board(request, public_id, loaded, status=status_of(error), error=str(error))
    return _board(request, public_id, loaded, **found)


# -- matches ----------------------------------------------------------------------------------------------


@router.get("/match", response_class=HTMLResponse)
def match_form(request: Request) -> Response:
    """Start a match against the computer."""
    return page(request, "match_new.html", active="Match", chosen=RulesForm(), levels=LEVELS)


@router.post("/match", response_class=HTMLResponse)
def match_start(
    request: Request,
    csrf: Csrf,
    fields: Annotated[RulesForm, Depends(rules_form)],
    games: Annotated[str, Form(max_length=3)] = "2",
    level: Annotated[str, Form(max_length=3)] = "3",
) -> Response:
    session = form_session(request, csrf)
    try:
        rules = fields.rules()
        count, strength = whole_number(games, "games"), whole_number(level, "level")
        player = player_for(request, session)
        public_id = matches.start_against_computer(store_of(request), player, rules, count, strength)
    except KeypegError as error:
        return page(
            request,
            "match_new.html",
            status=400,
            active="Match",
            chosen=fields,
            levels=LEVELS,
            error=str(error),
        )
    return redirect(f"/match/{public_id}")


@router.get("/match/{public_id}", response_class=HTMLResponse)
def match_page(request: Request, public_id: str) -> Response:
    session = current(request)
    if session is None:
        raise HTTPException(404, "no such match")
    store = store_of(request)
    opened = matches.load(store, session.player, public_id)
    return page(request, "match.html", active="Match", id=public_id, match=matches.view(store, opened))


@router.post("/match/{public_id}/next", response_class=HTMLResponse)
def match_next(request: Request, public_id: str, csrf: Csrf) -> Response:
    session = form_session(request, csrf)
    store = store_of(request)
    opened = matches.load(store, session.player, public_id)
    assert session.player is not None  # the match was found: it is the session's player's
    matches.next_game(store, session.player, opened)
    return redirect(f"/match/{public_id}")
