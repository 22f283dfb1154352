"""Rooms on the web, the JSON API (``/api/rooms``): create a room, join it by its link, start it, set a
code, guess, give up a board, leave, kick, close, and follow it live (server-sent events of the viewer's
view). The use cases are :mod:`keypeg.services.rooms`'; here a request is parsed, the session's player
found, the use case called and its answer rendered (errors become statuses by
:data:`keypeg.web.errors.STATUSES`). Sessions, CSRF and guests as ``/api/live``.
"""

from __future__ import annotations

import functools
import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import Field

from keypeg.limits import LIVE_MOVE_DEFAULT, LIVE_MOVE_SECONDS
from keypeg.play.rooms import MAX_ROUNDS
from keypeg.services import rooms
from keypeg.web import rooms as room_pages
from keypeg.web.api import ERRORS, RequestBody, RulesIn, changing
from keypeg.web.live import Followed, event_stream, feed_of
from keypeg.web.sessions import WebSession, current, player_for, still_current, store_of

__all__ = ["api"]

api = APIRouter(prefix="/api/rooms", responses=ERRORS, tags=["rooms"])
log = logging.getLogger("keypeg.web")

RoomId = Annotated[str, Field(min_length=1, max_length=64)]


class NewRoom(RulesIn):
    rounds: int = Field(
        3,
        ge=1,
        le=MAX_ROUNDS,
        description="Rounds to play; with maker 'turns', the codes EACH player makes (rounds x players in all).",
    )
    maker: Literal["computer", "turns"] = Field(
        "computer", description="Who sets each round's code: the computer, or each player in turn (seat order)."
    )
    move_seconds: int = Field(
        LIVE_MOVE_DEFAULT,
        description=f"Seconds per move, from {LIVE_MOVE_SECONDS[0]} to {LIVE_MOVE_SECONDS[1]:,} (a day): a breaker "
        "who runs out has their board end not broken; a codemaker, the computer sets the code.",
    )
    nickname: str | None = Field(None, max_length=rooms.NICKNAME_LENGTH, description="A guest's name to be shown by.")


class JoinIn(RequestBody):
    token: str = Field(min_length=1, max_length=64, description="The token of the room's join link.")
    nickname: str | None = Field(None, max_length=rooms.NICKNAME_LENGTH, description="A guest's name to be shown by.")


class CodeIn(RequestBody):
    code: str = Field(min_length=1, max_length=200, description="The round's code (turns: its codemaker).")


class GuessIn(RequestBody):
    guess: str = Field(min_length=1, max_length=200)
    row: int | None = Field(None, ge=1, le=101, description="The row this guess is for: a request sent twice is 409.")
    round: int | None = Field(
        None, ge=1, le=100_000, description="The round this guess is for: sent after its round ended, it is 409."
    )


class KickIn(RequestBody):
    player: str = Field(min_length=1, max_length=64, description="The seat's player (not its shown name).")


def _viewer(request: Request) -> str | None:
    session = current(request)
    return session.player if session is not None else None


def _view(request: Request, room_id: str, player: str | None) -> dict[str, Any]:
    return rooms.snapshot(store_of(request), feed_of(request), room_id, player)


@api.post("", status_code=201)
def api_create(request: Request, body: NewRoom, session: Annotated[WebSession, Depends(changing)]) -> dict[str, Any]:
    """Create a room (you are its host, in the first seat): the room as you see it, with its links:
    ``join`` (to share: players take a seat with it until the start, and come back with it after leaving)
    and ``watch`` (anyone)."""
    player = player_for(request, session)
    store = store_of(request)
    room_id = rooms.create(store, player, body.rules(), body.rounds, body.maker, body.move_seconds, body.nickname)
    return rooms.links(store, room_id) | _view(request, room_id, player)


@api.get("/{room_id}")
def api_view(request: Request, room_id: RoomId) -> dict[str, Any]:
    """The room as you may see it: every board of the round in play as key pegs only, your own board with
    your guesses, the code only to the player who set it; every ended round whole."""
    return _view(request, room_id, _viewer(request))


