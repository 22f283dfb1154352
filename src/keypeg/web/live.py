"""Matches between two people, live: create one and send the invitation, join it, set codes and guess,
follow it as it is played (server-sent events), watch it as a spectator. The rules are the play
layer's (:mod:`keypeg.play.live`); here each request loads the match from the store, checks who may do
what, saves it (refused if another request moved it on meanwhile) and wakes everyone following it.

Every worker process wakes its own followers directly, and, on PostgreSQL, every other worker's through
``LISTEN``/``NOTIFY`` on one channel; on SQLite (one worker) the same code wakes them directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from pydantic import Field

from keypeg.code import Feedback
from keypeg.errors import KeypegError, NotFoundError
from keypeg.limits import LIVE_ABSENCE_LIMIT
from keypeg.play.live import LiveMatch
from keypeg.services.recording import GameKeeper, RecordingError, continue_game
from keypeg.play.sessions import BreakSession
from keypeg.rules import Rules
from keypeg.store import Store, StoreError, player_name
from keypeg.web.api import ERRORS, RequestBody, RulesIn, changing, session_of
from keypeg.web.games import new_id, player_for
from keypeg.web.pages import Csrf, RulesForm, form_session, page, redirect, rules_form, whole_number
from keypeg.web.sessions import WebSession, current, store_of

__all__ = ["api", "pages", "LiveBus", "CHANNEL", "invite_token"]

api = APIRouter(prefix="/api/live", responses=ERRORS)
pages = APIRouter(include_in_schema=False)

CHANNEL = "keypeg_live"
"""The PostgreSQL channel a change of a live match is announced on (the payload: the match's store id, a
space and the mark of the process that changed it)."""
KEEPALIVE = 5.0
"""Seconds between a stream's checks when nothing happens: presence, forfeits, a keep-alive line."""
log = logging.getLogger("keypeg.web")


# -- waking followers --------------------------------------------------------------------------------


class LiveBus:
    """Wakes the streams following a match when it changes, in this process and (PostgreSQL) in others."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.mark = secrets.token_hex(8)
        """This process's mark on what it announces: it hears its own announcements too, and ignores them
        (its followers were woken directly, and would otherwise read the match a second time)."""
        self._events: dict[int, asyncio.Event] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listening = False

    def event(self, match_id: int) -> asyncio.Event:
        """The event the next change of the match sets (take it before reading the match: no change is
        missed between the read and the wait)."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._listen()
        return self._events.setdefault(match_id, asyncio.Event())

    def changed(self, match_id: int) -> None:
        """The match changed (called after the change is committed, from any thread)."""
        self._wake(match_id)
        try:
            self.store.live.notify(CHANNEL, f"{match_id} {self.mark}")
        except StoreError as error:  # the move stands; other workers' followers catch up at their next check
            log.warning("could not announce a change of match %s: %s", match_id, error)

    def _wake(self, match_id: int) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._set, match_id)

    def _set(self, match_id: int) -> None:
        event = self._events.pop(match_id, None)
        if event is not None:
            event.set()

    def _listen(self) -> None:
        """On PostgreSQL, hear other workers' changes (the store listens in a thread of its own)."""
        if not self._listening:
            self._listening = self.store.live.listen(CHANNEL, self._heard)

    def _heard(self, payload: str) -> None:
        """A change announced on the channel: followers here are woken, unless this process announced it."""
        match_id, _, mark = payload.partition(" ")
        if mark != self.mark and match_id.isascii() and match_id.isdigit() and len(match_id) < 20:
            self._wake(int(match_id))


def bus_of(request: Request) -> LiveBus:
    app = request.app
    if getattr(app.state, "live_bus", None) is None:
        app.state.live_bus = LiveBus(store_of(request))
    bus: LiveBus = app.state.live_bus
    return bus


# -- loading and saving ------------------------------------------------------------------------------


@dataclass
class Loaded:
    """A live match loaded for a request: the play layer's match, its game being played, and the store's
    id and version it was read at."""

    public_id: str
    id: int
    version: int
    live: LiveMatch
    game: BreakSession | None
    keeper: GameKeeper | None
    seen: tuple[datetime | None, ...]


