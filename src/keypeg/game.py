"""Games and matches: the mutable game state the front ends drive (standard library only)."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from keypeg.code import Code, Feedback
from keypeg.errors import GameOverError, IllegalMoveError, InvalidArgumentError, KeypegError
from keypeg.feedback import score
from keypeg.rules import Rules

__all__ = [
    "Board",
    "Game",
    "GameOverError",
    "Match",
    "MatchGame",
    "Outcome",
    "Termination",
    "outcome_of",
    "random_code",
]


class Termination(Enum):
    """How a game ended."""

    SOLVED = "solved"
    OUT_OF_ROWS = "out of rows"
    RESIGNED = "resigned"


@dataclass(frozen=True)
class Outcome:
    """The end of a game: how it ended, after how many guesses, and the secret."""

    termination: Termination
    guesses: int
    secret: Code | None
    """The secret, when known: a person who kept their code in mind may never tell it."""

    @property
    def solved(self) -> bool:
        """Whether the codebreaker broke the code."""
        return self.termination is Termination.SOLVED


class Board(ABC):
    """A game's rules and scored guesses, and what follows from them; :class:`Game` and the play
    sessions are boards, and a match records any finished one."""

    rules: Rules
    history: Sequence[tuple[Code, Feedback]]

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""

    @property
    def rows_left(self) -> int:
        """Guesses the codebreaker may still make."""
        return self.rules.rows - len(self.history)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome() is not None


def random_code(rules: Rules, rng: random.Random) -> Code:
    """A uniformly random legal code (under ``colours`` feedback, a uniformly random set of colours)."""
    colors = range(rules.num_colors)
    if not rules.ordered:  # a code is its colours: each multiset (set) once, by stars and bars
        spread = rules.num_colors + rules.pegs - 1 if rules.repeats else rules.num_colors
        chosen = sorted(rng.sample(range(spread), rules.pegs))
        return rules.code([c - i if rules.repeats else c for i, c in enumerate(chosen)])
    if rules.repeats:
        return rules.code([rng.choice(colors) for _ in range(rules.pegs)])
    return rules.code(rng.sample(colors, rules.pegs))


class Game(Board):
    """One game: a secret, the scored guesses so far, and the rows left.

    >>> from keypeg import Rules
    >>> game = Game(Rules(4, 6), Rules(4, 6).parse("ABCD"))
    >>> game.guess("AABB")
    Feedback(black=1, white=1)
    >>> game.rows_left, game.outcome()
    (11, None)
    """

    def __init__(self, rules: Rules, secret: Code | str | None = None, *, rng: random.Random | None = None) -> None:
        self.rules = rules
        if rng is not None and not isinstance(rng, random.Random):
            raise InvalidArgumentError(f"rng must be a random.Random, not {rng!r:.60}")
        if secret is None:
            secret = random_code(rules, rng if rng is not None else random.Random())
        self.secret = rules.adopt(secret)
        self.history: list[tuple[Code, Feedback]] = []

    def __iter__(self) -> Iterator[tuple[Code, Feedback]]:
        return iter(self.history)

    def guess(self, code: Code | str) -> Feedback:
        """Play a guess and return its score."""
        if self.is_over:
            raise GameOverError("the game is over: no more guesses")
        guess = self.rules.adopt(code)
        feedback = score(self.secret, guess)
        self.history.append((guess, feedback))
        return feedback

    def pop(self) -> tuple[Code, Feedback]:
        """Take back the last guess."""
        if not self.history:
            raise IllegalMoveError("no guess to take back")
        return self.history.pop()

    def copy(self) -> Game:
        """An independent copy of this game."""
        other = Game(self.rules, self.secret)
        other.history = list(self.history)
        return other

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        return outcome_of(self.rules, self.history, lambda: self.secret)


def outcome_of(
    rules: Rules,
    history: Sequence[tuple[Code, Feedback]],
    secret: Callable[[], Code | None],
    *,
    resigned: bool = False,
) -> Outcome | None:
    """How a game with these scored guesses ended (``None`` while it goes on); ``secret`` is asked only
    once the game is over."""
    if history and history[-1][1] == rules.win:
        termination = Termination.SOLVED
    elif len(history) >= rules.rows:
        termination = Termination.OUT_OF_ROWS
    elif resigned:
        termination = Termination.RESIGNED
    else:
        return None
    return Outcome(termination, len(history), secret())


@dataclass(frozen=True)
class MatchGame:
    """One finished game of a match, from the codemaker's side."""

    codemaker: str
    codebreaker: str
    guesses: int
    broken: bool
    key_pegs: int = 0

    def points(self, per: str) -> int:
        """The codemaker's points: a point per guess plus one if the code held (``guesses``),
        or a point per key peg placed (``key-pegs``)."""
        if per == "key-pegs":
            return self.key_pegs
        return self.guesses + (0 if self.broken else 1)


