"""Rooms for every face: create one, join it by its link (and rejoin after leaving), start it, set a code,
guess, give up a board, leave, kick, close, and what each viewer may see of it.

The rules are the play layer's (:mod:`keypeg.play.rooms`). Each use case loads the room with its row locked
(its moves take turns: a legal move is never refused because others moved at once), applies the clock
(:meth:`~keypeg.play.rooms.Room.advance`: a late maker's code set by the computer, late boards ended, the
next round begun), acts, and saves it together with every board's game it changed, in one transaction
(:meth:`keypeg.store.rooms.Rooms.within`); the save still compares and swaps the room's version, for any
writer that does not lock. A read that finds nothing late writes nothing. After a save the room's followers
are told (``feed.changed("room", id)``). A room over is rated (once: :func:`keypeg.services.ratings.record`
is idempotent per room) at the save that ends it and, should that fail, at its next read; only if two of
its rated players played (:meth:`~keypeg.play.rooms.Room.rated`), a player the host kicked never rated.
Each board is a game of its player's (not rated as a solo game), its secret on the store's private side.
The join link's token changes at each kick. A move opens no other transaction inside its own (on SQLite
that one would wait on the move's write lock): the invitations' key is read before."""

from __future__ import annotations

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
from keypeg.play.rooms import Room, Round, Seat
from keypeg.rules import Rules
from keypeg.services import games, nicknames, ratings
from keypeg.services.accounts import renamed
from keypeg.services.live_bus import CHANNEL
from keypeg.services.live_feed import Feed
from keypeg.services.nicknames import NICKNAME_LENGTH
from keypeg.store.errors import MovedOnError, UnknownRecordError
from keypeg.store.names import GUEST_PREFIX
from keypeg.store.rooms import BoardWrite, RoomRecord, RoomWrite

if TYPE_CHECKING:
    from collections.abc import Callable

    from keypeg.code import Code
    from keypeg.store import Store