def invite_token(store: Store, public_id: str) -> str:
    """The invitation's token of a match: only who holds it takes the second seat (derived from a key of
    the store's, so nothing about it is kept)."""
    return hmac.new(store.keys.server_key("invite"), public_id.encode(), hashlib.sha256).hexdigest()[:32]


def load(request: Request, public_id: str) -> Loaded:
    """The match (404 if there is none), its current game loaded; a game that ended without being counted
    (a write cut short) is counted now."""
    store = store_of(request)
    try:
        record = store.live.get(public_id)
    except NotFoundError:  # a failing store is 503, not 'no such match'
        raise HTTPException(404, "no such match") from None
    try:
        live = LiveMatch.from_state(json.loads(record.state))
    except (ValueError, KeypegError):
        raise HTTPException(404, "no such match") from None  # a match of the computer's, or damaged
    game, keeper = None, None
    if live.match is not None and live.match.current_id is not None:
        session, keeper = continue_game(store, live.match.current_id, match_id=record.id, over_ok=True)
        assert isinstance(session, BreakSession)
        game = session
    loaded = Loaded(public_id, record.id, record.version, live, game, keeper, record.seen)
    if game is not None and game.is_over and loaded.live.turn() is not None:
        live._count(game)
        save(request, loaded)
    return loaded


def save(request: Request, loaded: Loaded, *, opponent: str | None = None) -> None:
    """Write the match's new state (409 if another request moved it on) and wake its followers."""
    try:
        loaded.version = store_of(request).live.save(
            loaded.id, json.dumps(loaded.live.to_state()), loaded.version, opponent=opponent
        )
    except StoreError:
        raise HTTPException(409, "the match was moved on meanwhile: reload it") from None
    bus_of(request).changed(loaded.id)


def _seat(loaded: Loaded, session: WebSession | None) -> str:
    """The session's player, if they sit in the match (403 for anyone else)."""
    player = session.player if session is not None else None
    if player is None or loaded.live.seat_of(player) is None:
        raise HTTPException(403, "only the match's two players can do that")
    return player


def check_absence(request: Request, loaded: Loaded) -> None:
    """Whoever must act and has been away too long forfeits the game (any viewer's request checks)."""
    gone = loaded.live.absent(datetime.now(UTC), loaded.seen)
    if gone is None:
        return
    loaded.live.forfeit(gone, loaded.game)
    if loaded.game is not None and loaded.keeper is not None:
        _sync(loaded)
    save(request, loaded)


def _sync(loaded: Loaded) -> None:
    assert loaded.keeper is not None and loaded.game is not None
    try:
        loaded.keeper.sync(loaded.game)
    except RecordingError:
        raise HTTPException(409, "the game was played on meanwhile: reload it") from None


# -- the moves, shared by the API and the pages --------------------------------------------------------


def nickname_of(session: WebSession, nickname: str | None) -> str | None:
    """A guest's nickname, checked like a player's name (a registered player is shown by their name)."""
    if session.person is not None or not nickname or not nickname.strip():
        return None
    return player_name(nickname)


def create(request: Request, session: WebSession, rules: Rules, games: int, nickname: str | None = None) -> str:
    """A new match of the session's player, waiting for a second; its public id."""
    nick = nickname_of(session, nickname)
    player = player_for(request, session)
    live = LiveMatch.new(rules, games, player, nick)
    public_id = new_id()
    store_of(request).live.start(player, json.dumps(live.to_state()), public_id)
    return public_id


def join(request: Request, session: WebSession, public_id: str, token: str, nickname: str | None = None) -> None:
    loaded = load(request, public_id)
    if not hmac.compare_digest(token.encode(), invite_token(store_of(request), public_id).encode()):
        raise HTTPException(403, "this invitation is not valid for this match")
    nick = nickname_of(session, nickname)
    player = player_for(request, session)
    if loaded.live.seat_of(player) is not None:
        return  # already seated: opening the invitation again changes nothing
    loaded.live.join(player, nick)
    save(request, loaded, opponent=player)


def set_secret(request: Request, session: WebSession, public_id: str, code: str) -> None:
    loaded = load(request, public_id)
    player = _seat(loaded, session)
    game = loaded.live.set_secret(player, code)
    roles = loaded.live.roles()
    assert roles is not None
    keeper = GameKeeper.start(store_of(request), roles[1], game, match_id=loaded.id, maker=player)
    assert keeper.game_id is not None
    loaded.live.started(keeper.game_id)
    save(request, loaded)


