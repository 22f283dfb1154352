"""Rooms on the web, the pages: make a room (the rules, the rounds, who sets the codes, the time per move),
share its links, join it (a guest gives a nickname), the lobby (the host starts, kicks, closes), and the
rounds: your board, everyone else's progress as key pegs only, the clock, the standing; every board of a
round once it ends. The use cases are :mod:`keypeg.services.rooms`'; these pages only render what the
viewer may see (the services' view) and send the forms' moves. Followed live by ``static/room.js`` (the
room's stream at ``/api/rooms/{id}/stream``); without JavaScript they are plain forms, and a reload shows
the room as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, Response

from keypeg.code import Feedback
from keypeg.errors import KeypegError, NotFoundError, UnavailableError
from keypeg.limits import LIVE_MOVE_DEFAULT
from keypeg.play.live import per_move
from keypeg.rules import Rules
from keypeg.services import rooms
from keypeg.text import visible
from keypeg.web.errors import status_of
from keypeg.web.live import MOVE_CHOICES, feed_of
from keypeg.web.pages import Csrf, RulesForm, form_session, page, redirect, render, rules_form, whole_number
from keypeg.web.sessions import WebSession, current, player_for, store_of

__all__ = ["pages", "ROUND_CHOICES", "with_page"]

pages = APIRouter(include_in_schema=False)

ROUND_CHOICES = (1, 2, 3, 4, 5, 6, 8, 10, 15, 20)
"""The numbers of rounds the form offers (in turns: the codes each player makes)."""
ENDED = {
    "broken": "broke the code",
    "out of rows": "out of rows",
    "resigned": "gave up",
    "timed out": "ran out of time",
    "left": "left",
    "kicked": "was removed",
    "closed": "gave up (the room was closed)",
    "absent": "absent (given up)",
}
"""How a board's end is told."""

Text = Annotated[str, Form(max_length=200)]
Short = Annotated[str, Form(max_length=64)]


def _viewer(request: Request) -> str | None:
    session = current(request)
    return session.player if session is not None else None


def _choices(rounds: int = 3, seconds: int = LIVE_MOVE_DEFAULT, maker: str = "computer") -> dict[str, Any]:
    return {
        "round_choices": ROUND_CHOICES,
        "rounds_chosen": rounds,
        "move_choices": [(s, per_move(s)) for s in MOVE_CHOICES],
        "move_chosen": seconds,
        "maker_chosen": maker,
    }


def _mine(request: Request) -> list[dict[str, Any]]:
    viewer = _viewer(request)
    return rooms.rooms_of(store_of(request), viewer, limit=20) if viewer is not None else []


@pages.get("/rooms", response_class=HTMLResponse)
def rooms_index() -> Response:
    return redirect("/rooms/new")


@pages.get("/rooms/new", response_class=HTMLResponse)
def room_form(request: Request) -> Response:
    """Make a room: the rules, the rounds, who sets the codes, the time per move."""
    return page(request, "room_new.html", active="Rooms", chosen=RulesForm(), mine=_mine(request), **_choices())


@pages.post("/rooms/new", response_class=HTMLResponse)
def room_create(
    request: Request,
    csrf: Csrf,
    fields: Annotated[RulesForm, Depends(rules_form)],
    rounds: Annotated[str, Form(max_length=4)] = "3",
    maker: Annotated[str, Form(max_length=16)] = "computer",
    move_seconds: Annotated[str, Form(max_length=20)] = str(LIVE_MOVE_DEFAULT),
    nickname: Short = "",
) -> Response:
    session = form_session(request, csrf)
    try:
        rules, count, seconds = fields.rules(), whole_number(rounds, "rounds"), _seconds(move_seconds)
        if maker not in ("computer", "turns"):
            raise KeypegError("the codes are set by the computer or by each player in turn")
        player = player_for(request, session)
        public_id = rooms.create(store_of(request), player, rules, count, maker, seconds, nickname or None)
    except KeypegError as error:
        if isinstance(error, UnavailableError):
            raise
        return page(
            request,
            "room_new.html",
            status=status_of(error),
            active="Rooms",
            chosen=fields,
            mine=[],
            error=str(error),
            **_choices(maker=maker if maker in ("computer", "turns") else "computer"),
        )
    return redirect(f"/rooms/{public_id}")