__all__ = [
    "KIND",
    "NICKNAME_LENGTH",
    "Announcer",
    "OpenRoom",
    "adopt",
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


def invite_token(store: Store, public_id: str, link: int | None = None) -> str:
    """The token of the room's join link: only who holds it takes (or takes back) a seat (an HMAC of the
    room's id and its link's number by the server's key of invitations). Each kick renews the link (its
    number, ``link``: read from the room when not given), and the old link is refused from then on."""
    key = _invite_key(store)
    if link is None:
        link = _read(store, public_id).room.link
    text = f"room {public_id}" if link == 0 else f"room {public_id} {link}"
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()[:32]


def _invite_key(store: Store) -> bytes:
    """The server's key of invitations (read once per store, in its own transaction: never inside a move's,
    whose lock on SQLite would keep that read waiting on its own transaction)."""
    key = _KEYS.get(store)
    if key is None:
        key = _KEYS[store] = store.keys.server_key("invite")
    return key


def links(store: Store, public_id: str, link: int | None = None) -> dict[str, str]:
    """The room's links: to join (with its token; ``link``: the link's number, read when not given) and to
    watch."""
    token = invite_token(store, public_id, link)
    return {"token": token, "join": f"/rooms/{public_id}/join?token={token}", "watch": f"/rooms/{public_id}"}


def _draw(rules: Rules) -> Callable[[], Code | str]:
    """A code drawn from an unpredictable source, for each round the computer sets."""
    return lambda: RandomCodemaker.draw(rules).reveal()


def _read(store: Store, public_id: str) -> OpenRoom:
    try:
        record = store.rooms.get(public_id)
    except NotFoundError:
        raise NotFoundError("no such room") from None  # a store that is down stays an UnavailableError (503)
    return _opened(store, record)


def _opened(store: Store, record: RoomRecord) -> OpenRoom:
    """The room of a stored record (:class:`NotFoundError` when damaged: nothing to show)."""
    try:
        room = _room(record.state, record.secret)
    except (ValueError, KeypegError):
        raise NotFoundError("no such room") from None
    return OpenRoom(record.public_id, record.id, record.version, room, links(store, record.public_id, room.link))


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
    is timed out, and the room moved on, before any move or view. A room over and not yet rated (its
    rating failed when it ended) is rated now."""
    opened = _read(store, public_id)
    if opened.room.advance(datetime.now(UTC), _draw(opened.room.rules)):  # the clock moved it: write that
        opened = _act(store, feed, public_id, lambda opened, now: None)
    elif opened.room.is_over:
        _rate(store, opened)
    return opened


@dataclass
class _Done:
    """What a move's transaction did: the room as saved, whether it changed, whether it has just ended,
    and the move's refusal (raised once the clock's own changes are committed)."""

    opened: OpenRoom
    changed: bool = False
    ended: bool = False
    error: KeypegError | None = None


def _act(
    store: Store, feed: Announcer, public_id: str, move: Callable[[OpenRoom, datetime], list[tuple[str, int]] | None]
) -> OpenRoom:
    """Load the room with its row locked (its moves take turns), apply the clock, make ``move`` (it returns
    the seats taken, or ``None`` when it changed nothing), move the room on and save it, in one transaction;
    then tell its followers, and rate it if it is over. Tried again from a fresh read should a writer that
    did not lock the room have moved it on meanwhile (its compare-and-swap)."""

    def work(write: RoomWrite) -> _Done:
        opened = _opened(store, write.record)
        room = opened.room
        marks, host, was_over = _marks(room), room.host, room.is_over
        now = datetime.now(UTC)
        draw = _draw(room.rules)
        moved = room.advance(now, draw)
        done = _Done(opened)
        try:
            seats = move(opened, now)
        except KeypegError as error:
            if not moved:
                raise
            done.error, seats = error, []  # the clock's own changes stand (a late player's move is refused after them)
        if seats is None and not moved:
            return done
        room.advance(now, draw)
        # other processes told by the move's own statement (with the fan-out; else after the commit)
        note = (CHANNEL, feed.note(KIND, opened.id, opened.version + 1)) if isinstance(feed, Feed) else None
        _save(write, opened, marks, seats or [], room.host != host, note)
        opened.links = links(store, public_id, room.link)  # a kick renews the join link
        done.changed, done.ended = True, room.is_over and not was_over
        return done

    _invite_key(store)  # before the move's transaction: nothing inside it opens a transaction of its own
    for _ in range(TRIES):
        try:
            done = store.rooms.within(public_id, work, lock=True)
        except ConflictError as error:
            if isinstance(error, MovedOnError):
                continue
            raise
        except NotFoundError as error:
            if isinstance(error, UnknownRecordError):
                raise NotFoundError("no such room") from None
            raise
        opened = done.opened
        if done.changed and isinstance(feed, Feed):
            feed.woken(KIND, opened.id, opened)  # its note went with the move; followers here get the room as saved
        elif done.changed:
            feed.changed(KIND, opened.id)
        if opened.room.is_over:
            _rate(store, opened)
        if done.error is not None:
            raise done.error
        return opened
    raise ConflictError("the room is busy: try again")


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


def _save(
    write: RoomWrite,
    opened: OpenRoom,
    marks: Marks,
    seats: list[tuple[str, int]],
    new_host: bool,
    note: tuple[str, str] | None = None,
) -> None:
    """Write the room and every board that moved (games made for new boards), in the move's transaction
    (``note``: the NOTIFY sent with it, a channel and a payload)."""
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

    opened.version, _ = write.save(
        opened.version,
        state,
        host=room.host if new_host else None,
        seats=seats,
        boards=writes,
        reveal=reveal,
        notify=note,
    )


_RATED: weakref.WeakKeyDictionary[Store, set[str]] = weakref.WeakKeyDictionary()
"""The rooms over whose ratings this process has seen recorded, per store (not recorded again at each read)."""


def _rate(store: Store, opened: OpenRoom) -> None:
    """The standing of a room that is over to the ratings: once (idempotent per room), called at every read
    of a room over, so one whose rating failed when it ended (logged; the room stands) is rated at its next
    read. A room is rated only with no guest's seat in it and at least two of its rated players playing
    (:meth:`Room.rated`); a kicked player is left out of the places (:meth:`Room.places`), the host's result
    against them a loss, as is a host's against every other player when they close the room before its end."""
    room = opened.room
    done = _RATED.setdefault(store, set())
    if not room.is_over or opened.public_id in done:
        return
    if room.rated() and ratings.big_enough(room.rules):
        try:
            ratings.record(store, "room", opened.public_id, room.places(), losses=room.rating_losses())
        except KeypegError as error:
            log.warning("the ratings of room %s were not recorded: %s", opened.public_id, error)
            return
    done.add(opened.public_id)