def guess(request: Request, session: WebSession, public_id: str, code: str, row: int | None = None) -> Loaded | None:
    """The codebreaker's guess (``row``, when given, must be the next row: a request sent twice is 409);
    the match as it now is, or ``None`` when another request counted the game it ended (read it again)."""
    loaded = load(request, public_id)
    player = _seat(loaded, session)
    if loaded.game is None:
        raise HTTPException(409, "the code of this game is not set yet")
    if row is not None and row != len(loaded.game.history) + 1:
        raise HTTPException(409, f"that guess was for row {row}, and the next row is {len(loaded.game.history) + 1}")
    over_before = loaded.live.is_over or loaded.game.is_over
    loaded.live.guess(player, loaded.game, code)
    _sync(loaded)
    if loaded.game.is_over and not over_before:
        return loaded if _save_counted(request, loaded) else None  # the game is counted: the match moves on
    loaded.version = store_of(request).live.touch(loaded.id, 0 if player == loaded.live.first else 1, bump=True)
    bus_of(request).changed(loaded.id)
    return loaded


def resign(request: Request, session: WebSession, public_id: str) -> None:
    loaded = load(request, public_id)
    loaded.live.resign(_seat(loaded, session), loaded.game)
    if loaded.game is not None and loaded.game.is_over:
        _sync(loaded)
        _save_counted(request, loaded)
    else:
        save(request, loaded)


def _save_counted(request: Request, loaded: Loaded) -> bool:
    """Save the match after its game ended (``True``); if a follower's request counted the game first (it
    saw the finished game in the store), that stands (``False``)."""
    counted = loaded.game
    try:
        save(request, loaded)
        return True
    except HTTPException as conflict:
        again = load(request, loaded.public_id)
        if conflict.status_code != 409 or counted is None or again.live.match is None:
            raise
        if again.live.match.current_id is not None and again.game is not None and not again.game.is_over:
            return False  # counted, and the next game already set
        if len(again.live.match.match.played) < len(loaded.live.match.match.played):  # type: ignore[union-attr]
            raise
        return False


def snapshot(request: Request, public_id: str, viewer: str | None, *, present: bool = True) -> dict[str, Any]:
    """What ``viewer`` may see of the match now, with its version; a seated viewer is noted present, and a
    player away too long on their turn forfeits."""
    loaded = load(request, public_id)
    seat = loaded.live.seat_of(viewer)
    if present and seat is not None:
        store_of(request).live.touch(loaded.id, seat)
        loaded.seen = tuple(datetime.now(UTC) if k == seat else t for k, t in enumerate(loaded.seen))
    if loaded.live.second is not None:
        check_absence(request, loaded)
    return view_of(request, loaded, viewer)


