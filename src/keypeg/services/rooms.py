"""Rooms for every face: create one, join it by its link (and rejoin after leaving), start it, set a code,
guess, give up a board, leave, kick, close, and what each viewer may see of it.

The rules are the play layer's (:mod:`keypeg.play.rooms`). Each use case loads the room, applies the clock
(:meth:`~keypeg.play.rooms.Room.advance`: a late maker's code set by the computer, late boards ended, the
next round begun), acts, and saves it by compare-and-swap on its version together with every board's game
it changed, in one transaction (:meth:`keypeg.store.rooms.Rooms.save`); a request that lost a race to
another player's is tried again on the room as it is now (a guess sent twice with its ``row`` is then a
:class:`~keypeg.errors.ConflictError`). After a save the room's followers are told (``feed.changed("room",
id)``). When the room ends, its standing goes to the ratings (once: :func:`keypeg.services.ratings.record`
is idempotent per room). Each board is a game of its player's (not rated as a solo game), its secret on
the store's private side.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from keypeg.errors import ConflictError, ForbiddenError, KeypegError, NotFoundError
from keypeg.limits import LIVE_MOVE_DEFAULT
from keypeg.play.codemakers import RandomCodemaker
from keypeg.play.rooms import Room, Round
from keypeg.rules import Rules
from keypeg.services import games, ratings
from keypeg.store import player_name
from keypeg.store.names import GUEST_PREFIX
from keypeg.store.rooms import BoardWrite

if TYPE_CHECKING:
    from collections.abc import Callable

    from keypeg.code import Code
    from keypeg.store import Store

__all__ = [
    "KIND",
    "Announcer",
    "OpenRoom",
    "close",
    "create",
    "guess",
    "invite_token",
    "join",
    "kick",
    "leave",
    "links",
    "load",
    "rejoin",
    "resign",
    "rooms_of",
    "set_code",
    "shared",
    "shown",
    "snapshot",
    "start",
    "store_id",
]

KIND = "room"
"""What the fan-out names rooms by (``feed.changed(KIND, room_id)``)."""
TRIES = 8
"""Times a use case is tried on the room as it is now after losing a race to another request."""
log = logging.getLogger("keypeg.services")


class Announcer(Protocol):
    """What tells a room's followers it changed: :class:`keypeg.services.live_feed.Feed`."""

    def changed(self, kind: str, key: int) -> None: ...


@dataclass
class OpenRoom:
    """A room loaded for a use case: the play layer's room, the store's id and the version it was read at."""

    public_id: str
    id: int
    version: int
    room: Room
    links: dict[str, str]
    """The room's links (its join link shown to its seated players only)."""


_KEYS: weakref.WeakKeyDictionary[Store, bytes] = weakref.WeakKeyDictionary()
"""The server's key of invitations, per store (read once: a server key never changes)."""


def invite_token(store: Store, public_id: str) -> str:
    """The token of the room's join link: only who holds it takes (or takes back) a seat (an HMAC of the
    room's id by the server's key of invitations, as a live match's)."""
    key = _KEYS.get(store)
    if key is None:
        key = _KEYS[store] = store.keys.server_key("invite")
    return hmac.new(key, f"room {public_id}".encode(), hashlib.sha256).hexdigest()[:32]


def links(store: Store, public_id: str) -> dict[str, str]:
    """The room's links: to join (with its token) and to watch."""
    token = invite_token(store, public_id)
    return {"token": token, "join": f"/rooms/{public_id}/join?token={token}", "watch": f"/rooms/{public_id}"}


def _draw(rules: Rules) -> Callable[[], Code | str]:
    """A code drawn from an unpredictable source, for each round the computer sets."""
    return lambda: RandomCodemaker.draw(rules).reveal()


def _read(store: Store, public_id: str) -> OpenRoom:
    try:
        record = store.rooms.get(public_id)
    except NotFoundError:
        raise NotFoundError("no such room") from None  # a store that is down stays an UnavailableError (503)
    try:
        room = _room(record.state, record.secret)
    except (ValueError, KeypegError):
        raise NotFoundError("no such room") from None  # damaged: nothing to show
    return OpenRoom(public_id, record.id, record.version, room, links(store, public_id))


