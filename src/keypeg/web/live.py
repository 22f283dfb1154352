"""Matches between two people, live, on the web: create one and send the invitation, join it, set codes
and guess, follow it as it is played (server-sent events), watch it as a spectator. The use cases are
:mod:`keypeg.services.live`'s; here a request is parsed, the session's player found, the use case called
and its answer rendered (its errors become statuses by :data:`keypeg.web.errors.STATUSES`).
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

from fastapi import APIRouter, Depends, Form, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from pydantic import Field
from starlette.background import BackgroundTask

from keypeg.code import Feedback
from keypeg.errors import ConflictError, KeypegError, NotFoundError, UnavailableError
from keypeg.limits import LIVE_MOVE_DEFAULT, LIVE_MOVE_SECONDS, WEB_MATCH_GAMES
from keypeg.play.live import per_move
from keypeg.rules import Rules
from keypeg.services import live
from keypeg.services.live_bus import LiveBus
from keypeg.services.live_feed import Feed, Follower
from keypeg.services.nicknames import NICKNAME_LENGTH
from keypeg.text import visible
from keypeg.web.api import ERRORS, RequestBody, RulesIn, changing
from keypeg.web.errors import status_of
from keypeg.web.pages import Csrf, RulesForm, form_session, page, redirect, render, rules_form, whole_number
from keypeg.web.sessions import WebSession, current, player_for, still_current, store_of

__all__ = ["api", "pages", "bus_of", "event_stream", "Followed", "feed_of"]

api = APIRouter(prefix="/api/live", responses=ERRORS)
pages = APIRouter(include_in_schema=False)
log = logging.getLogger("keypeg.web")
T = TypeVar("T")

KEEPALIVE = 5.0
"""Seconds between a stream's checks when nothing happens: the clock, a keep-alive line (a check is also
made as the move awaited runs out of time, so the pages move on at once)."""
STORE_RETRIES = 6
"""Reads of a match a stream tries in a row while the store is down before it ends (the page's script
then reconnects, with a backoff of its own)."""
STORE_BACKOFF = 0.5
"""Seconds before a stream reads the match again after the store failed, doubled at each failure in a row
(at most :data:`KEEPALIVE`): 0.5, 1, 2, 4, 5, 5 s, about 17 s in all; a keep-alive line meanwhile."""


def bus_of(request: Request) -> LiveBus:
    """The app's bus, which wakes the streams following a match (or a room) when it changes."""
    return feed_of(request).bus


def feed_of(request: Request) -> Feed:
    """The app's fan-out (made on first use, with its bus): the streams following a match (or a room) in
    this process share one read of it a change."""
    app = request.app
    if getattr(app.state, "live_feed", None) is None:
        app.state.live_feed = Feed(LiveBus(store_of(request)), run=run_in_threadpool)
    feed: Feed = app.state.live_feed
    return feed


def _viewer(request: Request) -> str | None:
    """The player of the request's session, if any (anyone may watch)."""
    session = current(request)
    return session.player if session is not None else None


# -- the JSON API ------------------------------------------------------------------------------------


MOVE_CHOICES = (30, 60, 120, 300, 3600, 86_400)
"""The time controls the page's form offers (seconds per move); the API takes any in
:data:`~keypeg.limits.LIVE_MOVE_SECONDS`."""


class NewLive(RulesIn):
    games: int = Field(2, ge=2, le=WEB_MATCH_GAMES, multiple_of=2, description="An even number of games.")
    move_seconds: int = Field(
        LIVE_MOVE_DEFAULT,
        description=f"Seconds per move, from {LIVE_MOVE_SECONDS[0]} to {LIVE_MOVE_SECONDS[1]:,} (a day): whoever "
        "must act and runs out of it forfeits the game.",
    )
    nickname: str | None = Field(None, max_length=NICKNAME_LENGTH, description="A guest's name to be shown by.")


class CodeIn(RequestBody):
    code: str = Field(min_length=1, max_length=200)


class LiveGuessIn(CodeIn):
    row: int | None = Field(None, ge=1, le=101, description="The row this guess is for: a request sent twice is 409.")


class TokenIn(RequestBody):
    token: str = Field(min_length=1, max_length=64)
    nickname: str | None = Field(None, max_length=NICKNAME_LENGTH, description="A guest's name to be shown by.")


@api.post("", status_code=201)
def api_create(request: Request, body: NewLive, session: Annotated[WebSession, Depends(changing)]) -> dict[str, Any]:
    """Create a match against another person: its id, the invitation's token (the second player sends it
    to ``/join``) and the links to share."""
    rules = body.rules()
    player = player_for(request, session)
    public_id = live.create(store_of(request), player, rules, body.games, body.nickname, body.move_seconds)
    return _links(request, public_id) | live.snapshot(store_of(request), bus_of(request), public_id, player)


