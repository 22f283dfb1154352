"""A match between two people, played live: the seats, whose turn it is, who may do what, forfeits, and
what each viewer may see. Plain objects with no input, output or storage (the web keeps them in the
store and tells viewers of every change).

The player who creates the match takes the first seat and makes the first code; the second seat is
taken once, by whoever holds the invitation. Roles alternate each game. The codemaker sets the secret;
the codebreaker guesses and the secret scores each guess (nobody can score wrongly).

The match has a clock, per move: whoever must act (the codemaker to set a code, the codebreaker to guess)
has the match's time control (``move_seconds``, from :data:`~keypeg.limits.LIVE_MOVE_SECONDS`) from the
moment their turn began: the previous move, or, for the first turn, the moment the second player sat
down (a creator waiting for a friend has no clock). Running out forfeits the game, connected or not: a
codebreaker's game counts as the code holding through every row, a codemaker's as broken at once (no
points). Each move takes the time it is made at (``now``): the play layer reads no clock. A viewer sees
a game's secret only if they made it, or once the game is over.

>>> from datetime import UTC, datetime, timedelta
>>> from keypeg.rules import Rules
>>> start = datetime(2026, 1, 1, tzinfo=UTC)
>>> live = LiveMatch.new(Rules(2, 3), games=2, first="ann", move_seconds=60)
>>> live.join("bob", now=start)
>>> live.turn(), live.roles(), live.deadline() == start + timedelta(seconds=60)
('ann', ('ann', 'bob'), True)
>>> game = live.set_secret("ann", "AB")
>>> live.started(1, now=start)  # the game's id in the store
>>> live.turn(), [str(live.guess("bob", game, c, now=start)) for c in ("BA", "AB")]
('bob', ['0,2', '2,0'])
>>> live.points(), live.roles()
({'ann': 2, 'bob': 0}, ('bob', 'ann'))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from keypeg.code import Code, Feedback
from keypeg.errors import ConflictError, GameOverError, IllegalMoveError, KeypegError, RefusedError
from keypeg.game import Match
from keypeg.limits import LIVE_MOVE_DEFAULT, LIVE_MOVE_SECONDS
from keypeg.play.matches import MatchSession
from keypeg.play.sessions import BreakSession
from keypeg.rules import Rules

__all__ = [
    "LIVE_VERSION",
    "CodeSetError",
    "LiveMatch",
    "Note",
    "Standing",
    "check_move_seconds",
    "per_move",
    "standing",
]

LIVE_VERSION = 1


def check_move_seconds(seconds: int) -> int:
    """``seconds`` as a time control (:class:`RefusedError` outside :data:`~keypeg.limits.LIVE_MOVE_SECONDS`):
    the one check of the web's form, its API and any other face."""
    low, high = LIVE_MOVE_SECONDS
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not low <= seconds <= high:
        raise RefusedError(f"a move's time is from {low} to {high:,} seconds (a day), not {seconds!r}")
    return seconds


def per_move(seconds: int) -> str:
    """A time control as people say it: ``30 s``, ``2 min``, ``1 hour``, ``1 day``, ``90 s``.

    >>> [per_move(s) for s in (30, 60, 90, 120, 3600, 5400, 86400)]
    ['30 s', '1 min', '90 s', '2 min', '1 hour', '90 min', '1 day']
    """
    for size, unit in ((86400, "day"), (3600, "hour")):
        if seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}{'' if count == 1 else 's'}"
    return f"{seconds // 60} min" if seconds % 60 == 0 else f"{seconds} s"


@dataclass(frozen=True)
class Note:
    """Something that happened which the players are told: a forfeit, a resignation."""

    game: int
    text: str


class CodeSetError(ConflictError):
    """A code sent for a game whose code is set: the same request sent again (its answer lost), or another
    tab's; nothing changes (409, as for a move sent twice)."""