def _room(state: str, secret: str | None) -> Room:
    """A room from its stored state and private side (:class:`ValueError` or :class:`KeypegError` if damaged)."""
    return Room.from_state(json.loads(state), None if secret is None else json.loads(secret))


def _stored(room: Room) -> tuple[str, str | None]:
    """A room's state and private side as stored (JSON)."""
    public, private = room.to_state()
    return json.dumps(public), None if private is None else json.dumps(private)


def store_id(store: Store, public_id: str) -> int:
    """The store's id of the room (what the fan-out names it by); :class:`NotFoundError` when there is none."""
    return _read(store, public_id).id


def load(store: Store, feed: Announcer, public_id: str) -> OpenRoom:
    """The room (:class:`NotFoundError` if there is none) with the clock applied: whoever ran out of time
    is timed out, and the room moved on, before any move or view."""
    return _act(store, feed, public_id, lambda opened, now: None)


def _act(
    store: Store, feed: Announcer, public_id: str, move: Callable[[OpenRoom, datetime], list[tuple[str, int]] | None]
) -> OpenRoom:
    """Load the room, apply the clock, make ``move`` (it returns the seats taken, or ``None`` when it
    changed nothing), move the room on and save it; tried again on the room as it is now when another
    request saved it first."""
    for _ in range(TRIES):
        opened = _read(store, public_id)
        room = opened.room
        marks, host, was_over = _marks(room), room.host, room.is_over
        now = datetime.now(UTC)
        draw = _draw(room.rules)
        moved = room.advance(now, draw)
        try:
            seats = move(opened, now)
        except KeypegError:
            if moved:  # the clock's own changes stand (a late player's move is refused after them)
                with contextlib.suppress(ConflictError):
                    _commit(store, feed, opened, marks, [], host, was_over)
            raise
        if seats is None and not moved:
            return opened
        room.advance(now, draw)
        try:
            _commit(store, feed, opened, marks, seats or [], host, was_over)
        except ConflictError:
            continue
        return opened
    raise ConflictError("the room is busy: try again")


def _commit(
    store: Store,
    feed: Announcer,
    opened: OpenRoom,
    marks: Marks,
    seats: list[tuple[str, int]],
    host: str,
    was_over: bool,
) -> None:
    """Save the room as moved (:class:`ConflictError` if another request saved it first), tell its
    followers, and rate it if it has just ended."""
    _save(store, opened, marks, seats, opened.room.host != host)
    feed.changed(KIND, opened.id)
    if opened.room.is_over and not was_over:
        _rate(store, opened)


@dataclass(frozen=True)
class Marks:
    """The round in play as loaded (its number) and each of its boards' guesses and end: a save compares
    them to write only the boards that moved."""

    first: int
    boards: dict[str, tuple[int, str | None]]


def _marks(room: Room) -> Marks:
    current = room.current
    if current is None:
        return Marks(len(room.played) + 1, {})
    return Marks(current.number, {b.player: (len(b.guesses), b.ended) for b in current.boards.values()})


