"""Matches between two people, played live, for every face: create one, join it with the invitation, set a
code, guess, resign, forfeit by running out of time, and what each viewer may see of it.

The rules are the play layer's (:mod:`keypeg.play.live`). Each move is ONE transaction of the store's
(:meth:`~keypeg.store.live.LiveMatches.within`, the match's row locked): the match and its game read,
who may do what checked, the move made, the game's moves and the match's new state written (by
compare-and-swap on its version: a :class:`~keypeg.errors.ConflictError` if another request moved it on
meanwhile; a store that is down is an :class:`~keypeg.errors.UnavailableError`) and other processes told
(NOTIFY, sent as it commits); after the commit the :class:`~keypeg.services.live_bus.LiveBus` wakes this
process's followers. Reads (a view, a stream's shared read) load the match without a lock. A player is
a plain name (the face says whose request it is); ``None`` is someone with no player yet, who may watch.
The clock is read here (the play layer takes the time of each move), and checked at every load of the
match: whoever must act and has run out of time forfeits the game then, before any move or view. A read
that must write so (a time-out, a game's end counted, a clock caught up) writes as a move does, in one
transaction with the match's row locked: every writer of a match's game takes turns (review F6), and the
game's own write is a compare-and-swap on its version besides.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

from keypeg.errors import ConflictError, ForbiddenError, KeypegError, NotFoundError, RefusedError
from keypeg.limits import LIVE_MOVE_DEFAULT
from keypeg.play.live import LiveMatch, Standing, standing
from keypeg.play.sessions import BreakSession
from keypeg.rules import Rules
from keypeg.services import games, nicknames, ratings
from keypeg.services.accounts import renamed
from keypeg.services.live_bus import CHANNEL
from keypeg.services.recording import GameKeeper, continue_game

if TYPE_CHECKING:
    from keypeg.services.live_bus import LiveBus
    from keypeg.store import GameRecord, SavedGame, Store
    from keypeg.store.live import LiveWrite

T = TypeVar("T")
MOVE_TRIES = 3
"""Times a move's transaction is run when its compare-and-swap finds the match moved on meanwhile (it is
run again on what is stored then)."""
log = logging.getLogger("keypeg.services")

__all__ = [
    "OpenLive",
    "adopt",
    "create",
    "guess",
    "invite_token",
    "join",
    "load",
    "matches_of",
    "resign",
    "save",
    "set_code",
    "shared",
    "shown",
    "snapshot",
    "standing_of",
    "store_id",
    "view",
]


@dataclass
class OpenLive:
    """A live match loaded for a use case: the play layer's match, its game being played, and the store's
    id and version it was read at."""

    public_id: str
    id: int
    version: int
    live: LiveMatch
    game: BreakSession | None
    keeper: GameKeeper | None
    last: dict[str, Any] | bool | None = False
    """The game that ended last as shown (:func:`view`'s ``last``), once read (``False`` until then)."""
    write: LiveWrite | None = None
    """The transaction the match was read in, when a move's (its writes go there)."""
    changed: bool = False
    """Whether the match was written (its followers are woken once the transaction commits)."""


class _MovedOn(ConflictError):
    """A move's compare-and-swap found the match moved on (its transaction is run again)."""


class _GamesInMove:
    """What a :class:`GameKeeper` writes through within a move's transaction (``store.games`` there)."""

    def __init__(self, write: LiveWrite) -> None:
        self._write = write

    def saved(self, game_id: int) -> SavedGame:
        return self._write.game(game_id)

    def update(self, game_id: int, **changes: Any) -> int:
        return self._write.update_game(game_id, **changes)


class _InMove:
    """A stand-in for the store within a move's transaction: its games are read and written there."""

    def __init__(self, write: LiveWrite) -> None:
        self.games = _GamesInMove(write)


def invite_token(store: Store, public_id: str) -> str:
    """The invitation's token of a match: only who holds it takes the second seat (derived from a key of
    the store's, so nothing about it is kept)."""
    return hmac.new(store.keys.server_key("invite"), public_id.encode(), hashlib.sha256).hexdigest()[:32]


def store_id(store: Store, public_id: str) -> int:
    """The store's id of the match (what the bus names it by); :class:`NotFoundError` when there is none."""
    try:
        return store.live.get(public_id).id
    except NotFoundError:
        raise NotFoundError("no such match") from None


def load(store: Store, bus: LiveBus, public_id: str) -> OpenLive:
    """The match (:class:`NotFoundError` if there is none), its current game loaded; a game that ended
    without being counted (a write cut short) is counted now, a guess written without the match's own
    write and a match kept before clocks have the clock started, and whoever must act and has run out of
    time forfeits the game."""
    try:
        record = store.live.get(public_id)
    except NotFoundError:
        raise NotFoundError("no such match") from None
    opened = _opened(store, public_id, record.id, record.version, record.state, None)
    if _to_check(opened, datetime.now(UTC)):  # a write: made as a move is, the match's row locked (review F6)
        return _move(store, bus, public_id, lambda checked: checked)
    _rate_if_over(store, opened)  # a match whose rating failed when it ended is rated at its next read
    return opened


def _to_check(opened: OpenLive, now: datetime) -> bool:
    """Whether :func:`_checked` would write the match loaded (read only): a game ended but not counted, a
    clock to catch up, or a player out of time."""
    live, game = opened.live, opened.game
    if live.turn() is None or live.match is None:
        return False
    if game is not None and game.is_over:
        return True
    guesses = len(game.history) if game is not None and live.match.current_id is not None else 0
    return live.turn_began is None or guesses != live.guesses_timed or live.late(now) is not None


def _opened(store: Store, public_id: str, match_id: int, version: int, state: str, write: LiveWrite | None) -> OpenLive:
    """The match of this stored state, its current game read (within ``write``, when given)."""
    try:
        live = LiveMatch.from_state(json.loads(state))
    except (ValueError, KeypegError):
        raise NotFoundError("no such match") from None  # a match of the computer's, or damaged
    game, keeper = None, None
    if live.match is not None and live.match.current_id is not None:
        current = live.match.current_id
        if write is None:
            session, keeper = continue_game(store, current, match_id=match_id, over_ok=True)
        else:
            within = cast("Store", _InMove(write))
            session, keeper = continue_game(within, current, match_id=match_id, over_ok=True, saved=write.game(current))
        assert isinstance(session, BreakSession)
        game = session
    return OpenLive(public_id, match_id, version, live, game, keeper, write=write)


def _checked(store: Store, bus: LiveBus, opened: OpenLive) -> None:
    """A game that ended without being counted is counted, the clock caught up, and whoever must act and
    has run out of time forfeits the game (each written)."""
    live, game, now = opened.live, opened.game, datetime.now(UTC)
    if game is not None and game.is_over and live.turn() is not None:
        live.count_ended(game, now)
        save(store, bus, opened)
    elif live.catch_up(game, now):
        save(store, bus, opened)
    late = live.late(now)
    if late is not None:
        _time_out(store, bus, opened, late, now)


def _move(store: Store, bus: LiveBus, public_id: str, act: Callable[[OpenLive], T]) -> T:
    """``act`` on the match, loaded and checked, in one transaction (the match's row locked) that writes
    what it changed; its followers woken once it commits. Run again from a fresh read when its
    compare-and-swap finds the match moved on (a writer that did not lock it)."""
    made: list[OpenLive] = []

    def work(write: LiveWrite) -> T:
        record = write.record
        opened = _opened(store, public_id, record.id, record.version, record.state, write)
        made[:] = [opened]
        _checked(store, bus, opened)
        return act(opened)

    for attempt in range(MOVE_TRIES):
        made.clear()
        try:
            result = store.live.within(public_id, work, lock=True)
        except _MovedOn:
            if attempt + 1 < MOVE_TRIES:
                continue
            raise ConflictError("the match was moved on meanwhile: reload it") from None
        except NotFoundError as error:
            if made:
                raise
            raise NotFoundError("no such match") from error
        opened = made[0]
        opened.write, opened.keeper = None, None  # the transaction is over
        if opened.changed:  # followers here get the match as moved (with the game ended last) without a read
            bus.wake(opened.id, version=opened.version, value=opened if opened.last is not False else None)
            _rate_if_over(store, opened)
        return result
    raise AssertionError("unreachable")  # pragma: no cover


def _time_out(store: Store, bus: LiveBus, opened: OpenLive, player: str, now: datetime) -> None:
    """``player`` ran out of time: they forfeit the game, whose end is written with the match's."""
    opened.live.time_out(player, opened.game, now)
    if opened.game is not None and opened.keeper is not None:
        _record(opened)
    save(store, bus, opened)


def save(store: Store, bus: LiveBus, opened: OpenLive, *, opponent: str | None = None) -> None:
    """Write the match's new state (:class:`ConflictError` if another request moved it on) and wake its
    followers; ``opponent`` takes the second seat."""
    state = json.dumps(opened.live.to_state())
    write = opened.write
    if write is not None:  # a move's transaction: other processes told as it commits, this one's after
        note = None if opened.changed else (CHANNEL, bus.note(opened.id, version=opened.version + 1))  # once
        try:
            opened.version = write.save(state, opponent=opponent, notify=note)
        except ConflictError:
            raise _MovedOn("the match was moved on meanwhile: reload it") from None
        opened.changed = True
        return
    try:
        opened.version = store.live.save(opened.id, state, opened.version, opponent=opponent)
    except ConflictError:
        raise ConflictError("the match was moved on meanwhile: reload it") from None
    bus.changed(opened.id)
    _rate_if_over(store, opened)


def _rate_if_over(store: Store, opened: OpenLive) -> None:
    """Rate a match between people once its end is committed (rating it again changes nothing, so each
    request that sees it over may call this). A failure leaves the match as it stands, to be rated at its
    next read. A seat a guest played (one who logged in since too: :func:`adopt`) is never rated."""
    if not opened.live.is_over or any(p in opened.live.nicknames for p in opened.live.seats):
        return
    try:
        ratings.record_live(store, opened.public_id, opened.live)
    except KeypegError as error:
        log.warning("the ratings of match %s were not recorded: %s", opened.public_id, error)


def _record(opened: OpenLive) -> None:
    """Write the moves of the match's game (:class:`ConflictError` if it was played on meanwhile)."""
    assert opened.keeper is not None and opened.game is not None
    try:
        opened.keeper.sync(opened.game)
    except ConflictError:
        if opened.write is not None:  # within a move: run it again on what is stored now
            raise _MovedOn("the game was played on meanwhile: reload it") from None
        raise ConflictError("the game was played on meanwhile: reload it") from None


def _seated(opened: OpenLive, player: str | None) -> str:
    """``player``, if they sit in the match (:class:`ForbiddenError` for anyone else)."""
    if player is None or opened.live.seat_of(player) is None:
        raise ForbiddenError("only the match's two players can do that")
    return player


# -- the moves ---------------------------------------------------------------------------------------


def create(
    store: Store,
    player: str,
    rules: Rules,
    games_count: int,
    nickname: str | None = None,
    move_seconds: int = LIVE_MOVE_DEFAULT,
) -> str:
    """A new match of ``player`` (a guest may give a ``nickname`` to be shown by), of ``move_seconds`` a
    move (refused outside :data:`~keypeg.limits.LIVE_MOVE_SECONDS`), waiting for a second player; its
    public id."""
    games.check_match_games(games_count)
    nick = nicknames.checked(player, nickname)
    nicknames.free(nick, registered=nicknames.registered(store, nick))
    live = LiveMatch.new(rules, games_count, player, nick, move_seconds)
    public_id = games.new_id()
    store.live.start(player, json.dumps(live.to_state()), public_id)
    return public_id


def join(
    store: Store, bus: LiveBus, public_id: str, player: str, token: str, nickname: str | None = None
) -> dict[str, Any]:
    """``player`` takes the second seat with the invitation's ``token`` (:class:`ForbiddenError` for a wrong
    one); opening the invitation again once seated changes nothing. The match as ``player`` may now see it."""
    valid = hmac.compare_digest(token.encode(), invite_token(store, public_id).encode())
    nick = nicknames.checked(player, nickname)
    taken = nicknames.registered(store, nick)  # read before the move's transaction

    def act(opened: OpenLive) -> OpenLive:
        if not valid:
            raise ForbiddenError("this invitation is not valid for this match")
        live = opened.live
        if live.seat_of(player) is None:
            nicknames.free(nick, registered=taken, others=[live.nicknames.get(p) or p for p in live.seats])
            live.join(player, nick, now=datetime.now(UTC))
            save(store, bus, opened, opponent=player)
        return _with_last(opened)

    return shown(_move(store, bus, public_id, act), player)


def set_code(store: Store, bus: LiveBus, public_id: str, player: str | None, code: str) -> dict[str, Any]:
    """As codemaker, ``player`` sets the code of the next game, which starts: its record and the match's
    new state are written in one transaction (a request that lost a race to it leaves no game behind).
    The match as ``player`` may now see it."""

    def act(opened: OpenLive) -> OpenLive:
        assert opened.write is not None
        maker = _seated(opened, player)
        live = opened.live
        game = live.set_secret(maker, code)
        roles = live.roles()
        assert roles is not None
        state, secret = game.to_state()
        game_id = opened.write.start_game(
            roles[1],
            game.rules,
            role=game.role,
            secret=str(secret),
            state=json.dumps(state),
            maker=maker,
            rated=game.rated,
        )
        live.started(game_id, now=datetime.now(UTC))
        save(store, bus, opened)
        opened.game = game
        return _with_last(opened)

    return shown(_move(store, bus, public_id, act), player)


def guess(
    store: Store, bus: LiveBus, public_id: str, player: str | None, code: str, row: int | None = None
) -> dict[str, Any]:
    """As codebreaker, ``player`` guesses (``row``, when given, must be the next row: a request sent twice
    is a conflict): the guess, the game's end and the match's new state written in one transaction. The
    match as ``player`` may now see it."""

    def act(opened: OpenLive) -> OpenLive:
        breaker = _seated(opened, player)
        if opened.game is None:
            raise ConflictError("the code of this game is not set yet")
        games.check_row(len(opened.game.history), row)
        opened.live.guess(breaker, opened.game, code, now=datetime.now(UTC))
        _record(opened)
        save(store, bus, opened)
        return _with_last(opened)

    return shown(_move(store, bus, public_id, act), player)


def resign(store: Store, bus: LiveBus, public_id: str, player: str | None, game: int | None = None) -> dict[str, Any]:
    """``player`` gives up the game being played (one transaction); the match as they may now see it.
    ``game``, when given, is the number of the game meant (1 for the first): a request for another game (a
    resignation sent twice) is a conflict, never the next game given away. A codemaker gives away a game
    whose code is not set only by naming it, so a codebreaker's resignation sent twice without ``game``
    never gives away the game they make next."""

    def act(opened: OpenLive) -> OpenLive:
        seated, match = _seated(opened, player), opened.live.match
        if match is not None and not match.is_over:
            current = len(match.match.played) + 1
            if game is not None and game < current:
                raise ConflictError(f"game {game} is over already: nothing was given up")
            if game is not None and game > current:
                raise ConflictError(f"game {game} has not started: nothing was given up")
            if game is None and match.current_id is None:
                raise RefusedError(f"to give away game {current} before setting its code, name it (game {current})")
        opened.live.resign(seated, opened.game, datetime.now(UTC))
        if opened.game is not None and opened.game.is_over:
            _record(opened)
        save(store, bus, opened)
        return _with_last(opened)

    return shown(_move(store, bus, public_id, act), player)


def _with_last(opened: OpenLive) -> OpenLive:
    """The match with the game that ended last read, in the move's transaction."""
    write = opened.write
    assert write is not None
    opened.last = _last_game(lambda game_id: write.game(game_id).record, opened)
    return opened


# -- what each viewer sees -----------------------------------------------------------------------------


def shared(store: Store, bus: LiveBus, public_id: str) -> OpenLive:
    """The match loaded for every viewer at once (what a stream's followers share, one read a change):
    :func:`shown` makes each viewer's view of it without reading the store again."""

    def work(write: LiveWrite) -> OpenLive:  # the match, its game and the game ended last: one transaction
        record = write.record
        read = _opened(store, public_id, record.id, record.version, record.state, write)
        read.last = _last_game(lambda game_id: write.game(game_id).record, read)
        return read

    try:
        opened = store.live.within(public_id, work)
    except NotFoundError:
        raise NotFoundError("no such match") from None
    opened.write, opened.keeper = None, None  # the transaction is over (a view writes nothing)
    if _to_check(opened, datetime.now(UTC)):  # a write: made as a move is (see load)
        opened = _move(store, bus, public_id, lambda checked: checked)
        opened.last = _last_game(store.games.record, opened)
    else:
        _rate_if_over(store, opened)
    return opened


def shown(opened: OpenLive, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` may see of a match loaded by :func:`shared` (read only: the match is shared)."""
    assert opened.last is not False, "the last game is read with the match"
    seen = opened.live.view(viewer, opened.game, datetime.now(UTC))
    seen.update(id=opened.public_id, version=opened.version, last=opened.last)
    return seen


def snapshot(store: Store, bus: LiveBus, public_id: str, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` may see of the match now, with its version (a player out of time forfeits first)."""
    return view(store, load(store, bus, public_id), viewer)


def view(store: Store, opened: OpenLive, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` may see of the match as loaded (and moved), with its version: a player sees the code
    they set; nobody else sees a code before its game ends."""
    if opened.last is False:
        opened.last = _last_game(store.games.record, opened)
    seen = shown(opened, viewer)
    if opened.live.is_over:  # why it was not rated, if it was not (one line)
        seen["rating"] = ratings.note(store, "match", opened.public_id, opened.live.rules)
    return seen


def _last_game(record_of: Callable[[int], GameRecord], opened: OpenLive) -> dict[str, Any] | None:
    """The game that ended last, shown until the next game's code is set: with its code and guesses (it
    is over), or with no code (``None``) when it was given away before its code was set."""
    live = opened.live
    if live.match is None or live.match.current_id is not None or not live.match.match.played:
        return None
    played = live.match.match.played[-1]
    shown: dict[str, Any] = {
        "number": len(live.match.match.played),
        "codemaker": played.codemaker,
        "codebreaker": played.codebreaker,
        "code": None,
        "broken": played.broken,
        "history": [],
    }
    if live.last_id is None:
        return shown
    record = record_of(live.last_id)
    if record.outcome is None:
        return None
    moves = [{"guess": m.guess, "black": m.feedback.black, "white": m.feedback.white} for m in record.moves]
    return shown | {"code": record.secret, "history": moves}


def adopt(store: Store, bus: LiveBus, guest: str, player: str) -> int:
    """A guest who has just logged in or registered as ``player`` keeps their seat in each match not over
    (but one against ``player``): the seat and its games become ``player``'s, still shown as the guest's
    (``Kim (guest)``: what was played as a guest is not rated), and the match is listed among
    ``player``'s. How many matches changed. (The games'
    rows move with the guest's other games: :meth:`keypeg.store.games.Games.adopt`.)"""
    changed = 0
    for public_id, _ in store.live.of_player(guest, limit=100):

        def act(opened: OpenLive) -> bool:
            live = opened.live
            if live.is_over or guest not in live.seats or player in live.seats:
                return False
            moved = LiveMatch.from_state(renamed(live.to_state(), guest, player))
            moved.nicknames.setdefault(player, live.nicknames.get(guest) or player)  # a guest's seat still
            opened.live = moved
            assert opened.write is not None  # within the move's transaction
            opened.write.move_seat(guest, player)
            save(store, bus, opened)
            return True

        try:
            changed += _move(store, bus, public_id, act)
        except KeypegError as error:  # one match's failure never fails the login
            log.warning("match %s: the seat of %s was not moved to %s: %s", public_id, guest, player, error)
    return changed


# -- a player's matches --------------------------------------------------------------------------------


def _matches(store: Store, player: str, limit: int) -> list[tuple[str, LiveMatch]]:
    """The public ids and matches ``player`` sits in, newest first (a damaged record is left out)."""
    found = []
    for public_id, state in store.live.of_player(player, limit=limit):
        try:
            found.append((public_id, LiveMatch.from_state(json.loads(state))))
        except (ValueError, KeypegError):
            continue
    return found


def matches_of(store: Store, player: str, limit: int = 20) -> list[dict[str, Any]]:
    """``player``'s latest matches against people: each one's public id, the seats' names as shown, their
    points and whether it is over."""
    listed = []
    for public_id, live in _matches(store, player, limit):
        points = live.points()
        names = [live.shown(p) for p in live.seats]
        listed.append(
            {"id": public_id, "names": names, "points": [points[p] for p in live.seats], "over": live.is_over}
        )
    return listed


def standing_of(store: Store, player: str) -> Standing:
    """``player``'s record in their finished matches against people (the latest 1,000)."""
    return standing(player, [live for _, live in _matches(store, player, 1000)])
