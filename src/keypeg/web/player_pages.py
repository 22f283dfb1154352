"""The Players pages: register, log in and out; your stats, history and its chart; a game's top 10."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from keypeg.errors import KeypegError
from keypeg.limits import TOP_RULE
from keypeg.services import live, ratings, records, rooms
from keypeg.services.accounts import ThrottledError
from keypeg.services.daily import streaks as daily_streaks
from keypeg.variants import game_label
from keypeg.web.accounts import check_login, login_status, register_player, welcome
from keypeg.web.errors import retry_after, status_of
from keypeg.web.pages import BACK_TO_LENGTH, Csrf, RulesForm, back_to, form_query, form_session, page, redirect
from keypeg.web.sessions import current, new_session, store_of

__all__ = ["router", "Chart", "trend_chart"]

router = APIRouter(include_in_schema=False)

Name = Annotated[str, Form(max_length=64)]
Password = Annotated[str, Form(max_length=1000)]
Next = Annotated[str, Form(max_length=BACK_TO_LENGTH)]
"""The page a login or a registration goes back to (``/players?next=...``: a room's join link)."""


@dataclass(frozen=True)
class Chart:
    """A line chart of guesses per game, as an SVG's coordinates."""

    width: int
    height: int
    points: str
    """The polyline's ``x,y`` pairs."""
    dots: tuple[tuple[float, float, int], ...]
    """Each game: x, y and its guesses."""
    ticks: tuple[tuple[float, int], ...]
    """Horizontal grid lines: y and the guesses they mark."""
    games: int


def trend_chart(values: list[int], width: int = 640, height: int = 220) -> Chart | None:
    """The chart of ``values`` (guesses per finished game, oldest first), or ``None`` with fewer than 2."""
    if len(values) < 2:
        return None
    left, right, top, bottom = 40, 10, 10, 30
    high = max(values) + 1
    step = (width - left - right) / (len(values) - 1)

    def y(v: float) -> float:
        return round(top + (height - top - bottom) * (1 - v / high), 1)

    dots = tuple((round(left + k * step, 1), y(v), v) for k, v in enumerate(values))
    ticks = tuple((y(v), v) for v in range(0, high + 1, max(1, high // 5)))
    return Chart(width, height, " ".join(f"{x},{yy}" for x, yy, _ in dots), dots, ticks, len(values))


def _players_page(
    request: Request, *, status: int = 200, error: str = "", name: str = "", form: str = "login", then: str = ""
) -> Response:
    """The players' page; refused, ``name`` comes back in the ``form`` sent ("login" or "register"), and
    both forms go back to ``then`` (a page of this site) once in."""
    session = current(request)
    person = session.person if session is not None else None
    games, stats, chart, record = [], None, None, None
    streaks: dict[str, int] = {}
    rating, rating_changes = None, []
    if session is not None and session.player is not None:
        store = store_of(request)
        games = records.history(store, session.player, limit=50, made=True)
        stats = records.stats(store, session.player)
        chart = trend_chart(stats.trend[-100:])
        record = live.standing_of(store, session.player)
        streaks = daily_streaks(store, session.player)
        rating, rating_changes = ratings.rating_of(store, session.player), ratings.changes(store, session.player)
    return page(
        request,
        "players.html",
        status=status,
        active="Players",
        person=person,
        games=games,
        stats=stats,
        chart=chart,
        standing=record,
        rooms=rooms.rooms_of(store_of(request), session.player) if session is not None and session.player else [],
        streaks=streaks,
        rating=rating,
        rating_changes=rating_changes,
        error=error,
        name=name,
        form=form,
        then=back_to(then) or "",
    )


@router.get("/players", response_class=HTMLResponse)
def players(request: Request, next: str = "") -> Response:
    """Log in or register (then back to ``next``, a page of this site); once in, your stats and history."""
    return _players_page(request, then=next)


def _refused(request: Request, error: KeypegError, name: str, status: int, form: str, then: str) -> Response:
    """The players' page again, saying why the form was refused (with ``Retry-After`` on a 429)."""
    response = _players_page(request, status=status, error=str(error), name=name, form=form, then=then)
    response.headers.update(retry_after(error) or {})
    return response


@router.post("/players/login", response_class=HTMLResponse)
def login(request: Request, csrf: Csrf, name: Name, password: Password, next: Next = "") -> Response:
    session = form_session(request, csrf)
    try:
        player = check_login(request, name, password)
    except HTTPException as refused:  # a wrong name or password: 401
        return _players_page(request, status=refused.status_code, error=str(refused.detail), name=name, then=next)
    except ThrottledError as refused:
        return _refused(request, refused, name, login_status(refused), "login", next)
    welcome(request, session, player)
    response = redirect(back_to(next) or "/players")
    new_session(request, response, player)
    return response


@router.post("/players/register", response_class=HTMLResponse)
def register(request: Request, csrf: Csrf, name: Name, password: Password, next: Next = "") -> Response:
    session = form_session(request, csrf)
    try:
        player = register_player(request, name, password)  # the password rule is the services' (400)
    except KeypegError as error:
        if status_of(error) == 503:  # the store is down: the app's one line
            raise
        return _refused(request, error, name, status_of(error), "register", next)
    welcome(request, session, player)
    response = redirect(back_to(next) or "/players")
    new_session(request, response, player)
    return response


@router.post("/players/logout", response_class=HTMLResponse)
def logout(request: Request, csrf: Csrf) -> Response:
    form_session(request, csrf)
    response = redirect("/players")
    new_session(request, response)
    return response


@router.get("/top", response_class=HTMLResponse)
def top(request: Request, fields: Annotated[RulesForm, Depends(form_query)]) -> Response:
    """The top 10 players of a game (rated games only)."""
    error, board, rules = "", [], None
    try:
        rules = fields.rules()
        board = records.top(store_of(request), rules)
    except KeypegError as refused:
        error = str(refused)
    rated = ratings.leaderboard(store_of(request))
    return page(
        request,
        "top.html",
        status=400 if error else 200,
        active="Players",
        chosen=fields,
        rules=rules,
        label=game_label(rules) if rules is not None else "",
        board=board,
        rule=TOP_RULE,
        rated=rated,
        rating_rule=ratings.RATING_RULE,
        error=error,
    )