def _save(store: Store, opened: OpenRoom, marks: Marks, seats: list[tuple[str, int]], new_host: bool) -> None:
    """Write the room and every board that moved (games made for new boards), in one transaction."""
    room = opened.room
    rounds: list[Round] = [r for r in room.played if r.number >= marks.first]
    rounds += [room.current] if room.current is not None else []
    written: list[tuple[Round, str]] = []
    writes: list[BoardWrite] = []
    reveal: list[tuple[int, str]] = []
    for round_ in rounds:
        ended = round_ is not room.current  # its code goes to its boards' games now, not before
        for board in round_.boards.values():
            mark = marks.boards.get(board.player) if round_.number == marks.first else None
            if board.game is not None and mark == (len(board.guesses), board.ended):
                if ended:
                    reveal.append((board.game, str(round_.code)))
                continue
            keep = mark[0] if mark is not None and board.game is not None else 0
            session = room.session(round_, board.player)
            public, _ = session.to_state()
            outcome = session.outcome()
            writes.append(
                BoardWrite(
                    board.player,
                    board.game,
                    room.rules,
                    str(round_.code) if ended else None,
                    json.dumps(public),
                    keep,
                    [(str(g), f) for g, f in session.history[keep:]],
                    outcome.termination.value if outcome is not None else None,
                    round_.maker if round_.maker is not None and round_.maker_ended is None else None,
                )
            )
            written.append((round_, board.player))

    def state(made: list[int | None]) -> tuple[str, str | None]:
        for (round_, player), game_id in zip(written, made, strict=True):
            if game_id is not None:
                round_.boards[player].game = game_id
        return _stored(room)

    try:
        opened.version, _ = store.rooms.save(
            opened.id,
            opened.version,
            state,
            host=room.host if new_host else None,
            seats=seats,
            boards=writes,
            reveal=reveal,
        )
    except ConflictError:
        raise ConflictError("the room was moved on meanwhile: reload it") from None


def _rate(store: Store, opened: OpenRoom) -> None:
    """The room's standing to the ratings (idempotent per room; a failure is logged, the room stands); a
    room that ended with no round counted (closed or left before its start) is not rated."""
    if not any(not r.closed for r in opened.room.played):
        return
    try:
        ratings.record(store, "room", opened.public_id, opened.room.places())
    except KeypegError as error:
        log.warning("the ratings of room %s were not recorded: %s", opened.public_id, error)


def _changing(action: Callable[[OpenRoom, datetime], object]) -> Callable[[OpenRoom, datetime], list[tuple[str, int]]]:
    """A move that takes no seat, from an action on the room."""

    def move(opened: OpenRoom, now: datetime) -> list[tuple[str, int]]:
        action(opened, now)
        return []

    return move


def _nickname(player: str, nickname: str | None) -> str | None:
    """A guest's nickname, checked like a player's name (a registered player is shown by their name)."""
    if not player.startswith(GUEST_PREFIX) or not nickname or not nickname.strip():
        return None
    return player_name(nickname)


def _seated(opened: OpenRoom, player: str | None) -> str:
    if player is None or opened.room.seat(player) is None:
        raise ForbiddenError("only the room's players can do that")
    return player


# -- the use cases -------------------------------------------------------------------------------------


def create(
    store: Store,
    player: str,
    rules: Rules,
    rounds: int = 3,
    maker: str = "computer",
    move_seconds: int = LIVE_MOVE_DEFAULT,
    nickname: str | None = None,
) -> str:
    """A new room of ``player``, its host (a guest may give a ``nickname``), waiting for players; its
    public id."""
    room = Room.new(
        rules,
        player,
        rounds=rounds,
        maker=maker,
        move_seconds=move_seconds,
        nickname=_nickname(player, nickname),
        guest=player.startswith(GUEST_PREFIX),
    )
    public_id = games.new_id()
    state, secret = _stored(room)
    store.rooms.create(player, state, public_id, secret)
    return public_id


def join(store: Store, feed: Announcer, public_id: str, player: str, token: str, nickname: str | None = None) -> None:
    """``player`` takes a seat with the link's ``token`` (:class:`ForbiddenError` for a wrong one) before
    the start, or takes theirs back after leaving; opening the link again once seated changes nothing."""
    _read(store, public_id)  # no such room: 404 before the token is judged
    if not isinstance(token, str) or not hmac.compare_digest(token.encode(), invite_token(store, public_id).encode()):
        raise ForbiddenError("this link is not valid for this room")
    nick = _nickname(player, nickname)

    def move(opened: OpenRoom, now: datetime) -> list[tuple[str, int]] | None:
        room = opened.room
        if not room.join(player, nick, guest=player.startswith(GUEST_PREFIX), now=now):
            return None
        return [(player, [s.player for s in room.seats].index(player))]

    _act(store, feed, public_id, move)


rejoin = join
"""Taking one's seat back after leaving is joining again with the same link."""