def _changing(action: Callable[[OpenRoom, datetime], object]) -> Callable[[OpenRoom, datetime], list[tuple[str, int]]]:
    """A move that takes no seat, from an action on the room."""

    def move(opened: OpenRoom, now: datetime) -> list[tuple[str, int]]:
        action(opened, now)
        return []

    return move


def _free(room: Room | None, player: str, nick: str | None, registered: bool) -> None:
    """:func:`nicknames.free` in ``room``: the names its other seats are shown by are taken."""
    others = [s.nickname or s.player for s in room.seats if s.player != player] if room is not None else []
    nicknames.free(nick, registered=registered, others=others)


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
    nick = nicknames.checked(player, nickname)
    _free(None, player, nick, nicknames.registered(store, nick))
    room = Room.new(
        rules,
        player,
        rounds=rounds,
        maker=maker,
        move_seconds=move_seconds,
        nickname=nick,
        guest=player.startswith(GUEST_PREFIX),
    )
    public_id = games.new_id()
    state, secret = _stored(room)
    store.rooms.create(player, state, public_id, secret)
    return public_id


def join(store: Store, feed: Announcer, public_id: str, player: str, token: str, nickname: str | None = None) -> None:
    """``player`` takes a seat with the link's ``token`` (:class:`ForbiddenError` for a wrong one) before
    the start, or takes theirs back after leaving; opening the link again once seated changes nothing."""
    nick = nicknames.checked(player, nickname)
    taken = nicknames.registered(store, nick)  # read before the move's transaction

    def move(opened: OpenRoom, now: datetime) -> list[tuple[str, int]] | None:
        room = opened.room
        seat = room.seat(player)
        if seat is not None and seat.status == "present":
            return None  # seated already: an old link changes nothing either
        # a seat's holder (left, never kicked) comes back by any of the room's links, old or renewed
        valid = range(room.link + 1) if seat is not None and seat.status == "left" else [room.link]
        if not isinstance(token, str) or not any(
            hmac.compare_digest(token.encode(), invite_token(store, public_id, n).encode()) for n in valid
        ):
            raise ForbiddenError("this link is not valid for this room")
        if seat is None:  # a new seat (the link's holder only learns whose names are taken)
            _free(room, player, nick, taken)
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
    store: Store,
    feed: Announcer,
    public_id: str,
    player: str | None,
    code: str,
    row: int | None = None,
    round: int | None = None,
) -> dict[str, Any]:
    """``player`` guesses on their board (``row``, when given, must be its next row, and ``round``, when
    given, the round in play: a request sent twice, or after its round ended, is a conflict); the room as
    they may now see it."""

    def move(opened: OpenRoom, now: datetime) -> list[tuple[str, int]]:
        room, breaker = opened.room, _seated(opened, player)
        if round is not None and (room.current is None or room.current.number != round):
            if round > len(room.played):  # the round in play is the one after those played
                ended = "the room is over" if room.is_over else f"round {round} has not started"
                raise ConflictError(f"{ended}: your guess was not played")
            raise ConflictError(f"round {round} is over: your guess was not played")
        board = room.current.boards.get(breaker) if room.current is not None else None
        if board is not None:
            games.check_row(len(board.guesses), row)
        room.guess(breaker, code, now=now)
        return []

    return _with_rating(store, _act(store, feed, public_id, move), player)


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
    """The host closes the room: it is over, the round in play counted as it stands (its boards in play
    given up, the host's own losing to every board that could still have beaten it). A room over already is
    a conflict for anyone (409 "the room is over", whoever is host now)."""

    def close_it(opened: OpenRoom, now: datetime) -> None:
        if opened.room.is_over:
            raise ConflictError("the room is over")
        opened.room.close(player, now=now)

    _act(store, feed, public_id, _changing(close_it))