@api.post("/{room_id}/join")
def api_join(
    request: Request, room_id: RoomId, body: JoinIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """Take a seat with the link's token (before the start), or take yours back after leaving."""
    player = player_for(request, session)
    rooms.join(store_of(request), feed_of(request), room_id, player, body.token, body.nickname)
    return _view(request, room_id, player)


@api.post("/{room_id}/start")
def api_start(request: Request, room_id: RoomId, session: Annotated[WebSession, Depends(changing)]) -> dict[str, Any]:
    """The host starts the room (2 or more seated): the first round begins."""
    rooms.start(store_of(request), feed_of(request), room_id, session.player)
    return _view(request, room_id, session.player)


@api.post("/{room_id}/code")
def api_code(
    request: Request, room_id: RoomId, body: CodeIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """As the round's codemaker (turns), set its code: the others' boards start."""
    rooms.set_code(store_of(request), feed_of(request), room_id, session.player, body.code)
    return _view(request, room_id, session.player)


@api.post("/{room_id}/guesses")
def api_guess(
    request: Request, room_id: RoomId, body: GuessIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """Guess on your board of the round: the server scores it."""
    return rooms.guess(store_of(request), feed_of(request), room_id, session.player, body.guess, body.row, body.round)


@api.post("/{room_id}/resign")
def api_resign(request: Request, room_id: RoomId, session: Annotated[WebSession, Depends(changing)]) -> dict[str, Any]:
    """Give up your board of the round in play (it counts as not broken)."""
    rooms.resign(store_of(request), feed_of(request), room_id, session.player)
    return _view(request, room_id, session.player)


@api.post("/{room_id}/leave")
def api_leave(request: Request, room_id: RoomId, session: Annotated[WebSession, Depends(changing)]) -> dict[str, Any]:
    """Leave the room: you keep your place in the standing and may come back with its link."""
    rooms.leave(store_of(request), feed_of(request), room_id, session.player)
    return _view(request, room_id, session.player)


@api.post("/{room_id}/kick")
def api_kick(
    request: Request, room_id: RoomId, body: KickIn, session: Annotated[WebSession, Depends(changing)]
) -> dict[str, Any]:
    """The host removes a player (who may not come back)."""
    rooms.kick(store_of(request), feed_of(request), room_id, session.player, body.player)
    return _view(request, room_id, session.player)


@api.post("/{room_id}/close")
def api_close(request: Request, room_id: RoomId, session: Annotated[WebSession, Depends(changing)]) -> dict[str, Any]:
    """The host closes the room: it is over, the round in play counted as it stands (its boards given up)."""
    rooms.close(store_of(request), feed_of(request), room_id, session.player)
    return _view(request, room_id, session.player)


@api.get("/{room_id}/stream", response_class=StreamingResponse)
async def api_stream(request: Request, room_id: RoomId, page: bool = False) -> StreamingResponse:
    """Follow the room live (server-sent events): an ``event: state`` with the room as you may see it (as
    ``GET /api/rooms/{id}``) at once and after every change (a move, or a clock running out:
    ``clock.deadline`` says when), an ``event: alive`` with the version last sent (``{"version": N}``)
    every few seconds when nothing changes. The streams of a room in one process share one read of it a
    change; while the store is down a stream sends keep-alives and tries again a few times before it ends.
    With ``page=true`` (the page's script) each state is whole (as ``GET``) and carries ``page``, the room's
    page as its GET renders it for your session (none once the room is over)."""
    session = await run_in_threadpool(current, request)
    viewer = session.player if session is not None else None
    paged = page and session is not None
    store, feed = store_of(request), feed_of(request)
    store_id = await run_in_threadpool(rooms.store_id, store, room_id)  # 404, or 503 when the store is down
    return await event_stream(
        request,
        Followed(
            rooms.KIND,
            store_id,
            functools.partial(rooms.shared, store, feed, room_id),
            lambda opened: rooms.shown(opened, viewer, whole=paged),
            lambda state: state["clock"]["seconds_left"],
            f"room {room_id}",
            functools.partial(room_pages.with_page, request, session, room_id) if paged and session else None,
            still_current(request, session) if session is not None else None,
        ),
    )