def start(store: Store, feed: Announcer, public_id: str, player: str | None) -> None:
    """The host starts the room: the first round begins."""
    _act(store, feed, public_id, _changing(lambda o, now: o.room.start(player, now=now, draw=_draw(o.room.rules))))


def set_code(store: Store, feed: Announcer, public_id: str, player: str | None, code: str) -> None:
    """In turns, the round's codemaker sets its code: the breakers' boards start."""
    _act(store, feed, public_id, _changing(lambda o, now: o.room.set_code(_seated(o, player), code, now=now)))


def guess(
    store: Store, feed: Announcer, public_id: str, player: str | None, code: str, row: int | None = None
) -> dict[str, Any]:
    """``player`` guesses on their board (``row``, when given, must be its next row: a request sent twice is
    a conflict); the room as they may now see it."""

    def move(opened: OpenRoom, now: datetime) -> list[tuple[str, int]]:
        room, breaker = opened.room, _seated(opened, player)
        board = room.current.boards.get(breaker) if room.current is not None else None
        if board is not None:
            games.check_row(len(board.guesses), row)
        room.guess(breaker, code, now=now)
        return []

    return shown(_act(store, feed, public_id, move), player)


def resign(store: Store, feed: Announcer, public_id: str, player: str | None) -> None:
    """``player`` gives up their board of the round in play (not broken)."""
    _act(store, feed, public_id, _changing(lambda o, now: o.room.resign(_seated(o, player), now=now)))


def leave(store: Store, feed: Announcer, public_id: str, player: str | None) -> None:
    """``player`` leaves the room (they may come back with its link)."""
    _act(store, feed, public_id, _changing(lambda o, now: o.room.leave(_seated(o, player), now=now)))


def kick(store: Store, feed: Announcer, public_id: str, player: str | None, whom: str) -> None:
    """The host removes ``whom`` from the room (they may not come back)."""
    _act(store, feed, public_id, _changing(lambda o, now: o.room.kick(player, whom, now=now)))


def close(store: Store, feed: Announcer, public_id: str, player: str | None) -> None:
    """The host closes the room: it is over, its standing as it stands."""
    _act(store, feed, public_id, _changing(lambda o, now: o.room.close(player, now=now)))


# -- what each viewer sees -----------------------------------------------------------------------------


def shared(store: Store, feed: Announcer, public_id: str) -> OpenRoom:
    """The room as loaded for every follower (the fan-out's read): views are made from it by :func:`shown`."""
    return load(store, feed, public_id)


def shown(opened: OpenRoom, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` may see of the room as loaded, with its id, version and links (the join link only
    for a seated player); pure: reads nothing."""
    view = opened.room.view(viewer, datetime.now(UTC))
    view["room"]["id"] = opened.public_id
    view["id"] = opened.public_id
    view["version"] = opened.version
    view["links"] = dict(opened.links) if view["you"] is not None else {"watch": opened.links["watch"]}
    return view


def snapshot(store: Store, feed: Announcer, public_id: str, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` may see of the room now (the clock applied first), with its links (the join link
    only for a seated player)."""
    return shown(load(store, feed, public_id), viewer)


def rooms_of(store: Store, player: str, limit: int = 20) -> list[dict[str, Any]]:
    """``player``'s latest rooms: each one's public id, its players as shown in standing order, their points
    and places, the player's index among them, and whether it is over (a damaged record is left out)."""
    listed = []
    for record in store.rooms.of_player(player, limit=limit):
        public_id = record.public_id
        try:
            room = _room(record.state, record.secret)
        except (ValueError, KeypegError):
            continue
        if room.seat(player) is None:  # left before the start: not theirs any more
            continue
        standing = room.standing()
        order = [s.player for s in standing]
        listed.append(
            {
                "id": public_id,
                "names": [room.shown(p) for p in order],
                "points": [s.points for s in standing],
                "places": [s.place for s in standing],
                "you": order.index(player) if player in order else None,
                "over": room.is_over,
                "status": room.status,
            }
        )
    return listed