def _links(request: Request, public_id: str) -> dict[str, Any]:
    token = live.invite_token(store_of(request), public_id)
    return {"token": token, "invite": f"/live/{public_id}/join?token={token}", "watch": f"/live/{public_id}"}


@api.get("/{match_id}")
def api_view(request: Request, match_id: str) -> dict[str, Any]:
    """The match as you may see it: a player sees the code they set; a spectator never sees a code
    before its game ends."""
    return live.snapshot(store_of(request), bus_of(request), match_id, _viewer(request))


@api.post("/{match_id}/join")
def api_join(
    request: Request, match_id: str, body: TokenIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """Take the second seat with the invitation's token."""
    player = player_for(request, session)
    return live.join(store_of(request), bus_of(request), match_id, player, body.token, body.nickname)


@api.post("/{match_id}/secret")
def api_secret(
    request: Request, match_id: str, body: CodeIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """As codemaker, set the code of the next game."""
    return live.set_code(store_of(request), bus_of(request), match_id, session.player, body.code)


@api.post("/{match_id}/guesses")
def api_guess(
    request: Request, match_id: str, body: LiveGuessIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """As codebreaker, guess: the server scores it."""
    return live.guess(store_of(request), bus_of(request), match_id, session.player, body.code, body.row)


class ResignIn(RequestBody):
    game: int | None = Field(
        None, ge=1, le=WEB_MATCH_GAMES, description="The game you give up (1 for the first): one that ended is 409."
    )


@api.post("/{match_id}/resign")
def api_resign(
    request: Request,
    match_id: str,
    session: Annotated[WebSession, Depends(changing)],
    body: ResignIn | None = None,
) -> dict[str, Any]:
    """Give up the game being played (name it by ``game``, so a request sent twice gives up nothing more)."""
    game = body.game if body is not None else None
    return live.resign(store_of(request), bus_of(request), match_id, session.player, game)


@api.get("/{match_id}/events", response_class=StreamingResponse)
async def api_events(request: Request, match_id: str, page: bool = False) -> StreamingResponse:
    """Follow the match live (server-sent events): an ``event: state`` with the match as you may see it
    (the same as ``GET /api/live/{id}``) at once and after every change (a move, or a forfeit when the
    move awaited runs out of time: ``deadline`` and ``seconds_left`` say when), an ``event: alive`` with
    the version last sent (``{"version": N}``) every :data:`KEEPALIVE` seconds when nothing changes. The
    streams of a match in one process share one read of it a change (:class:`~keypeg.services.live_feed.Feed`).
    While the store is down it sends keep-alives and reads the match again a few times with a backoff
    (:data:`STORE_RETRIES`) before it ends. With ``page=true`` (the page's script) each state also carries
    ``page``, the match's page as its GET renders it for your session (none where that page reads more)."""
    session = await run_in_threadpool(current, request)  # the database is read in a thread, never in the loop
    viewer = session.player if session is not None else None
    store, feed = store_of(request), feed_of(request)
    store_id = await run_in_threadpool(live.store_id, store, match_id)  # 404, or 503 when the store is down
    return await event_stream(
        request,
        Followed(
            "live",
            store_id,
            functools.partial(live.shared, store, feed.bus, match_id),
            lambda opened: live.shown(opened, viewer),
            lambda state: state["seconds_left"],
            f"match {match_id}",
            functools.partial(_with_page, request, session, match_id) if page and session is not None else None,
            still_current(request, session) if session is not None else None,
        ),
    )


CHANGED = -1.0
"""What a stream reads next: the thing as read after its latest change (else a read started at or after
the time given, :func:`time.monotonic`)."""
CHECK = 30.0
"""Seconds after which a quiet stream's thing is read again (shared): a change whose note was lost is
shown then at the latest."""
SESSION_CHECK = KEEPALIVE
"""Seconds between a stream's checks that the session it was opened with still holds: once it was logged
out or replaced by a login, the stream ends (the page's script opens it again, with its new cookie)."""


@dataclass(frozen=True)
class Followed(Generic[T]):
    """What a stream follows: a live match or a room (``kind`` and its store id, as the feed keys it), how
    it is read (``read``, in a thread, shared by every stream of the process), the view of the stream's
    viewer made from a read (``show``, reading nothing), when the clock of a view runs out
    (``seconds_left``), and its ``name`` for the log."""

    kind: str
    store_id: int
    read: Callable[[], T]
    show: Callable[[T], dict[str, Any]]
    seconds_left: Callable[[dict[str, Any]], float | None]
    name: str
    page: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """The state as sent (in a thread, and only when its version moved on): with the page, for a page's script."""
    holds: Callable[[], bool] | None = None
    """Whether the viewer's session still holds (in a thread, every :data:`SESSION_CHECK` seconds at most):
    the stream ends when it does not (``None``: a stream opened without a session)."""


async def event_stream(request: Request, followed: Followed[T]) -> StreamingResponse:
    """The server-sent events of ``followed``: its view at once (errors before the stream starts), then
    each time its version moves on, and keep-alives carrying the version only. The one stream of live
    matches and rooms alike."""
    following = feed_of(request).follow(followed.kind, followed.store_id, followed.read)
    follower = following.__enter__()  # left when the stream ends (or, never started, when the answer is done)
    left = False

    def leave() -> None:
        nonlocal left
        if not left:
            left = True
            following.__exit__(None, None, None)

    try:
        first = followed.show(await follower.read())  # errors before the stream
    except BaseException:
        leave()
        raise

    async def stream() -> AsyncIterator[str]:
        try:
            async for line in _follow(request, follower, followed, first):
                yield line
        finally:
            leave()

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(
        stream(), media_type="text/event-stream", headers=headers, background=BackgroundTask(leave)
    )


async def _follow(
    request: Request, follower: Follower[T], followed: Followed[T], first: dict[str, Any]
) -> AsyncIterator[str]:
    """The lines of a stream: a state when its version moves on, else a keep-alive."""
    state: dict[str, Any] | None = first
    last = -1
    failures = 0  # reads in a row that found the store down
    due: float | None = None  # when the move awaited runs out of time (the clock is checked then)
    read_at = time.monotonic()
    need: float | None = None  # what to read next: CHANGED, a time (a fresh read), or nothing
    checked = time.monotonic()  # when the viewer's session was last found to hold
    while True:
        if need is not None:
            try:
                opened = await (follower.read() if need == CHANGED else follower.fresh(need))
                state = followed.show(opened)
                failures = 0
            except (NotFoundError, ConflictError):  # gone, or moved on meanwhile: the next check reads it
                state = None
            except UnavailableError as error:  # the store is down: read again soon, a few times, then end
                failures += 1
                if failures > STORE_RETRIES:
                    log.warning("a stream of %s ends: the store stays down (%s)", followed.name, error)
                    return
                state = None
            read_at = time.monotonic()
        if state is not None:
            left = followed.seconds_left(state)
            due = time.monotonic() + left if left is not None else None
        if state is not None and state["version"] != last:
            last = state["version"]
            sent = await run_in_threadpool(followed.page, state) if followed.page is not None else state
            yield f"event: state\ndata: {json.dumps(sent)}\n\n"
        else:  # an event, not a comment: the page's script sees it, and reconnects a stream gone silent
            yield f'event: alive\ndata: {{"version": {last}}}\n\n'
        state = None
        wait = min(KEEPALIVE, STORE_BACKOFF * 2 ** (failures - 1)) if failures else KEEPALIVE
        if due is not None:  # a little after the deadline: the read then times the move out
            wait = min(wait, max(0.0, due - time.monotonic()) + 0.1)
        changed = await follower.wait(wait)
        if await request.is_disconnected():
            return
        now = time.monotonic()
        if followed.holds is not None and now - checked >= SESSION_CHECK:
            if not await run_in_threadpool(followed.holds):
                return  # logged out, or logged in anew, meanwhile: nothing more for the session it began with
            checked = now
        if changed:
            need = CHANGED
        elif failures:
            need = now
        elif due is not None and now >= due:
            need = due + 0.05  # a read started after the deadline (one for every stream waiting on it)
        elif now - read_at >= CHECK:
            need = now - KEEPALIVE
        else:
            need = None


# -- the pages ---------------------------------------------------------------------------------------


Code = Annotated[str, Form(max_length=200)]
Token = Annotated[str, Form(max_length=64)]
Row = Annotated[str, Form(max_length=4)]


@pages.get("/live", response_class=HTMLResponse)
def live_form(request: Request) -> Response:
    """Start a match against a friend."""
    viewer = _viewer(request)
    mine = live.matches_of(store_of(request), viewer, limit=20) if viewer is not None else []
    return page(request, "live_new.html", active="Friends", chosen=RulesForm(), mine=mine, **_clock_choices())


def _clock_choices(chosen: int = LIVE_MOVE_DEFAULT) -> dict[str, Any]:
    """The time controls the form offers, as labelled, and the one chosen."""
    return {"move_choices": [(s, per_move(s)) for s in MOVE_CHOICES], "move_chosen": chosen}


def _seconds(text: str) -> int:
    """The form's seconds per move, a whole number (its range is checked with the match's other rules)."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise KeypegError(f"the time per move must be a whole number of seconds, not {visible(text, 20)!r}")
    return int(text)


@pages.post("/live", response_class=HTMLResponse)
def live_create(
    request: Request,
    csrf: Csrf,
    fields: Annotated[RulesForm, Depends(rules_form)],
    games: Annotated[str, Form(max_length=3)] = "2",
    nickname: Annotated[str, Form(max_length=64)] = "",
    move_seconds: Annotated[str, Form(max_length=20)] = str(LIVE_MOVE_DEFAULT),
) -> Response:
    session = form_session(request, csrf)
    try:
        rules, count, seconds = fields.rules(), whole_number(games, "games"), _seconds(move_seconds)
        public_id = live.create(store_of(request), player_for(request, session), rules, count, nickname, seconds)
    except KeypegError as error:
        return page(
            request,
            "live_new.html",
            status=status_of(error),
            active="Friends",
            chosen=fields,
            mine=[],
            error=str(error),
            **_clock_choices(),
        )
    return redirect(f"/live/{public_id}")


def _live_page(request: Request, public_id: str, *, status: int = 200, error: str = "") -> Response:
    view = live.snapshot(store_of(request), bus_of(request), public_id, _viewer(request))
    links = _links(request, public_id) if _invites(view) else None
    return page(request, "live.html", status=status, error=error, **_live_context(public_id, view, links))


def _invites(view: dict[str, Any]) -> bool:
    """Whether the page shows the invitation (to its creator, while the match waits)."""
    return bool(view["you"] == view["seats"][0] and view["waiting"])


def _live_context(public_id: str, view: dict[str, Any], links: dict[str, Any] | None) -> dict[str, Any]:
    """What the match's page shows of ``view``: its GET and the pages its stream sends render it alike."""
    history = view["current"]["history"] if view["current"] else []
    last = view["last"]["history"] if view["last"] else []
    return {
        "active": "Friends",
        "id": public_id,
        "view": view,
        "rules": Rules.from_dict(view["rules"]),
        "links": links,
        "moves": [(m["guess"], Feedback(m["black"], m["white"])) for m in history],
        "last_moves": [(m["guess"], Feedback(m["black"], m["white"])) for m in last],
    }


def _with_page(request: Request, session: WebSession, public_id: str, state: dict[str, Any]) -> dict[str, Any]:
    """A state of the match's stream with its page for ``session`` (``page``), as its GET renders it; none when
    that page reads more than the state (the invitation's token, a match over's rating line): the script
    fetches that page."""
    if _invites(state) or state["over"]:
        return state
    return state | {"page": render(request, session, "live.html", **_live_context(public_id, state, None))}


@pages.get("/live/{public_id}", response_class=HTMLResponse)
def live_page(request: Request, public_id: str) -> Response:
    """The match: the board, whose turn it is, the score; updated live."""
    return _live_page(request, public_id)


@pages.get("/live/{public_id}/join", response_class=HTMLResponse)
def live_join_form(request: Request, public_id: str, token: str = "") -> Response:
    view = live.snapshot(store_of(request), bus_of(request), public_id, None)
    return page(request, "live_join.html", active="Friends", id=public_id, view=view, token=token[:64])


def _act(
    request: Request, public_id: str, csrf: str, move: Callable[..., object], *args: Any, seat: bool = False
) -> Response:
    """A move sent by a page's form, ``move(store, bus, public_id, player, *args)`` (with ``seat``, a guest
    gets a player of their own first); refused, the match is shown again with why."""
    session = form_session(request, csrf)
    try:
        player = player_for(request, session) if seat else session.player
        move(store_of(request), bus_of(request), public_id, player, *args)
    except KeypegError as error:
        if isinstance(error, (NotFoundError, UnavailableError)):  # no such match, or no store: the error page
            raise
        return _live_page(request, public_id, status=status_of(error), error=str(error))
    return redirect(f"/live/{public_id}")


@pages.post("/live/{public_id}/join", response_class=HTMLResponse)
def live_join(
    request: Request, public_id: str, csrf: Csrf, token: Token = "", nickname: Annotated[str, Form(max_length=64)] = ""
) -> Response:
    return _act(request, public_id, csrf, live.join, token, nickname, seat=True)


@pages.post("/live/{public_id}/secret", response_class=HTMLResponse)
def live_secret(request: Request, public_id: str, csrf: Csrf, code: Code = "") -> Response:
    return _act(request, public_id, csrf, live.set_code, code)


@pages.post("/live/{public_id}/guess", response_class=HTMLResponse)
def live_guess(request: Request, public_id: str, csrf: Csrf, code: Code = "", row: Row = "") -> Response:
    number = int(row) if row.isascii() and row.isdigit() else None
    return _act(request, public_id, csrf, live.guess, code, number)


@pages.post("/live/{public_id}/resign", response_class=HTMLResponse)
def live_resign(request: Request, public_id: str, csrf: Csrf, game: Row = "") -> Response:
    number = int(game) if game.isascii() and game.isdigit() else None
    return _act(request, public_id, csrf, live.resign, number)
