"""A room: 2 to 8 people playing rounds, every breaker on the same code at the same time, each on their own
board. Plain objects with no input, output or storage: every move takes the time it is made at (``now``),
and a new code is drawn by the ``draw`` the caller passes (the services draw from an unpredictable source).

The creator is the host and takes the first seat; others join with the room's link until the host starts
(2 or more seated). Codes are set by the computer, or (``maker="turns"``) by each player in turn, in seat
order, who sits that round out as codemaker: then ``rounds`` counts the codes each player makes. Every
other present player breaks the round's code; the round ends when every board is over, and the next one
starts at once. Each breaker has ``move_seconds`` per move (from the round's start or their previous
guess); a codemaker in turns has as long to set the code, else the computer sets one and they score
nothing that round. :meth:`Room.advance` applies the clock and moves the room on; the services call it at
every load and after every move.

Points: a breaker scores one for each other breaker of the round it beats (fewer guesses, a board not
broken counting ``rows + 1``; or the same guesses in fewer seconds, two boards not broken tying); a
codemaker in turns scores as in a match: one per guess of each board broken, ``rows + 1`` for each board not
broken (a board cut short by the host's close: its guesses plus one). A player absent (left or removed) when a
round's code is set gets a board given up at once (:data:`ABSENT`): no points, ``rows + 1`` guesses; as that
round's codemaker, the computer sets the code. A player absent from a round (left or removed) scores no points
in it, not even off the host's closed board. The standing:
points, then fewer guesses in all, then seat order; a host who closes the room before its last round ends
forfeits, placed last.

>>> from datetime import UTC, datetime, timedelta
>>> from keypeg.rules import Rules
>>> at = datetime(2026, 1, 1, tzinfo=UTC)
>>> room = Room.new(Rules(2, 3), "ann", rounds=1, move_seconds=60)
>>> room.join("bob", now=at)
True
>>> room.start("ann", now=at, draw=lambda: "AB")
>>> [str(room.guess("bob", c, now=at + timedelta(seconds=s))) for c, s in (("BA", 3), ("AB", 5))]
['0,2', '2,0']
>>> room.resign("ann", now=at + timedelta(seconds=9))
>>> room.advance(at + timedelta(seconds=9), draw=lambda: "AB")  # the round ended: the room is over
True
>>> room.is_over, [(s.player, s.points, s.guesses) for s in room.standing()]
(True, [('bob', 1, 2), ('ann', 0, 13)])
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from keypeg.code import Code, Feedback
from keypeg.errors import ConflictError, ForbiddenError, GameOverError, IllegalMoveError, KeypegError, RefusedError
from keypeg.feedback import score
from keypeg.limits import LIVE_MOVE_DEFAULT, ROOM_GUESSES_LIMIT
from keypeg.play.codemakers import FixedCodemaker
from keypeg.play.live import check_move_seconds, per_move
from keypeg.play.sessions import BreakSession
from keypeg.rules import Rules

__all__ = [
    "ABSENT",
    "AWAY",
    "MAX_ROUNDS",
    "MAX_SEATS",
    "ROOM_VERSION",
    "Board",
    "CodeSetError",
    "Room",
    "Round",
    "Seat",
    "Standing",
    "check_rounds",
]

ROOM_VERSION = 1
MAX_SEATS = 8
MAX_ROUNDS = 20
ABSENT = "absent"
"""How the board of a player absent when a round's code is set ends (left or removed: given up at once)."""
AWAY = (ABSENT, "left", "kicked")
"""How the boards of a player absent from a round end: they score no points in it."""
MakerKind = Literal["computer", "turns"]
Draw = Callable[[], "Code | str"]