def _seconds(text: str) -> int:
    """The form's seconds per move, a whole number (its range is the room's to check)."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise KeypegError(f"the time per move must be a whole number of seconds, not {visible(text, 20)!r}")
    return int(text)


def _keys(rows: list[dict[str, Any]]) -> list[Feedback]:
    return [Feedback(r["black"], r["white"]) for r in rows]


def _moves(rows: list[dict[str, Any]]) -> list[tuple[str, Feedback]]:
    return [(r["guess"], Feedback(r["black"], r["white"])) for r in rows if "guess" in r]


def _say(view: dict[str, Any]) -> str:
    """What the page tells a screen reader when it changes to this view (room.js says it once)."""
    you, round_ = view["you"], view["round"]
    if view["over"] and not view["rounds"]:
        return "The room was closed before it started."
    if view["over"]:
        firsts = [line["name"] for line in view["standing"] if line["place"] == 1]
        if len(firsts) > 1:  # equal points and guesses share the place
            return f"The room is over: {', '.join(firsts[:-1])} and {firsts[-1]} share first place."
        return f"The room is over: {firsts[0]} wins." if firsts else "The room is over."
    if round_ is None:
        return "Waiting for the host to start."
    said = f"Round {round_['number']} of {round_['of']}."
    if round_["maker"] is not None and not round_["code_set"]:
        said += " Your turn to set the code." if round_["maker"] == you else f" {round_['maker_name']} sets the code."
    elif view["board"] is not None and not view["board"]["over"]:
        said += " Your turn to guess."
    return said


def _room_page(request: Request, public_id: str, *, status: int = 200, error: str = "") -> Response:
    view = rooms.snapshot(store_of(request), feed_of(request), public_id, _viewer(request))
    return page(request, "room.html", status=status, error=error, **_room_context(public_id, view))


def _room_context(public_id: str, view: dict[str, Any]) -> dict[str, Any]:
    """What the room's page shows of ``view``: its GET and the pages its stream sends render it alike."""
    you, round_, board = view["you"], view["round"], view["board"]
    progress = [b | {"scores": _keys(b["rows"])} for b in (round_["boards"] if round_ else []) if b["player"] != you]
    return {
        "active": "Rooms",
        "id": public_id,
        "view": view,
        "rules": Rules.from_dict(view["room"]["rules"]),
        "seat": next((s for s in view["seats"] if s["player"] == you), None),
        "host": you is not None and you == view["host"],
        "making": bool(round_ and you is not None and round_["maker"] == you),
        "moves": _moves(board["rows"]) if board else [],
        "progress": progress,
        "ended": [r | {"shown": [b | {"moves": _moves(b["rows"])} for b in r["boards"]]} for r in view["rounds"]],
        "ends": ENDED,
        "say": _say(view),
    }


def with_page(request: Request, session: WebSession, public_id: str, state: dict[str, Any]) -> dict[str, Any]:
    """A state of the room's stream (made whole, as the page's) with its page for ``session`` (``page``), as
    its GET renders it; none once the room is over (its page reads the rating line): the script fetches that."""
    if state["over"]:
        return state
    view = state | {"rating": None}  # as rooms.snapshot: a room in play has no rating yet
    return state | {"page": render(request, session, "room.html", **_room_context(public_id, view))}


@pages.get("/rooms/{public_id}", response_class=HTMLResponse)
def room_page(request: Request, public_id: str) -> Response:
    """The room: the lobby, then the round in play, live."""
    return _room_page(request, public_id)


@pages.get("/rooms/{public_id}/join", response_class=HTMLResponse)
def room_join_form(request: Request, public_id: str, token: str = "") -> Response:
    """Take a seat with the room's link (or take yours back after leaving)."""
    return _join_page(request, public_id, token)


