"""The daily puzzle on the web: today's puzzle of each preset (one attempt per registered player), the
grid to share, the day's board and your streak; the page and its JSON twin. The games themselves are
played like any other, on the board (``/play/{id}``) or through ``/api/games/{id}``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from keypeg.services.daily import DailyResult, DailyView, PlayedAlreadyError, daily_view, start_on_web
from keypeg.services.games import new_id
from keypeg.variants import Variant, find_variant
from keypeg.web.api import ERRORS, GameOut, RequestBody, changing, game_out, rules_out, session_of
from keypeg.web.pages import Csrf, form_session, page, redirect
from keypeg.web.sessions import WebSession, current, store_of

__all__ = ["api", "pages", "DailyOut"]

api = APIRouter(prefix="/api", responses=ERRORS)
pages = APIRouter(include_in_schema=False)

VariantName = Annotated[str, Query(min_length=1, max_length=64)]


class DailyResultOut(BaseModel):
    rank: int
    player: str
    solved: bool
    guesses: int
    seconds: float | None


class DailyOut(BaseModel):
    day: str
    variant: str
    rules: dict[str, Any]
    played: bool = Field(description="Whether you have finished today's attempt.")
    game: str | None = Field(None, description="Your attempt's game id (play it under /api/games).")
    grid: str | None = Field(None, description="Your result to share: key pegs only, never the code.")
    streak: int = Field(description="Days in a row you solved this preset's puzzle.")
    board: list[DailyResultOut]


def _results(board: list[DailyResult]) -> list[DailyResultOut]:
    return [
        DailyResultOut(rank=r.rank, player=r.player, solved=r.solved, guesses=r.guesses, seconds=r.seconds)
        for r in board
    ]


def _person(session: WebSession | None) -> str:
    if session is None or session.person is None:
        raise HTTPException(401, "log in to play the daily puzzle (one attempt per player a day)")
    return session.person


@api.get("/daily", response_model=DailyOut, response_model_exclude_none=True)
def daily_state(
    request: Request, variant: VariantName = "classic", day: Annotated[str | None, Query(max_length=10)] = None
) -> DailyOut:
    """A day's puzzle of a preset (today's, UTC, by default): its board and, when logged in, your result."""
    session = current(request)
    person = session.person if session is not None else None
    return _out(daily_view(store_of(request), find_variant(variant), day, person))


def _out(view: DailyView) -> DailyOut:
    return DailyOut(
        day=view.day,
        variant=view.variant.name,
        rules=rules_out(view.variant.rules),
        played=view.played,
        game=view.game,
        grid=view.grid,
        streak=view.streak,
        board=_results(view.board),
    )


class DailyIn(RequestBody):
    variant: str = Field("classic", min_length=1, max_length=64)


def _start(request: Request, player: str, preset: Variant) -> str:
    """Start (or continue) ``player``'s attempt at today's puzzle; its public id. A second attempt, refused
    by the service, is 409 here (the API's answer since the daily puzzle came, kept), not the 400 of
    other refusals in the app's ``STATUSES``."""
    try:
        return start_on_web(store_of(request), player, preset, new_id())
    except PlayedAlreadyError as error:
        raise HTTPException(409, str(error)) from None


@api.post("/daily", status_code=201, response_model=GameOut, response_model_exclude_none=True)
def daily_start(request: Request, body: DailyIn, session: Annotated[WebSession, Depends(changing)]) -> GameOut:
    """Start your attempt at today's puzzle (or continue it); a second attempt is 409."""
    public_id = _start(request, _person(session), find_variant(body.variant))
    return game_out(request, session_of(request), public_id)


@pages.get("/daily", response_class=HTMLResponse)
def daily_page(request: Request, variant: VariantName = "classic") -> Response:
    """Today's puzzles: play yours, share your grid, see the day's board."""
    state = daily_state(request, variant)
    return page(request, "daily.html", active="Daily", daily=state)


@pages.post("/daily", response_class=HTMLResponse)
def daily_play(
    request: Request,
    csrf: Csrf,
    variant: Annotated[str, Form(max_length=64)] = "classic",
) -> Response:
    session = form_session(request, csrf)
    preset = find_variant(variant)
    try:
        return redirect(f"/play/{_start(request, _person(session), preset)}")
    except HTTPException as refused:
        if refused.status_code != 409:
            raise
        return redirect(f"/daily?variant={preset.name}")  # played already: how it went, and the board