def check_rounds(rounds: int) -> int:
    """``rounds`` as a room's number of rounds (:class:`RefusedError` outside 1 to :data:`MAX_ROUNDS`)."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise RefusedError(f"a room plays from 1 to {MAX_ROUNDS} rounds, not {rounds!r}")
    return rounds


class CodeSetError(ConflictError):
    """A code sent for a round whose code is set: the same request sent twice, or too late (409)."""


def _tenths(start: datetime, end: datetime) -> int:
    """Whole tenths of a second from ``start`` to ``end`` (never below 0)."""
    return max(0, int((end - start).total_seconds() * 10))


@dataclass
class Seat:
    """A seat: its player, a guest's nickname, and whether they are ``present``, have ``left`` or were
    ``kicked``."""

    player: str
    nickname: str | None = None
    guest: bool = False
    status: str = "present"


@dataclass
class Board:
    """A breaker's board of a round: their guesses (kept with their key pegs), the store's id of its game,
    when their clock started, how it ended and when (tenths of a second from the round's start)."""

    player: str
    clock: datetime
    guesses: list[tuple[str, int, int]] = field(default_factory=list)
    game: int | None = None
    ended: str | None = None
    """``None`` while played; ``broken``, ``out of rows``, ``resigned``, ``timed out``, ``left``,
    ``kicked``, ``closed`` or ``absent``."""
    tenths: int | None = None

    @property
    def broken(self) -> bool:
        return self.ended == "broken"

    def counted(self, rules: Rules) -> int:
        """The guesses the board counts for: those made when broken, ``rows + 1`` when not."""
        return len(self.guesses) if self.broken else rules.rows + 1

    def beats(self, other: Board, rules: Rules) -> bool:
        """Whether this board beats ``other``: fewer guesses, or the same in fewer seconds (both broken)."""
        mine, theirs = self.counted(rules), other.counted(rules)
        if mine != theirs:
            return mine < theirs
        return self.broken and other.broken and (self.tenths or 0) < (other.tenths or 0)


@dataclass
class Round:
    """A round: its number, its codemaker (``None``: the computer), its code once set, when it began (the
    breakers' clocks: the code set) and when the maker's clock began, the boards, and how the maker did."""

    number: int
    maker: str | None
    began: datetime
    code: str | None = None
    boards: dict[str, Board] = field(default_factory=dict)
    maker_ended: str | None = None
    """``timed out`` or ``left`` when the computer set the code instead of the maker (no maker points)."""
    closed: bool = False
    """Ended by the host closing the room: counted as it stood (the boards in play given up)."""
    closer: str | None = None
    """The host who closed the room, if they had a board in the round: unless broken, theirs loses to every
    other board; broken, to each board still in play at the close that could yet have beaten it (fewer
    guesses). Closing never gains the host a point."""

    @property
    def over(self) -> bool:
        return self.code is not None and all(b.ended is not None for b in self.boards.values())

    def players(self) -> set[str]:
        """Who played the round: each breaker who guessed or gave up their own board, and the maker (in
        turns) if they set the code."""
        played = {b.player for b in self.boards.values() if b.guesses or b.ended == "resigned"}
        if self.maker is not None and self.code is not None and not self.maker_ended:
            played.add(self.maker)
        return played

    def played(self) -> bool:
        """Whether someone played the round: a breaker guessed or gave up, or the maker set the code."""
        return bool(self.players())

    def _beats(self, board: Board, other: Board, rules: Rules) -> bool:
        if self.closer is not None and self.closer in (board.player, other.player):  # the host who closed
            host, them = (board, other) if board.player == self.closer else (other, board)
            if them.ended == "closed":  # cut short: the host wins only if it could no longer beat the host's
                wins = host.broken and len(them.guesses) + 1 >= len(host.guesses)
            else:
                wins = host.broken and host.beats(them, rules)
            return wins if board is host else not wins
        return board.beats(other, rules)

    def points(self, rules: Rules, removed: Collection[str] = ()) -> dict[str, int]:
        """Each player's points of the round (the maker's too, in turns); a closed round's as it stood
        (``removed``: the players the host removed from the room)."""
        boards = list(self.boards.values())
        points = {  # a player absent from the round (left or removed) scores nothing in it
            b.player: 0 if b.ended in AWAY else sum(self._beats(b, o, rules) for o in boards if o is not b)
            for b in boards
        }
        if self.maker is not None:
            made = 0 if self.maker_ended else sum(_held(b, rules, removed) for b in boards)
            points[self.maker] = points.get(self.maker, 0) + made
        return points


def _held(board: Board, rules: Rules, removed: Collection[str]) -> int:
    """A codemaker's points for a breaker's board, as in a match: one per guess of a board broken, ``rows + 1``
    for one given up, timed out, out of rows or absent (the code held through every row: a player who left
    is one who gave up, so leaving never changes anyone's points); a board cut short by the host's close
    counts as it stood (its guesses plus one). The boards of a player the host removed (``removed``), from
    the kick on, give nothing: a host as maker never gains from removing a breaker."""
    if board.ended == "kicked" or (board.ended == ABSENT and board.player in removed):
        return 0
    if board.broken:
        return len(board.guesses)
    return len(board.guesses) + 1 if board.ended == "closed" else rules.rows + 1


@dataclass(frozen=True)
class Standing:
    """A player's line of the standing: their place (equal points and guesses share one), points and
    guesses in all."""

    place: int
    player: str
    points: int
    guesses: int


@dataclass
class Room:
    """A room's rules, seats, rounds and clock (see the module's documentation)."""

    rules: Rules
    host: str
    rounds: int
    maker: MakerKind = "computer"
    move_seconds: int = LIVE_MOVE_DEFAULT
    seats: list[Seat] = field(default_factory=list)
    kicked: list[str] = field(default_factory=list)
    status: str = "waiting"
    """``waiting`` (seats open), ``playing`` or ``over``."""
    total: int | None = None
    """The number of rounds, fixed at the start (in turns, ``rounds`` times the players)."""
    current: Round | None = None
    played: list[Round] = field(default_factory=list)
    closed: bool = False
    notes: list[str] = field(default_factory=list)
    link: int = 0
    """The number of the room's join link: each kick renews it (the services sign it; an old one is refused)."""
    kick_losses: list[tuple[str, str]] = field(default_factory=list)
    """``(host, kicked)`` for each player kicked after the start: the host's rated result against them is a loss,
    whatever the standing (:meth:`rating_losses`)."""

    @classmethod
    def new(
        cls,
        rules: Rules,
        host: str,
        *,
        rounds: int = 3,
        maker: str = "computer",
        move_seconds: int = LIVE_MOVE_DEFAULT,
        nickname: str | None = None,
        guest: bool = False,
    ) -> Room:
        """A room waiting for players, ``host`` in its first seat (a guest may give a ``nickname``)."""
        if maker not in ("computer", "turns"):
            raise RefusedError(f"the codes are set by the computer or in turns, not {maker!r}")
        room = cls(rules, host, check_rounds(rounds), maker, check_move_seconds(move_seconds))  # type: ignore[arg-type]
        most = room.most_guesses()
        if most > ROOM_GUESSES_LIMIT:
            raise RefusedError(
                f"a room this large could hold {most:,} guesses (at most {ROOM_GUESSES_LIMIT:,}): fewer rounds or rows"
            )
        room.seats.append(Seat(host, nickname or None, guest))
        return room

    def most_guesses(self) -> int:
        """The most guesses the room could come to hold: every seat taken, every board played to its last
        row (in turns, each of the players makes :attr:`rounds` codes, the others breaking them)."""
        boards = MAX_SEATS * self.rounds * ((MAX_SEATS - 1) if self.maker == "turns" else 1)
        return boards * self.rules.rows

    # -- seats ------------------------------------------------------------------------------------------

    def seat(self, player: str | None) -> Seat | None:
        """``player``'s seat, if they have one."""
        return next((s for s in self.seats if s.player == player), None)

    def present(self) -> list[str]:
        """The present seated players, in seat order."""
        return [s.player for s in self.seats if s.status == "present"]

    def shown(self, player: str | None) -> str:
        """How a player is shown: their name, or a guest's nickname marked as a guest's."""
        seat = self.seat(player)
        if seat is None or player is None:
            return player or ""
        return f"{seat.nickname} (guest)" if seat.nickname else player

    @property
    def is_over(self) -> bool:
        return self.status == "over"

    def planned(self) -> int:
        """The number of rounds: fixed at the start, else as it would be if started now."""
        if self.total is not None:
            return self.total
        return self.rounds * (len(self.seats) if self.maker == "turns" else 1)

    def join(self, player: str, nickname: str | None = None, *, guest: bool = False, now: datetime) -> bool:
        """``player`` takes a seat (before the start), or comes back to theirs after leaving (rejoining
        mid-round, they play from the next round); whether anything changed (a seated player: nothing)."""
        if player in self.kicked:
            raise ForbiddenError("the host removed you from this room")
        seat = self.seat(player)
        if seat is not None:
            if seat.status == "present":
                return False
            if self.is_over:
                raise GameOverError("the room is over")
            seat.status = "present"
            self.notes.append(f"{self.shown(player)} is back")
            return True
        if self.status != "waiting":
            raise RefusedError("the room has started: seats are taken only before the start")
        if len(self.seats) >= MAX_SEATS:
            raise RefusedError(f"the room is full ({MAX_SEATS} seats)")
        self.seats.append(Seat(player, nickname or None, guest))
        self.notes.append(f"{self.shown(player)} sat down")
        return True

    def start(self, player: str | None, *, now: datetime, draw: Draw) -> None:
        """The host starts the room (2 or more seated): the first round begins at ``now``."""
        self._host_only(player, "start the room")
        if self.status != "waiting":
            raise RefusedError("the room has started already" if self.status == "playing" else "the room is over")
        if len(self.present()) < 2:
            raise RefusedError("a room starts with 2 or more players seated")
        self.total = self.planned()
        self.status = "playing"
        self.advance(now, draw)

    def leave(self, player: str | None, *, now: datetime) -> None:
        """``player`` leaves: before the start, their seat is freed; after it, they keep their place in
        the standing, their board of the round counts as not broken, and they sit out until they rejoin."""
        self._gone(player, "left", now)

    def kick(self, host: str | None, whom: str, *, now: datetime) -> None:
        """The host removes ``whom``, whatever their seat's status (as leaving, and they may not come back):
        the room's join link is renewed (:attr:`link`), so the old one lets nobody in any more."""
        self._host_only(host, "remove a player")
        if whom == self.host:
            raise RefusedError("the host cannot remove themself: leave instead")
        seat = self.seat(whom)
        if seat is None:
            raise RefusedError("that player has no seat in this room")
        if seat.status == "kicked" or whom in self.kicked:
            raise RefusedError("that player was removed already")
        if self.status == "playing":  # kicking after the start is never free: a loss to them, whatever the standing
            self.kick_losses.append((self.host, whom))
        if seat.status == "present":
            self._gone(whom, "kicked", now)
        else:  # left: they may not come back either
            if self.is_over:
                raise GameOverError("the room is over")
            seat.status = "kicked"
            self.notes.append(f"{self.shown(whom)} was removed by the host")
        self.kicked.append(whom)
        self.link += 1

    def close(self, host: str | None, *, now: datetime) -> None:
        """The host closes the room: it is over. The round in play counts as it stands: its boards still in
        play end as given up (``closed``, not broken); the host's own board, unless broken, loses to every
        other board, and broken, to each board in play that could yet have beaten it (:attr:`Round.closer`):
        the host cannot void a round they are losing. Closing before the last round ends, the host forfeits the
        room (:meth:`forfeit`)."""
        self._host_only(host, "close the room")
        if self.is_over:
            raise GameOverError("the room is over")
        round_ = self.current
        if round_ is not None:
            round_.closed = True
            if self.host in round_.boards:
                round_.closer = self.host
            for board in round_.boards.values():
                if board.ended is None:
                    self._end(board, round_, "closed", now)
            if round_.code is None:
                round_.maker_ended = "closed"
            self.played.append(round_)
            self.current = None
        self.closed = True
        if self.total is None:  # closed before the start: over with no round
            self.total = 0
        self.status = "over"
        self.notes.append("the host closed the room")

    def _host_only(self, player: str | None, what: str) -> None:
        seat = self.seat(player)
        if player is None or player != self.host or seat is None or seat.status != "present":
            raise ForbiddenError(f"only the host can {what}")

    def _gone(self, player: str | None, why: str, now: datetime) -> None:
        seat = self.seat(player)
        if seat is None or player is None:
            raise ForbiddenError("you have no seat in this room")
        if seat.status != "present":
            if why != "left":
                raise RefusedError("that player has left already")
            raise RefusedError(
                "the host removed you from this room" if seat.status == "kicked" else "you have left this room already"
            )
        if self.is_over:
            raise GameOverError("the room is over")
        shown = self.shown(player)
        if self.status == "waiting" and len(self.seats) > 1:
            self.seats.remove(seat)
        elif self.status == "waiting":  # the last seat: the room is over with no round, still theirs to see
            seat.status = why
            self.total = 0
            self.status = "over"
        else:
            seat.status = why
            round_ = self.current
            if round_ is not None and player in round_.boards and round_.boards[player].ended is None:
                self._end(round_.boards[player], round_, why, now)
        self.notes.append(f"{shown} {'left' if why == 'left' else 'was removed by the host'}")
        if player == self.host:
            self._next_host()

    def _next_host(self) -> None:
        """The next present seated player after the host, in seat order, becomes host (if any)."""
        order = [s.player for s in self.seats]
        start = order.index(self.host) + 1 if self.host in order else 0
        for player in order[start:] + order[:start]:
            seat = self.seat(player)
            if seat is not None and seat.status == "present":
                if player != self.host:
                    self.host = player
                    self.notes.append(f"{self.shown(player)} is the host now")
                return

    # -- moves ------------------------------------------------------------------------------------------

    def _board(self, player: str | None) -> tuple[Round, Board]:
        round_ = self.current
        if self.is_over:
            raise GameOverError("the room is over")
        if round_ is None or player is None:
            raise IllegalMoveError("there is no round in play")
        board = round_.boards.get(player)
        if board is None:
            if round_.maker == player:
                raise IllegalMoveError("you make this round's code: the others break it")
            if round_.code is None:
                raise IllegalMoveError("the code of this round is not set yet")
            raise IllegalMoveError("you sit this round out")
        if board.ended is not None:
            raise GameOverError("your board of this round is over: wait for the next round")
        return round_, board

    def set_code(self, player: str | None, code: Code | str, *, now: datetime) -> None:
        """In turns, the round's codemaker sets its code at ``now``: the breakers' clocks start."""
        round_ = self.current
        if self.is_over:
            raise GameOverError("the room is over")
        if round_ is None or round_.maker is None or player != round_.maker:
            raise IllegalMoveError("it is not yours to set the code of this round")
        if round_.code is not None:
            raise CodeSetError("this round's code is set already")
        try:
            adopted = self.rules.adopt(code)
        except KeypegError:  # never quote the code back
            raise IllegalMoveError(f"that is not a code of these rules ({self.rules.describe()})") from None
        self._set(round_, adopted, now)

    def guess(self, player: str | None, code: Code | str, *, now: datetime) -> Feedback:
        """``player`` guesses on their board at ``now``; the score (their board may end)."""
        round_, board = self._board(player)
        assert round_.code is not None
        guess = self.rules.adopt(code)
        feedback = score(self.rules.adopt(round_.code), guess)
        board.guesses.append((str(guess), feedback.black, feedback.white))
        board.clock = now
        if feedback.black == self.rules.pegs:
            self._end(board, round_, "broken", now)
        elif len(board.guesses) >= self.rules.rows:
            self._end(board, round_, "out of rows", now)
        return feedback

    def resign(self, player: str | None, *, now: datetime) -> None:
        """``player`` gives up their board of the round (not broken)."""
        round_, board = self._board(player)
        self._end(board, round_, "resigned", now)

    def _end(self, board: Board, round_: Round, why: str, now: datetime) -> None:
        board.ended = why
        board.tenths = _tenths(round_.began, now if why == "broken" else max(now, round_.began))

    def _set(self, round_: Round, code: Code, now: datetime) -> None:
        """The round's code is set at ``now``: a board for every present player but the maker."""
        round_.code = str(code)
        round_.began = now
        round_.boards = {  # an absent player's board is given up at once: leaving never helps
            s.player: Board(s.player, now) if s.status == "present" else Board(s.player, now, ended=ABSENT, tenths=0)
            for s in self.seats
            if s.player != round_.maker
        }

    # -- the clock --------------------------------------------------------------------------------------

    def deadlines(self) -> dict[str, datetime]:
        """Each clock running: the maker's (to set the code) or each breaker's, by player."""
        round_, step = self.current, timedelta(seconds=self.move_seconds)
        if round_ is None or self.is_over:
            return {}
        if round_.code is None:
            return {round_.maker: round_.began + step} if round_.maker is not None else {}
        return {b.player: b.clock + step for b in round_.boards.values() if b.ended is None}

    def deadline(self) -> datetime | None:
        """When the room next moves by itself (the earliest clock), if a clock runs."""
        return min(self.deadlines().values(), default=None)

    def advance(self, now: datetime, draw: Draw) -> bool:
        """Apply the clock at ``now`` and move the room on: a late maker's code set by the computer, late
        boards ended, an ended round closed and the next one begun (at ``now``), the room over after the
        last. Whether anything changed."""
        changed = False
        while self.status == "playing":
            round_ = self.current
            if round_ is None:
                if len(self.played) >= (self.total or 0):
                    self.status = "over"
                    return True
                self.current = self._next_round(now, draw)
                changed = True
                continue
            if round_.code is None:
                assert round_.maker is not None
                seat = self.seat(round_.maker)
                late = now >= round_.began + timedelta(seconds=self.move_seconds)
                if seat is not None and seat.status == "present" and not late:
                    return changed
                round_.maker_ended = "timed out" if seat is not None and seat.status == "present" else "left"
                if round_.maker_ended == "timed out":
                    why = f"ran out of time ({per_move(self.move_seconds)}) to set the code"
                    self.notes.append(f"{self.shown(round_.maker)} {why}: the computer set it")
                self._set(round_, self.rules.adopt(draw()), now)
                changed = True
            for player, due in self.deadlines().items():
                if now >= due:
                    self._end(round_.boards[player], round_, "timed out", now)
                    self.notes.append(f"{self.shown(player)} ran out of time in round {round_.number}")
                    changed = True
            if not round_.over:
                return changed
            self.played.append(round_)
            self.current = None
            changed = True
        return changed

    def _next_round(self, now: datetime, draw: Draw) -> Round:
        number = len(self.played) + 1
        if self.maker == "computer":
            round_ = Round(number, None, now)
            self._set(round_, self.rules.adopt(draw()), now)
            return round_
        maker = self.seats[(number - 1) % len(self.seats)].player
        return Round(number, maker, now)

    # -- results ----------------------------------------------------------------------------------------

    def standing(self) -> list[Standing]:
        """Points, then fewer guesses in all, then seat order; equal points and guesses share a place. A host
        who closed the room before its last round ended (:meth:`forfeit`) is placed last, alone."""
        points = {s.player: 0 for s in self.seats}
        guesses = dict(points)
        for round_ in self.played:
            for player, won in round_.points(self.rules, self.kicked).items():
                points[player] = points.get(player, 0) + won
            for board in round_.boards.values():
                guesses[board.player] = guesses.get(board.player, 0) + board.counted(self.rules)
        forfeit = self.forfeit()
        order = sorted(points, key=lambda p: (p == forfeit, -points[p], guesses.setdefault(p, 0)))  # stable: seats
        lines: list[Standing] = []
        for index, player in enumerate(order):
            tied = (
                lines
                and player != forfeit
                and (lines[-1].points, lines[-1].guesses) == (points[player], guesses[player])
            )
            place = lines[-1].place if tied else index + 1
            lines.append(Standing(place, player, points[player], guesses[player]))
        return lines

    def rateable(self) -> set[str]:
        """The players the ratings may take: seated, not guests, not removed by the host."""
        return {s.player for s in self.seats if not s.guest and s.status != "kicked" and s.player not in self.kicked}

    def guest_seated(self) -> bool:
        """Whether a guest's seat is in the room (one who logged in since too: the seat stays a guest's)."""
        return any(s.guest for s in self.seats)

    def forfeit(self) -> str | None:
        """The host who closed the room before its last round ended, if one did: their results against every
        other rated player are losses (:meth:`places`)."""
        return self.host if self.closed and self.total else None

    def rated(self) -> bool:
        """Whether the room's standing goes to the ratings: no guest's seat in it (:meth:`guest_seated`), and
        at least two of its rated players played: a guess or a give-up of their own board in an ended round,
        a code set as its maker, a kick after the start (the host and the kicked player: :meth:`rating_losses`)
        or a close before the last round ended (:meth:`forfeit`); else nothing is rated (a room closed before
        anyone moved, one whose players all ran out of time or left)."""
        if self.guest_seated():
            return False
        played: set[str] = set().union(*(r.players() for r in self.played)) if self.played else set()
        played |= {p for pair in self.rating_losses() for p in pair}
        if (forfeit := self.forfeit()) is not None:
            played.add(forfeit)
        return len(played & (self.rateable() | {whom for _, whom in self.rating_losses()})) >= 2

    def rating_losses(self) -> list[tuple[str, str]]:
        """``(host, kicked)``: a rated result of the host's, a loss to a player they kicked after the start,
        whatever the standing (the kicked player is not rated for the room; the others' results against
        them are left out)."""
        rateable = self.rateable()
        registered = {s.player for s in self.seats if not s.guest}
        return [(host, whom) for host, whom in self.kick_losses if host in rateable and whom in registered]

    def places(self) -> list[list[str]]:
        """The standing's players grouped by place, best first (what ratings take), but those the host
        removed: a kicked player is never rated for the room (a guest is left out by the ratings). A host who
        closed the room before its last round ended (:meth:`forfeit`) takes the last place alone: their results
        against every other rated player are losses; the others' stand as the standing was at the close."""
        groups: list[list[str]] = []
        last = None
        forfeit = self.forfeit()
        for line in self.standing():
            seat = self.seat(line.player)
            if line.player in self.kicked or self._status(line.player) == "kicked" or (seat and seat.guest):
                continue  # a guest (one who logged in since too: their seat was a guest's) is not rated
            if line.player == forfeit:
                continue
            if line.place != last:
                groups.append([])
                last = line.place
            groups[-1].append(line.player)
        if forfeit is not None and forfeit in self.rateable():
            groups.append([forfeit])
        return groups

    def session(self, round_: Round, player: str) -> BreakSession:
        """``player``'s board of ``round_`` as a game session (for the store: state, outcome, secret)."""
        assert round_.code is not None
        game = BreakSession(self.rules, FixedCodemaker(self.rules.adopt(round_.code)), helps=False)
        for guess, _, _ in round_.boards[player].guesses:
            game.guess(guess)
        if round_.boards[player].ended not in (None, "broken", "out of rows") and not game.is_over:
            game.resign()
        return game

    # -- what each viewer sees --------------------------------------------------------------------------

    def view(self, viewer: str | None, now: datetime, *, whole: bool = True) -> dict[str, Any]:
        """What ``viewer`` (a seated player, or ``None``/anyone else: a spectator) may see at ``now``: every
        board of the round in play as key pegs only, the viewer's own board with its guesses, the code only
        to the maker who set it; every ended round whole (not ``whole``: the last one whole, the others as
        summaries, their boards with no rows)."""
        seat = self.seat(viewer)
        you = viewer if seat is not None else None
        round_ = self.current
        clocks = self.deadlines()

        def left(due: datetime | None) -> float | None:
            return round(max(0.0, (due - now).total_seconds()), 1) if due is not None else None

        shown_round: dict[str, Any] | None = None
        board: dict[str, Any] | None = None
        if round_ is not None:
            boards = []
            for b in round_.boards.values():
                due = clocks.get(b.player)
                boards.append(
                    {
                        "player": b.player,
                        "name": self.shown(b.player),
                        "rows": [{"black": k, "white": w} for _, k, w in b.guesses],
                        "guesses": len(b.guesses),
                        "over": b.ended is not None,
                        "broken": b.broken,
                        "ended": b.ended,
                        "seconds": b.tenths / 10 if b.tenths is not None else None,
                        "deadline": due.isoformat() if due is not None else None,
                        "seconds_left": left(due),
                    }
                )
            shown_round = {
                "number": round_.number,
                "of": self.planned(),
                "maker": round_.maker,
                "maker_name": self.shown(round_.maker) if round_.maker is not None else None,
                "code_set": round_.code is not None,
                "maker_ended": round_.maker_ended,
                "started": round_.began.isoformat(),
                "boards": boards,
            }
            if you is not None and you == round_.maker and round_.code is not None and not round_.maker_ended:
                shown_round["code"] = round_.code
            mine = round_.boards.get(you) if you is not None else None
            if mine is not None:
                due = clocks.get(mine.player)
                board = {
                    "rows": [{"guess": g, "black": k, "white": w} for g, k, w in mine.guesses],
                    "rows_left": self.rules.rows - len(mine.guesses),
                    "over": mine.ended is not None,
                    "broken": mine.broken,
                    "ended": mine.ended,
                    "deadline": due.isoformat() if due is not None else None,
                    "seconds_left": left(due),
                }
        last = len(self.played) - 1
        ended = [self._ended(r, rows=whole or i == last) for i, r in enumerate(self.played)]
        due_all = self.deadline()
        yours = clocks.get(you) if you is not None else None
        return {
            "room": {
                "rules": self.rules.as_dict(),
                "maker": self.maker,
                "rounds": self.planned(),
                "rounds_asked": self.rounds,
                "move_seconds": self.move_seconds,
                "per_move": per_move(self.move_seconds),
                "status": self.status,
                "closed": self.closed,
            },
            "host": self.host,
            "you": you,
            "seats": [
                {
                    "player": s.player,
                    "name": self.shown(s.player),
                    "seat": i,
                    "status": s.status,
                    "host": s.player == self.host,
                    "guest": s.guest,
                }
                for i, s in enumerate(self.seats)
            ],
            "round": shown_round,
            "board": board,
            "last_round": ended[-1] if ended else None,
            "rounds": ended,
            "standing": [
                {
                    "place": s.place,
                    "player": s.player,
                    "name": self.shown(s.player),
                    "points": s.points,
                    "guesses": s.guesses,
                    "status": self._status(s.player),
                    "forfeit": s.player == self.forfeit(),
                }
                for s in self.standing()
            ],
            "clock": {
                "deadline": due_all.isoformat() if due_all is not None else None,
                "seconds_left": left(due_all),
                "yours": {"deadline": yours.isoformat(), "seconds_left": left(yours)} if yours is not None else None,
            },
            "notes": self.notes[-5:],
            "over": self.is_over,
        }

    def _status(self, player: str) -> str:
        seat = self.seat(player)
        return seat.status if seat is not None else "left"

    def _ended(self, round_: Round, *, rows: bool = True) -> dict[str, Any]:
        """An ended round, everything shown (with no ``rows``: its boards with no rows, a summary)."""
        points = round_.points(self.rules, self.kicked)
        return {
            "number": round_.number,
            "maker": round_.maker,
            "maker_name": self.shown(round_.maker) if round_.maker is not None else None,
            "code": round_.code,
            "maker_points": points.get(round_.maker, 0) if round_.maker is not None else None,
            "maker_ended": round_.maker_ended,
            "closed": round_.closed,
            "boards": [
                {
                    "player": b.player,
                    "name": self.shown(b.player),
                    **({"rows": [{"guess": g, "black": k, "white": w} for g, k, w in b.guesses]} if rows else {}),
                    "guesses": len(b.guesses),
                    "broken": b.broken,
                    "ended": b.ended,
                    "seconds": b.tenths / 10 if b.tenths is not None else None,
                    "points": points.get(b.player, 0),
                }
                for b in round_.boards.values()
            ],
        }

    # -- saving -----------------------------------------------------------------------------------------

    def to_state(self) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """JSON-ready state, public and private: as a game keeps its secret, the round in play's code and
        its boards' guesses go to the private side (the store's private column), the public state holding of
        it only what a spectator sees (key pegs); ended rounds are public whole. The private side is ``None``
        when no round is in play."""
        state = {
            "room": ROOM_VERSION,
            "rules": self.rules.as_dict(),
            "host": self.host,
            "rounds": self.rounds,
            "maker": self.maker,
            "move": self.move_seconds,
            "seats": [[s.player, s.nickname, s.guest, s.status] for s in self.seats],
            "kicked": self.kicked,
            "status": self.status,
            "total": self.total,
            "current": _round_state(self.current, hidden=True) if self.current is not None else None,
            "played": [_round_state(r) for r in self.played],
            "closed": self.closed,
            "notes": self.notes[-50:],
            "link": self.link,
            "kick_losses": [list(pair) for pair in self.kick_losses],
        }
        return state, _private(self.current) if self.current is not None else None

    @classmethod
    def from_state(cls, state: dict[str, Any], private: dict[str, Any] | None = None) -> Room:
        """A room from :meth:`to_state`'s two sides; a damaged state raises :class:`KeypegError`."""
        try:
            if not isinstance(state, dict) or state.get("room") != ROOM_VERSION:
                raise KeypegError("not a room")
            maker = state["maker"]
            status = state["status"]
            if maker not in ("computer", "turns") or status not in ("waiting", "playing", "over"):
                raise KeypegError("damaged room state: its maker or status")
            current = state["current"]
            if (current is None) != (private is None):
                raise KeypegError("damaged room state: the round in play with no private side, or one with none")
            room = cls(
                Rules.from_dict(state["rules"]),
                str(state["host"]),
                int(state["rounds"]),
                maker,
                int(state["move"]),
                [Seat(str(p), None if n is None else str(n), bool(g), str(s)) for p, n, g, s in state["seats"]],
                [str(p) for p in state["kicked"]],
                status,
                None if state["total"] is None else int(state["total"]),
                _round_from(current, private) if current is not None else None,
                [_round_from(r) for r in state["played"]],
                bool(state["closed"]),
                [str(n) for n in state["notes"]],
                int(state.get("link", 0)),
            )
            room.kick_losses = [(str(host), str(whom)) for host, whom in state.get("kick_losses", [])]
            if room.status == "playing" and room.total is None:
                raise KeypegError("damaged room state: started with no number of rounds")
            if room.status == "over" and room.total is None:  # ended before its start: 0 rounds
                room.total = 0
            return room
        except KeypegError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise KeypegError(f"damaged room state: {error.__class__.__name__}: {error}") from None


def _round_state(round_: Round, *, hidden: bool = False) -> dict[str, Any]:
    """A round's state: whole once ended; ``hidden`` (the round in play), with no code and key pegs only."""
    return {
        "number": round_.number,
        "maker": round_.maker,
        "began": round_.began.isoformat(),
        "code": None if hidden else round_.code,
        "code_set": round_.code is not None,
        "maker_ended": round_.maker_ended,
        "closed": round_.closed,
        "closer": round_.closer,
        "boards": [
            {
                "player": b.player,
                "clock": b.clock.isoformat(),
                "guesses": [[k, w] if hidden else [g, k, w] for g, k, w in b.guesses],
                "game": b.game,
                "ended": b.ended,
                "tenths": b.tenths,
            }
            for b in round_.boards.values()
        ],
    }


def _private(round_: Round) -> dict[str, Any]:
    """The private side of the round in play: its code and each board's guesses."""
    return {"code": round_.code, "guesses": {b.player: [g for g, _, _ in b.guesses] for b in round_.boards.values()}}


def _round_from(state: dict[str, Any], private: dict[str, Any] | None = None) -> Round:
    """A round from its state (with ``private``, the round in play's private side)."""
    guessed: dict[str, Any] = {}
    code = state["code"]
    if private is not None:
        code, guessed = private["code"], private["guesses"]
        if state["code"] is not None or bool(state["code_set"]) != (code is not None) or not isinstance(guessed, dict):
            raise KeypegError("damaged room state: the round in play's code")

    def moves(board: dict[str, Any]) -> list[tuple[str, int, int]]:
        if private is None:
            return [(str(g), int(k), int(w)) for g, k, w in board["guesses"]]
        texts = guessed[str(board["player"])]
        if not isinstance(texts, list) or len(texts) != len(board["guesses"]):
            raise KeypegError("damaged room state: a board's guesses")
        return [(str(g), int(k), int(w)) for g, (k, w) in zip(texts, board["guesses"], strict=True)]

    boards = [
        Board(
            str(b["player"]),
            _when(b["clock"]),
            moves(b),
            None if b["game"] is None else int(b["game"]),
            None if b["ended"] is None else str(b["ended"]),
            None if b["tenths"] is None else int(b["tenths"]),
        )
        for b in state["boards"]
    ]
    return Round(
        int(state["number"]),
        None if state["maker"] is None else str(state["maker"]),
        _when(state["began"]),
        None if code is None else str(code),
        {b.player: b for b in boards},
        None if state["maker_ended"] is None else str(state["maker_ended"]),
        bool(state["closed"]),
        None if state.get("closer") is None else str(state["closer"]),
    )


def _when(text: Any) -> datetime:
    when = datetime.fromisoformat(str(text))
    if when.tzinfo is None:
        raise ValueError("a time with no time zone")
    return when