def adopt(store: Store, feed: Announcer, guest: str, player: str) -> int:
    """A guest who has just logged in or registered as ``player`` keeps their seats: in each room not over
    where the guest is seated (not kicked), the seat, its boards and the hosting become ``player``'s, shown
    by their name (still a guest's seat: the room is not rated for it, as its games are not); where
    ``player`` is seated already, the guest's seat is left instead. How many rooms changed. (The boards'
    games move with the guest's other games: :meth:`keypeg.store.games.Games.adopt`.)"""
    changed = 0
    for record in store.rooms.of_player(guest, limit=100):

        def work(write: RoomWrite) -> bool:
            opened = _opened(store, write.record)
            room, seat = opened.room, opened.room.seat(guest)
            if room.is_over or seat is None or seat.status == "kicked" or guest in room.kicked:
                return False
            if room.seat(player) is not None:
                return False  # both seated: the guest's seat is left (a move of its own, below)
            public, private = _stored(room)
            moved = _room(*_stored_as(public, private, guest, player))
            mine = moved.seat(player)
            assert mine is not None
            mine.nickname = None  # shown by their name; still a guest's seat: not rated (played as a guest)
            seats = [(player, [s.player for s in moved.seats].index(player))]
            opened.version, _ = write.save(
                opened.version, _stored(moved), host=player if moved.host == player else None, seats=seats
            )
            return True

        try:
            if store.rooms.within(record.public_id, work, lock=True):
                feed.changed(KIND, record.id)
                changed += 1
            elif (seat := _seat_of(store, record.public_id, guest)) is not None and seat.status == "present":
                leave(store, feed, record.public_id, guest)
                changed += 1
        except KeypegError as error:  # one room's failure never fails the login
            log.warning("room %s: the seat of %s was not moved to %s: %s", record.public_id, guest, player, error)
    return changed


def _seat_of(store: Store, public_id: str, player: str) -> Seat | None:
    """``player``'s seat in the room, if it is not over."""
    opened = _read(store, public_id)
    if opened.room.is_over or opened.room.seat(player) is None:
        return None
    return opened.room.seat(player)


def _stored_as(public: str, private: str | None, old: str, new: str) -> tuple[str, str | None]:
    """A room's stored sides with the player ``old`` renamed ``new`` (seats, host, boards, makers, kicks)."""
    return (
        json.dumps(renamed(json.loads(public), old, new)),
        None if private is None else json.dumps(renamed(json.loads(private), old, new)),
    )


# -- what each viewer sees -----------------------------------------------------------------------------


def shared(store: Store, feed: Announcer, public_id: str) -> OpenRoom:
    """The room as loaded for every follower (the fan-out's read): views are made from it by :func:`shown`."""
    return load(store, feed, public_id)


def shown(opened: OpenRoom, viewer: str | None, *, whole: bool = True) -> dict[str, Any]:
    """What ``viewer`` may see of the room as loaded, with its id, version and links (the join link only
    for a seated player, never one the host removed); pure: reads nothing. Not ``whole`` (the stream's
    events), the ended rounds but the last are summaries: their boards with no rows (``GET`` has them whole)."""
    view = opened.room.view(viewer, datetime.now(UTC), whole=whole)
    view["room"]["id"] = opened.public_id
    view["id"] = opened.public_id
    view["version"] = opened.version
    seat = opened.room.seat(view["you"])
    seated = seat is not None and seat.status != "kicked" and seat.player not in opened.room.kicked
    view["links"] = dict(opened.links) if seated else {"watch": opened.links["watch"]}
    return view


def snapshot(store: Store, feed: Announcer, public_id: str, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` may see of the room now (the clock applied first), with its links (the join link
    only for a seated player)."""
    return _with_rating(store, load(store, feed, public_id), viewer)


def _with_rating(store: Store, opened: OpenRoom, viewer: str | None) -> dict[str, Any]:
    """:func:`shown` with the room's rating line (``None`` while it is in play: the page reads it)."""
    view = shown(opened, viewer)
    view["rating"] = _rating_line(store, opened) if opened.room.is_over else None
    return view


def _rating_line(store: Store, opened: OpenRoom) -> str | None:
    """Whether a room over was rated (one line: why not, or only partly, or how many players' ratings it
    changed); ``None`` while its result is not recorded."""
    room = opened.room
    unrated = None
    if room.guest_seated():
        unrated = "not rated: a guest played in it"
    elif not room.rated():
        unrated = "not rated: fewer than two registered players played"
    return unrated or ratings.note(store, "room", opened.public_id, opened.room.rules)


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