@dataclass
class LiveMatch:
    """A match between ``first`` and ``second`` (``None`` until the second seat is taken)."""

    rules: Rules
    games: int
    first: str
    second: str | None = None
    match: MatchSession | None = None
    notes: list[Note] = field(default_factory=list)
    nicknames: dict[str, str] = field(default_factory=dict)
    """Names that guests chose to be shown by (``guest-...`` players have no name of their own)."""
    last_id: int | None = None
    """The store's id of the game that ended last, if its code was set (``None`` for a game given away
    before: it has no code to show)."""
    move_seconds: int = LIVE_MOVE_DEFAULT
    """The time control: seconds per move."""
    turn_began: datetime | None = None
    """When the turn of whoever must act began (``None`` until both players sit)."""
    guesses_timed: int | None = 0
    """The guesses of the game being played that the clock has timed (``None`` in a state kept before
    clocks): a guess written to its game whose match's own write was cut short shows by a difference."""

    @classmethod
    def new(
        cls,
        rules: Rules,
        games: int,
        first: str,
        nickname: str | None = None,
        move_seconds: int = LIVE_MOVE_DEFAULT,
    ) -> LiveMatch:
        """A match waiting for its second player (a guest may give a ``nickname`` to be shown by), of
        ``move_seconds`` a move."""
        Match(("first", "second"), games=games)  # the number of games checked now: even, at least 2
        live = cls(rules, games, first, move_seconds=check_move_seconds(move_seconds))
        if nickname:
            live.nicknames[first] = nickname
        return live

    def shown(self, player: str | None) -> str:
        """How a player is shown: their name, or a guest's nickname marked as a guest's."""
        if player is None:
            return ""
        return f"{self.nicknames[player]} (guest)" if player in self.nicknames else player

    # -- seats and turns --------------------------------------------------------------------------------

    @property
    def seats(self) -> tuple[str, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)

    def seat_of(self, player: str | None) -> int | None:
        """0 or 1 for a player in the match, ``None`` for a spectator."""
        return self.seats.index(player) if player in self.seats else None

    def join(self, player: str, nickname: str | None = None, *, now: datetime) -> None:
        """Take the second seat (a guest may give a ``nickname``) at ``now``: the clock starts."""
        if self.second is not None:
            raise IllegalMoveError("both seats are taken")
        if player == self.first:
            raise IllegalMoveError("you cannot play against yourself: send the invitation to someone else")
        self.second = player
        if nickname:
            self.nicknames[player] = nickname
        self.match = MatchSession(self.rules, Match((self.first, player), games=self.games))
        self.turn_began = now

    @property
    def is_over(self) -> bool:
        return self.match is not None and self.match.is_over

    def roles(self) -> tuple[str, str] | None:
        """(codemaker, codebreaker) of the game being played or the next one; ``None`` before both sit."""
        return self.match.roles() if self.match is not None and not self.match.is_over else None

    def turn(self) -> str | None:
        """Who must act now: the codemaker to set a secret, or the codebreaker to guess (``None`` while
        waiting for the second player, or once the match is over)."""
        roles = self.roles()
        if roles is None:
            return None
        assert self.match is not None
        return roles[0] if self.match.current_id is None else roles[1]

    # -- the clock --------------------------------------------------------------------------------------

    def deadline(self) -> datetime | None:
        """When whoever must act runs out of time (``None`` when nobody must act)."""
        if self.turn() is None or self.turn_began is None:
            return None
        return self.turn_began + timedelta(seconds=self.move_seconds)

    def late(self, now: datetime) -> str | None:
        """The player who must act and has run out of time at ``now``, if any."""
        deadline = self.deadline()
        return self.turn() if deadline is not None and now >= deadline else None

    def catch_up(self, game: BreakSession | None, now: datetime) -> bool:
        """Start the turn's clock at ``now`` if a write was cut short: a match kept before clocks (its turn
        has no start), or a guess written to ``game``, the current game loaded, without the match's own
        write (its followers were not told either). Whether it did (the match is then to be saved)."""
        if self.turn() is None or self.match is None:
            return False
        guesses = len(game.history) if game is not None and self.match.current_id is not None else 0
        if self.turn_began is not None and guesses == self.guesses_timed:
            return False
        self.turn_began, self.guesses_timed = now, guesses
        return True

    def time_out(self, player: str, game: BreakSession | None, now: datetime) -> None:
        """``player`` ran out of time on their turn: they lose the game being played."""
        why = f"{self.shown(player)} ran out of time ({per_move(self.move_seconds)} a move) and forfeited"
        self._give_up(player, game, why, now)

    # -- moves --------------------------------------------------------------------------------------------

    def set_secret(self, player: str, code: Code | str) -> BreakSession:
        """The codemaker sets the next game's secret; the game to record (its id then goes to
        :meth:`started`)."""
        roles = self.roles()
        if roles is None:
            if self.is_over:
                raise GameOverError("the match is over")
            raise IllegalMoveError("waiting for a second player")
        assert self.match is not None
        if player != roles[0]:
            raise IllegalMoveError("it is not yours to set the code of this game")
        if self.match.current_id is not None:
            raise CodeSetError("this game's code is set already")
        try:
            session = self.match.start(self.rules.adopt(code))
        except KeypegError:  # never quote the secret back: the error names the rules only
            raise IllegalMoveError(f"that is not a code of these rules ({self.rules.describe()})") from None
        assert isinstance(session, BreakSession)
        return session

    def started(self, game_id: int, *, now: datetime) -> None:
        """The game just set is kept in the store under ``game_id``, at ``now``: the codebreaker's turn."""
        assert self.match is not None
        self.match.current_id = game_id
        self.turn_began, self.guesses_timed = now, 0

    def guess(self, player: str, game: BreakSession, code: Code | str, *, now: datetime) -> Feedback:
        """The codebreaker guesses in ``game`` (the match's current game, loaded) at ``now``; the score.
        When the game ends, it is counted."""
        roles = self.roles()
        if roles is None or self.match is None or self.match.current_id is None:
            raise IllegalMoveError("there is no game to guess in now")
        if player != roles[1]:
            raise IllegalMoveError("it is not your turn to guess")
        feedback = game.guess(code)
        self.turn_began, self.guesses_timed = now, len(game.history)
        if game.is_over:
            self.count_ended(game, now)
        return feedback

    def resign(self, player: str, game: BreakSession | None, now: datetime) -> None:
        """A player gives up the game being played at ``now`` (as codebreaker: the code held; as codemaker
        before setting it: no points)."""
        self._give_up(player, game, f"{self.shown(player)} gave up", now)

    def _give_up(self, player: str, game: BreakSession | None, why: str, now: datetime) -> None:
        roles = self.roles()
        if roles is None or self.match is None:
            raise IllegalMoveError("there is no game to give up now")
        if player not in roles:
            raise IllegalMoveError("you are not playing this match")
        number = len(self.match.match.played) + 1
        if self.match.current_id is None:  # no secret yet: the codemaker gives the game away
            if player != roles[0]:
                raise IllegalMoveError("the code is not set yet: wait for it")
            self.match.match.record_game(0, broken=True)
            self.last_id = None  # the game that ended has no code: none of another game's is shown for it
            self.turn_began, self.guesses_timed = now, 0
        else:
            if game is None or player != roles[1]:
                raise IllegalMoveError("only the codebreaker can give up a game being played")
            game.resign()
            self.count_ended(game, now)
        self.notes.append(Note(number, why))

    def count_ended(self, game: BreakSession, now: datetime) -> None:
        """Count ``game``, the match's current game, which has just ended at ``now``: its points go to the
        match, which moves on to its next game (or ends), whose codemaker's turn begins. A game found ended
        but not yet counted (a write cut short) is counted so when it is next loaded."""
        assert self.match is not None
        self.turn_began, self.guesses_timed = now, 0
        self.last_id = self.match.current_id
        self.match.resume(game, self.match.current_id)
        self.match.finish()

    # -- what each viewer sees ---------------------------------------------------------------------------

    def points(self) -> dict[str, int]:
        return self.match.points() if self.match is not None else dict.fromkeys(self.seats, 0)

    def view(self, viewer: str | None, game: BreakSession | None, now: datetime) -> dict[str, Any]:
        """What ``viewer`` (a player, or ``None``/anyone else: a spectator) may see at ``now``; ``game`` is
        the current game, loaded. The secret only for its codemaker while it is played; the clock as the
        deadline of the move awaited and the seconds left on it."""
        roles = self.roles()
        played = self.match.match.played if self.match is not None else []
        current: dict[str, Any] | None = None
        if game is not None and roles is not None and self.match is not None and self.match.current_id is not None:
            current = {
                "number": len(played) + 1,
                "history": [{"guess": str(g), "black": f.black, "white": f.white} for g, f in game.history],
                "rows_left": game.rows_left,
            }
            if viewer == roles[0]:
                current["secret"] = str(game.codemaker.reveal())
        deadline = self.deadline()
        return {
            "rules": self.rules.as_dict(),
            "games": self.games,
            "seats": list(self.seats),
            "you": viewer if viewer in self.seats else None,
            "waiting": self.second is None,
            "codemaker": roles[0] if roles else None,
            "codebreaker": roles[1] if roles else None,
            "turn": self.turn(),
            "scores": self.points(),
            "played": [
                {"codemaker": g.codemaker, "codebreaker": g.codebreaker, "guesses": g.guesses, "broken": g.broken}
                for g in played
            ],
            "current": current,
            "notes": [{"game": n.game, "text": n.text} for n in self.notes[-5:]],
            "names": {p: self.shown(p) for p in self.seats},
            "over": self.is_over,
            "winner": self.match.winner() if self.match is not None else None,
            "move_seconds": self.move_seconds,
            "per_move": per_move(self.move_seconds),
            "deadline": deadline.isoformat() if deadline is not None else None,
            "seconds_left": round(max(0.0, (deadline - now).total_seconds()), 1) if deadline is not None else None,
        }

    # -- saving -----------------------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """JSON-ready public state (the games' secrets are kept with the games, on the store's private side)."""
        return {
            "live": LIVE_VERSION,
            "rules": self.rules.as_dict(),
            "games": self.games,
            "first": self.first,
            "second": self.second,
            "match": self.match.to_state() if self.match is not None else None,
            "notes": [[n.game, n.text] for n in self.notes],
            "nicknames": self.nicknames,
            "last": self.last_id,
            "clock": {
                "move": self.move_seconds,
                "began": self.turn_began.isoformat() if self.turn_began is not None else None,
                "guesses": self.guesses_timed,
            },
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> LiveMatch:
        """A match from :meth:`to_state` (one kept before clocks gets the default time control, and its
        clock starts at :meth:`catch_up`); a damaged state raises :class:`KeypegError`."""
        try:
            if state.get("live") != LIVE_VERSION:
                raise KeypegError("not a live match")
            rules = Rules.from_dict(state["rules"])
            kept = state.get("match")
            clock = state.get("clock") or {}
            began = clock.get("began")
            return cls(
                rules,
                int(state["games"]),
                str(state["first"]),
                None if state.get("second") is None else str(state["second"]),
                MatchSession.from_state(kept) if kept is not None else None,
                [Note(int(g), str(t)) for g, t in state.get("notes", [])],
                {str(k): str(v) for k, v in state.get("nicknames", {}).items()},
                int(state["last"]) if state.get("last") is not None else None,
                int(clock.get("move", LIVE_MOVE_DEFAULT)),
                datetime.fromisoformat(began) if began is not None else None,
                int(clock["guesses"]) if clock.get("guesses") is not None else None,
            )
        except KeypegError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise KeypegError(f"damaged match state: {error.__class__.__name__}: {error}") from None


@dataclass(frozen=True)
class Standing:
    """A player's record in finished matches against people."""

    matches: int
    won: int
    lost: int
    drawn: int
    points_for: int
    points_against: int


def standing(player: str, matches: list[LiveMatch]) -> Standing:
    """``player``'s record over the finished ones of ``matches``."""
    done = [m for m in matches if m.is_over and player in m.seats]
    won = sum(m.match is not None and m.match.winner() == player for m in done)
    drawn = sum(m.match is not None and m.match.winner() is None for m in done)
    points = [m.points() for m in done]
    mine = sum(p[player] for p in points)
    return Standing(len(done), won, len(done) - won - drawn, drawn, mine, sum(sum(p.values()) for p in points) - mine)
