"""A match: an even number of games agreed in advance, the players taking turns as codemaker.

Against the computer, the computer makes a random code when it is codemaker and plays at
the chosen level when it is codebreaker; between two people, the codemaker sets the
secret. The codemaker earns a point per guess, plus one when the code holds (or a point
per key peg with ``key-pegs`` points): the rules of :class:`keypeg.game.Match`.
"""

from __future__ import annotations

import random
from typing import Any

from keypeg.code import Code
from keypeg.errors import GameOverError, IllegalMoveError, KeypegError
from keypeg.game import Match, MatchGame
from keypeg.play.codemakers import FixedCodemaker, RandomCodemaker
from keypeg.play.levels import LEVELS
from keypeg.play.sessions import BreakSession, Session, SolveSession
from keypeg.rules import Rules

__all__ = ["MatchSession"]


class MatchSession:
    """A match under ``rules``; ``computer`` names the computer's seat (``None`` between two people).

    >>> from keypeg.game import Match
    >>> match = MatchSession(Rules(4, 6), Match(("computer", "ann")), computer="computer", seed=1)
    >>> game = match.start()  # the computer makes a code; ann breaks it
    >>> isinstance(game, BreakSession), match.roles()
    (True, ('computer', 'ann'))
    """

    def __init__(
        self, rules: Rules, match: Match, *, computer: str | None = None, level: int = 3, seed: int | None = None
    ) -> None:
        if computer is not None and computer not in match.players:
            raise KeypegError(f"the computer's seat {computer!r} is not one of {match.players!r}")
        if level not in LEVELS:
            raise KeypegError(f"level must be 1 to 4, not {level!r}")
        self.rules = rules
        self.match = match
        self.computer = computer
        self.level = level
        self.seed = seed
        self._rng = random.Random(seed) if seed is not None else None
        self.current: Session | None = None
        self.current_id: int | None = None
        """The store's id of the game being played, when it is kept there (set by whoever keeps it)."""
        self.match_id: int | None = None
        """The store's id of this match, when it is kept there."""

    @property
    def is_over(self) -> bool:
        """Whether every agreed game has been played."""
        return self.match.is_over

    def roles(self) -> tuple[str, str]:
        """(codemaker, codebreaker) of the game being played, or of the next one."""
        return self.match.roles()

    def seat(self) -> tuple[str, str]:
        """The kind of session the game being played (or the next) is, and whose game it is for the
        records: the person who breaks the code, or who scores the computer's guesses."""
        maker, breaker = self.roles()
        if breaker == self.computer:
            return SolveSession.kind, maker
        return BreakSession.kind, breaker

    def needs_secret(self) -> bool:
        """Whether the next game waits for a person to set the secret."""
        return self.current is None and not self.is_over and self.computer not in self.roles()

    def start(self, secret: Code | str | None = None) -> Session:
        """Start the next game; between two people ``secret`` is the codemaker's code."""
        if self.current is not None and not self.current.is_over:
            raise IllegalMoveError("a game of this match is being played")
        if self.is_over:
            raise GameOverError("the match is over")
        maker, breaker = self.roles()
        session: Session
        if maker == self.computer:
            session = BreakSession(self.rules, RandomCodemaker.draw(self.rules, self._rng), helps=False)
        elif breaker == self.computer:
            seed = self._rng.randrange(2**31) if self._rng is not None else None
            session = SolveSession(self.rules, level=self.level, seed=seed)
        else:
            if secret is None:
                raise IllegalMoveError(f"{maker} must set the secret first")
            session = BreakSession(self.rules, FixedCodemaker(self.rules.adopt(secret)), helps=False)
        self.current, self.current_id = session, None
        return session

    def resume(self, session: Session, game_id: int | None) -> None:
        """Continue the game in progress (loaded from the store)."""
        if self.is_over:
            raise GameOverError("the match is over")
        if session.rules.game != self.rules.game or session.kind != self.seat()[0]:
            raise KeypegError("the saved game does not belong to this match")
        self.current, self.current_id = session, game_id

    def finish(self) -> MatchGame:
        """Record the game just played; its result."""
        if self.current is None or not self.current.is_over:
            raise IllegalMoveError("no finished game to record")
        self.match.record(self.current)
        self.current, self.current_id = None, None
        return self.match.played[-1]

    def points(self) -> dict[str, int]:
        """Points of each player so far."""
        return self.match.points()

    def winner(self) -> str | None:
        """The winner once the match is over (``None`` for a draw or while playing)."""
        return self.match.winner()

    def to_state(self) -> dict[str, Any]:
        """JSON-ready public state (a game in progress is kept by its store id, never by its secret)."""
        state = self.match.as_dict()
        state.update(
            rules=self.rules.as_dict(),
            computer=self.computer,
            level=self.level,
            seed=self.seed,
            generator=_jsonable(self._rng.getstate()) if self._rng is not None else None,
            current_game=self.current_id,
            match_id=self.match_id,
        )
        return state

    @classmethod
    def from_state(cls, state: dict[str, Any], rules: Rules | None = None) -> MatchSession:
        """A match from :meth:`to_state`; ``rules`` stand in for the rules a match file of an earlier
        keypeg did not keep."""
        try:
            match = Match.from_dict(state)
            kept = state.get("rules")
            if kept is None and rules is None:
                raise KeypegError("damaged match state: no rules")
            default_computer = "computer" if "computer" in match.players else None
            session = cls(
                Rules.from_dict(kept) if kept is not None else rules,  # type: ignore[arg-type]
                match,
                computer=state.get("computer", default_computer),
                level=int(state.get("level", 3)),
                seed=state.get("seed"),
            )
            limit = session.rules.rows * session.rules.pegs
            for game in match.played:
                if game.guesses > session.rules.rows or game.key_pegs > limit:
                    raise KeypegError(f"damaged match state: a game of {game.guesses} guesses is past the rules")
            generator = state.get("generator")
            if generator is not None and session._rng is not None:
                session._rng.setstate(_tuples(generator))
            current, kept = state.get("current_game"), state.get("match_id")
            session.current_id = _game_id(current)
            session.match_id = _game_id(kept)
            return session
        except KeypegError:
            raise
        except (KeyError, TypeError, ValueError, OverflowError, RecursionError) as error:
            raise KeypegError(f"damaged match state: {error.__class__.__name__}: {error}") from None


def _game_id(value: Any) -> int | None:
    """A store id from a match file: a whole number from 1, or nothing."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        raise KeypegError(f"damaged match state: {str(value)[:40]!r} is not a game's number")
    return value


def _jsonable(value: Any) -> Any:
    return [_jsonable(v) for v in value] if isinstance(value, tuple | list) else value


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value