def view_of(request: Request, loaded: Loaded, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` may see of the match as loaded (and moved), with its version."""
    view = loaded.live.view(viewer, loaded.game)
    last = _last_game(request, loaded)
    view.update(id=loaded.public_id, version=loaded.version, absence_limit=LIVE_ABSENCE_LIMIT, last=last)
    return view


def _last_game(request: Request, loaded: Loaded) -> dict[str, Any] | None:
    """The game that ended last, shown (with its code: it is over) until the next game's code is set."""
    live = loaded.live
    if live.last_id is None or live.match is None or live.match.current_id is not None:
        return None
    record = store_of(request).games.record(live.last_id)
    if record.outcome is None:
        return None
    played = live.match.match.played[-1]
    return {
        "number": len(live.match.match.played),
        "codemaker": played.codemaker,
        "codebreaker": played.codebreaker,
        "code": record.secret,
        "broken": played.broken,
        "history": [{"guess": m.guess, "black": m.feedback.black, "white": m.feedback.white} for m in record.moves],
    }


# -- the JSON API ------------------------------------------------------------------------------------


class NewLive(RulesIn):
    games: int = Field(2, ge=2, le=20, multiple_of=2, description="An even number of games.")
    nickname: str | None = Field(None, max_length=64, description="A guest's name to be shown by.")


class CodeIn(RequestBody):
    code: str = Field(min_length=1, max_length=200)


class GuessIn(CodeIn):
    row: int | None = Field(None, ge=1, le=101, description="The row this guess is for: a request sent twice is 409.")


class TokenIn(RequestBody):
    token: str = Field(min_length=1, max_length=64)
    nickname: str | None = Field(None, max_length=64, description="A guest's name to be shown by.")


@api.post("", status_code=201)
def api_create(request: Request, body: NewLive, session: Annotated[WebSession, Depends(changing)]) -> dict[str, Any]:
    """Create a match against another person: its id, the invitation's token (the second player sends it
    to ``/join``) and the links to share."""
    rules = body.rules()
    public_id = create(request, session, rules, body.games, body.nickname)
    return _links(request, public_id) | snapshot(request, public_id, session_of(request).player)


def _links(request: Request, public_id: str) -> dict[str, Any]:
    token = invite_token(store_of(request), public_id)
    return {"token": token, "invite": f"/live/{public_id}/join?token={token}", "watch": f"/live/{public_id}"}


@api.get("/{match_id}")
def api_view(request: Request, match_id: str) -> dict[str, Any]:
    """The match as you may see it: a player sees the code they set; a spectator never sees a code
    before its game ends."""
    session = current(request)
    return snapshot(request, match_id, session.player if session else None)


@api.post("/{match_id}/join")
def api_join(
    request: Request, match_id: str, body: TokenIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """Take the second seat with the invitation's token."""
    join(request, session, match_id, body.token, body.nickname)
    return snapshot(request, match_id, session_of(request).player)


@api.post("/{match_id}/secret")
def api_secret(
    request: Request, match_id: str, body: CodeIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """As codemaker, set the code of the next game."""
    set_secret(request, session, match_id, body.code)
    return snapshot(request, match_id, session.player)


@api.post("/{match_id}/guesses")
def api_guess(
    request: Request, match_id: str, body: GuessIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """As codebreaker, guess: the server scores it."""
    moved = guess(request, session, match_id, body.code, body.row)
    return view_of(request, moved, session.player) if moved is not None else snapshot(request, match_id, session.player)


@api.post("/{match_id}/resign")
def api_resign(request: Request, match_id: str, session: Annotated[WebSession, Depends(changing)]) -> dict[str, Any]:
    """Give up the game being played."""
    resign(request, session, match_id)
    return snapshot(request, match_id, session.player)


@api.get("/{match_id}/events", response_class=StreamingResponse)
async def api_events(request: Request, match_id: str) -> StreamingResponse:
    """Follow the match live (server-sent events): an ``event: state`` with the match as you may see it
    (the same as ``GET /api/live/{id}``) at once and after every change."""
    session = await run_in_threadpool(current, request)  # the database is read in a thread, never in the loop
    viewer = session.player if session is not None else None
    bus = bus_of(request)
    try:
        store_id = (await run_in_threadpool(store_of(request).live.get, match_id)).id
    except StoreError:
        raise HTTPException(404, "no such match") from None
    event = bus.event(store_id)  # taken before the first read: a change made meanwhile is not missed
    first = await run_in_threadpool(snapshot, request, match_id, viewer)  # 404 before the stream starts

    async def stream() -> AsyncIterator[str]:
        state: dict[str, Any] | None = first
        last = -1
        noted = time.monotonic()  # when the viewer was last noted present (a write: not at every change)
        changed = event
        while True:
            if state is None:
                changed = bus.event(store_id)
                present = time.monotonic() - noted >= KEEPALIVE
                try:
                    state = await run_in_threadpool(snapshot, request, match_id, viewer, present=present)
                except HTTPException:
                    state = None
                if present:
                    noted = time.monotonic()
            if state is not None and state["version"] != last:
                last = state["version"]
                yield f"event: state\ndata: {json.dumps(state)}\n\n"
            else:
                yield ": still here\n\n"
            state = None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), KEEPALIVE)
            if await request.is_disconnected():
                return

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


# -- the pages ---------------------------------------------------------------------------------------


Code = Annotated[str, Form(max_length=200)]
Token = Annotated[str, Form(max_length=64)]
Row = Annotated[str, Form(max_length=4)]


@pages.get("/live", response_class=HTMLResponse)
def live_form(request: Request) -> Response:
    """Start a match against a friend."""
    session = current(request)
    mine: list[dict[str, Any]] = []
    if session is not None and session.player is not None:
        for public_id, state in store_of(request).live.of_player(session.player, limit=20):
            try:
                live = LiveMatch.from_state(json.loads(state))
            except (ValueError, KeypegError):
                continue
            points = live.scores()
            names = [live.shown(p) for p in live.seats]
            mine.append(
                {"id": public_id, "names": names, "points": [points[p] for p in live.seats], "over": live.is_over}
            )
    return page(request, "live_new.html", active="Friends", chosen=RulesForm(), mine=mine)


@pages.post("/live", response_class=HTMLResponse)
def live_create(
    request: Request,
    csrf: Csrf,
    fields: Annotated[RulesForm, Depends(rules_form)],
    games: Annotated[str, Form(max_length=3)] = "2",
    nickname: Annotated[str, Form(max_length=64)] = "",
) -> Response:
    session = form_session(request, csrf)
    try:
        public_id = create(request, session, fields.rules(), whole_number(games, "games"), nickname)
    except KeypegError as error:
        return page(
            request,
            "live_new.html",
            status=400,
            active="Friends",
            chosen=fields,
            mine=[],
            error=str(error),
        )
    return redirect(f"/live/{public_id}")


def _live_page(request: Request, public_id: str, *, status: int = 200, error: str = "") -> Response:
    session = current(request)
    viewer = session.player if session is not None else None
    view = snapshot(request, public_id, viewer)
    links = _links(request, public_id) if view["you"] == view["seats"][0] and view["waiting"] else None
    history = view["current"]["history"] if view["current"] else []
    moves = [(m["guess"], Feedback(m["black"], m["white"])) for m in history]
    last = view["last"]["history"] if view["last"] else []
    last_moves = [(m["guess"], Feedback(m["black"], m["white"])) for m in last]
    return page(
        request,
        "live.html",
        status=status,
        active="Friends",
        id=public_id,
        view=view,
        rules=Rules.from_dict(view["rules"]),
        links=links,
        moves=moves,
        last_moves=last_moves,
        error=error,
    )


@pages.get("/live/{public_id}", response_class=HTMLResponse)
def live_page(request: Request, public_id: str) -> Response:
    """The match: the board, whose turn it is, the score; updated live."""
    return _live_page(request, public_id)


@pages.get("/live/{public_id}/join", response_class=HTMLResponse)
def live_join_form(request: Request, public_id: str, token: str = "") -> Response:
    view = snapshot(request, public_id, None, present=False)
    return page(request, "live_join.html", active="Friends", id=public_id, view=view, token=token[:64])


def _act(request: Request, public_id: str, csrf: str, act: Any) -> Response:
    session = form_session(request, csrf)
    try:
        act(session)
    except KeypegError as error:
        return _live_page(request, public_id, status=400, error=str(error))
    except HTTPException as refused:
        if refused.status_code == 404:
            raise
        return _live_page(request, public_id, status=refused.status_code, error=str(refused.detail))
    return redirect(f"/live/{public_id}")


@pages.post("/live/{public_id}/join", response_class=HTMLResponse)
def live_join(
    request: Request, public_id: str, csrf: Csrf, token: Token = "", nickname: Annotated[str, Form(max_length=64)] = ""
) -> Response:
    return _act(request, public_id, csrf, lambda session: join(request, session, public_id, token, nickname))


@pages.post("/live/{public_id}/secret", response_class=HTMLResponse)
def live_secret(request: Request, public_id: str, csrf: Csrf, code: Code = "") -> Response:
    return _act(request, public_id, csrf, lambda session: set_secret(request, session, public_id, code))


@pages.post("/live/{public_id}/guess", response_class=HTMLResponse)
def live_guess(request: Request, public_id: str, csrf: Csrf, code: Code = "", row: Row = "") -> Response:
    number = int(row) if row.isascii() and row.isdigit() else None
    return _act(request, public_id, csrf, lambda session: guess(request, session, public_id, code, number))


@pages.post("/live/{public_id}/resign", response_class=HTMLResponse)
def live_resign(request: Request, public_id: str, csrf: Csrf) -> Response:
    return _act(request, public_id, csrf, lambda session: resign(request, session, public_id))