def _join_page(
    request: Request, public_id: str, token: str, *, status: int = 200, error: str = "", nickname: str = ""
) -> Response:
    """The page that takes a seat with the room's link; refused (``error``), it is shown again with why and
    the nickname typed."""
    viewer = _viewer(request)
    view = rooms.snapshot(store_of(request), feed_of(request), public_id, viewer)
    seat = next((s for s in view["seats"] if s["player"] == viewer), None)
    if seat is not None and seat["status"] == "present":
        return redirect(f"/rooms/{public_id}")
    host = next((s["name"] for s in view["seats"] if s["host"]), "")
    rules = Rules.from_dict(view["room"]["rules"])
    return page(
        request,
        "room_join.html",
        status=status,
        error=error,
        active="Rooms",
        id=public_id,
        view=view,
        seat=seat,
        host_name=host,
        rules=rules,
        token=token[:64],
        nickname=nickname[: rooms.NICKNAME_LENGTH * 2],
    )


def _act(
    request: Request,
    public_id: str,
    csrf: str,
    move: Callable[..., object],
    *args: Any,
    seat: bool = False,
    refused: Callable[[int, str], Response] | None = None,
) -> Response:
    """A move sent by a page's form, ``move(store, feed, public_id, player, *args)`` (with ``seat``, a guest
    gets a player of their own first); refused, the room is shown again with why (or ``refused(status,
    why)``'s page)."""
    session = form_session(request, csrf)
    try:
        player = player_for(request, session) if seat else session.player
        move(store_of(request), feed_of(request), public_id, player, *args)
    except KeypegError as error:
        if isinstance(error, (NotFoundError, UnavailableError)):
            raise
        if refused is not None:
            return refused(status_of(error), str(error))
        return _room_page(request, public_id, status=status_of(error), error=str(error))
    return redirect(f"/rooms/{public_id}")


@pages.post("/rooms/{public_id}/join", response_class=HTMLResponse)
def room_join(request: Request, public_id: str, csrf: Csrf, token: Short = "", nickname: Short = "") -> Response:
    """Take a seat; refused (a nickname taken, a stale link), the join page again, saying why."""

    def refused(status: int, error: str) -> Response:
        return _join_page(request, public_id, token, status=status, error=error, nickname=nickname)

    return _act(request, public_id, csrf, rooms.join, token, nickname or None, seat=True, refused=refused)


@pages.post("/rooms/{public_id}/start", response_class=HTMLResponse)
def room_start(request: Request, public_id: str, csrf: Csrf) -> Response:
    return _act(request, public_id, csrf, rooms.start)


@pages.post("/rooms/{public_id}/code", response_class=HTMLResponse)
def room_code(request: Request, public_id: str, csrf: Csrf, code: Text = "") -> Response:
    return _act(request, public_id, csrf, rooms.set_code, code)


@pages.post("/rooms/{public_id}/guess", response_class=HTMLResponse)
def room_guess(
    request: Request,
    public_id: str,
    csrf: Csrf,
    code: Text = "",
    row: Annotated[str, Form(max_length=4)] = "",
    round: Annotated[str, Form(max_length=4)] = "",
) -> Response:
    number = int(row) if row.isascii() and row.isdigit() else None
    played = int(round) if round.isascii() and round.isdigit() else None  # a guess sent after its round: 409
    return _act(request, public_id, csrf, rooms.guess, code, number, played)


@pages.post("/rooms/{public_id}/resign", response_class=HTMLResponse)
def room_resign(request: Request, public_id: str, csrf: Csrf) -> Response:
    return _act(request, public_id, csrf, rooms.resign)


@pages.post("/rooms/{public_id}/leave", response_class=HTMLResponse)
def room_leave(request: Request, public_id: str, csrf: Csrf) -> Response:
    return _act(request, public_id, csrf, rooms.leave)


@pages.post("/rooms/{public_id}/kick", response_class=HTMLResponse)
def room_kick(request: Request, public_id: str, csrf: Csrf, whom: Short = "") -> Response:
    return _act(request, public_id, csrf, rooms.kick, whom)


@pages.post("/rooms/{public_id}/close", response_class=HTMLResponse)
def room_close(request: Request, public_id: str, csrf: Csrf) -> Response:
    return _act(request, public_id, csrf, rooms.close)