@dataclass
class Match:
    """An even number of games agreed in advance; the players take turns as codemaker.

    >>> match = Match(("ann", "bob"), games=2)
    >>> match.roles()
    ('ann', 'bob')
    >>> match.record_game(5, broken=True)
    >>> match.roles(), match.points()
    (('bob', 'ann'), {'ann': 5, 'bob': 0})
    """

    players: tuple[str, str]
    games: int = 2
    points_per: str = "guesses"
    """What earns the codemaker a point: each ``guesses`` (and one more if the code holds), or each key peg
    placed (``key-pegs``); saved under the key ``scoring``."""
    played: list[MatchGame] = field(default_factory=list)

    def __post_init__(self) -> None:
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 2 or self.games % 2:
            raise InvalidArgumentError(f"a match has an even number of games, at least 2; got {self.games!r:.60}")
        if self.points_per not in ("guesses", "key-pegs"):
            raise InvalidArgumentError(
                f"a match's points are per 'guesses' or per 'key-pegs', not {self.points_per!r:.60}"
            )
        if isinstance(self.players, str) or not isinstance(self.players, Sequence) or len(self.players) != 2:
            raise InvalidArgumentError(f"a match is between two players, not {self.players!r:.60}")
        if self.players[0] == self.players[1]:
            raise InvalidArgumentError(f"a match needs two different players, not {self.players[0]!r:.60} twice")

    @property
    def is_over(self) -> bool:
        """Whether every agreed game has been played."""
        return len(self.played) >= self.games

    def roles(self) -> tuple[str, str]:
        """(codemaker, codebreaker) of the next game."""
        if self.is_over:
            raise KeypegError("the match is over")
        first, second = self.players
        return (first, second) if len(self.played) % 2 == 0 else (second, first)

    def record_game(self, guesses: int, *, broken: bool, key_pegs: int = 0) -> None:
        """Record the next game's result."""
        for name, count in (("guesses", guesses), ("key_pegs", key_pegs)):
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise InvalidArgumentError(f"{name} must be a whole number from 0, not {count!r:.60}")
        maker, breaker = self.roles()
        self.played.append(MatchGame(maker, breaker, guesses, broken, key_pegs))

    def record(self, game: Board) -> None:
        """Record a finished game (a :class:`Game` or a play session). A codebreaker who resigns is
        scored as if every row was used; a codemaker who stops scoring gives up the code as broken."""
        outcome = game.outcome()
        if outcome is None:
            raise KeypegError("the game is not over yet")
        pegs = sum(f.black + f.white for _, f in game.history)
        if outcome.termination is Termination.RESIGNED:
            maker_left = getattr(game, "role", "breaker") == "maker"  # the person scored the computer's guesses
            self.record_game(outcome.guesses if maker_left else game.rules.rows, broken=maker_left, key_pegs=pegs)
        else:
            self.record_game(outcome.guesses, broken=outcome.solved, key_pegs=pegs)

    def points(self) -> dict[str, int]:
        """Points of each player so far."""
        totals = dict.fromkeys(self.players, 0)
        for game in self.played:
            totals[game.codemaker] += game.points(self.points_per)
        return totals

    def winner(self) -> str | None:
        """The player with the most points once the match is over (``None`` for a draw or while playing)."""
        if not self.is_over:
            return None
        (a, pa), (b, pb) = self.points().items()
        return None if pa == pb else (a if pa > pb else b)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready state, to save and resume."""
        return {
            "keypeg_match": 1,
            "players": list(self.players),
            "games": self.games,
            "scoring": self.points_per,
            "played": [vars(g) for g in self.played],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """A match from :meth:`as_dict` data; a damaged one raises :class:`KeypegError`."""
        try:
            if data.get("keypeg_match") != 1:
                raise KeypegError("not a keypeg match file")
            players = tuple(data["players"])
            if not all(isinstance(name, str) for name in players):
                raise KeypegError(f"damaged match file: players must be names, not {players!r}")
            match = cls(players, int(data["games"]), str(data["scoring"]))
            for game in data["played"]:
                roles = (str(game["codemaker"]), str(game["codebreaker"]))
                guesses, key_pegs = int(game["guesses"]), int(game.get("key_pegs", 0))
                if match.is_over or roles != match.roles() or guesses < 0 or key_pegs < 0:
                    raise KeypegError(f"damaged match file: game {len(match.played) + 1} cannot be {game!r}")
                match.record_game(guesses, broken=bool(game["broken"]), key_pegs=key_pegs)
            return match
        except KeypegError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError, RecursionError) as error:
            raise KeypegError(f"damaged match file: {error.__class__.__name__}: {error}") from None
