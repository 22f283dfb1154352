"""Play sessions: the rules of a game in progress, as plain objects with no input or output.

- :class:`BreakSession`: a person breaks the computer's code (any :mod:`codemaker <keypeg.play.codemakers>`).
- :class:`SolveSession`: the computer breaks a person's code and the person scores each guess;
  impossible and contradictory scores are refused with the likely mistake named.

A front end asks a session what may happen next (:meth:`actions`), makes a move, and
renders what the session says; an illegal move raises a typed error
(:class:`~keypeg.errors.IllegalMoveError`, :class:`~keypeg.errors.InvalidCodeError`,
:class:`~keypeg.errors.InvalidFeedbackError`, :class:`~keypeg.errors.InconsistentScoreError`).
Every session turns into a public state and a private secret (:meth:`to_state`) and back
(:func:`session_from_state`), so the store can keep a game between processes.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from keypeg.code import Code, Feedback
from keypeg.errors import GameOverError, IllegalMoveError, InconsistentScoreError, KeypegError, TooLargeError
from keypeg.feedback import score
from keypeg.game import Board, Outcome, outcome_of
from keypeg.history import FeedbackLike, History, read_feedback
from keypeg.play.codemakers import Codemaker, codemaker_from_state
from keypeg.play.levels import LEVELS
from keypeg.rules import Rules
from keypeg.strategies import scores_every_code

if TYPE_CHECKING:
    from keypeg.knowledge import Knowledge
    from keypeg.play.coach import Review
    from keypeg.strategies import Choice, Strategy

__all__ = ["Action", "Help", "BreakSession", "SolveSession", "Session", "session_from_state", "STATE_VERSION"]

STATE_VERSION = 1


class Action(enum.Enum):
    """What a front end may offer next."""

    GUESS = "guess"
    SCORE = "score"
    UNDO = "undo"
    FIX = "fix"
    HINT = "hint"
    EXPLAIN = "explain"
    COACH = "coach"
    RESIGN = "resign"


class Help(enum.Enum):
    """Help that makes a game unrated."""

    HINT = "hint"
    EXPLAIN = "explain"
    COACH = "coach"
    UNDO = "undo"
    """A guess taken back after its score was shown."""


def _codes(history: Sequence[tuple[Code, Feedback]]) -> list[list[int]]:
    return [[*guess.colors, feedback.black, feedback.white] for guess, feedback in history]


def _history(rules: Rules, rows: Any) -> list[tuple[Code, Feedback]]:
    try:
        return [(rules.code(row[:-2]), rules.check_feedback(Feedback(int(row[-2]), int(row[-1])))) for row in rows]
    except (TypeError, ValueError, IndexError) as error:
        raise KeypegError(f"damaged game state: {error}") from None


class _Game(Board):
    """What both kinds of session share besides the board: their kind, the person's role, knowledge."""

    kind: ClassVar[str]
    role: ClassVar[str]
    """The person's role, as the store records it."""
    resigned: bool

    @property
    def rated(self) -> bool:
        """Whether the game counts on the leaderboard (only a person's game as codebreaker can)."""
        return False

    def knowledge(self) -> Knowledge:
        """What the scores so far tell."""
        from keypeg.knowledge import Knowledge

        return Knowledge(self.rules, tuple(self.history))

    def __repr__(self) -> str:  # never the secret
        outcome = self.outcome()
        state = "in play" if outcome is None else outcome.termination.value
        guesses = f"{len(self.history)} guess{'es' if len(self.history) != 1 else ''}"
        return f"<{type(self).__name__} {self.rules.describe()}: {guesses}, {self.rows_left} rows left, {state}>"


def _fair(codemaker: Codemaker) -> bool:
    """Whether nobody could know the codemaker's secret in advance: the computer drew it unpredictably."""
    return codemaker.kind == "random" and codemaker.unpredictable


class BreakSession(_Game):
    """A person breaks the code of ``codemaker`` under ``rules``.

    ``session.rules`` is the game's :class:`~keypeg.Rules`, ``session.history`` the scored guesses so far (an
    immutable :class:`~keypeg.History`, replaced at each move). The API is :func:`keypeg.break_code` to make
    one, then :meth:`guess`, :meth:`undo`, :meth:`hint`, :meth:`explain`, :meth:`resign`, :meth:`outcome`,
    :attr:`secret`, :attr:`rows_left` and :attr:`is_over`; :meth:`new`, :meth:`actions`, :meth:`review`,
    :meth:`knowledge`, :meth:`to_state` and :meth:`from_state` serve keypeg's own terminal and web faces.

    >>> from keypeg import break_code
    >>> game = break_code(Rules(4, 6), secret="ABCD")
    >>> game.guess("AABB"), game.rows_left, game.secret
    (Feedback(black=1, white=1), 11, None)
    >>> game.guess("ABCD"), game.outcome().solved, str(game.secret)
    (Feedback(black=4, white=0), True, 'ABCD')
    """

    kind: ClassVar[str] = "break"
    role: ClassVar[str] = "breaker"

    def __init__(self, rules: Rules, codemaker: Codemaker, *, helps: bool = True) -> None:
        self.rules = rules
        self.codemaker = codemaker
        self.helps = helps
        """Whether help (undo, hints, explain, the coach) may be asked for at all: not in a rated game,
        not in a match."""
        self.history: History = History(rules)
        """The scored guesses so far: an immutable :class:`keypeg.History`, replaced at each move."""
        self.help_used: set[Help] = set()
        self.resigned = False

    # -- what a front end shows ---------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """How the game ended (with the secret), or ``None`` while it goes on."""
        return outcome_of(self.rules, self.history, self.codemaker.reveal, resigned=self.resigned)

    @property
    def secret(self) -> Code | None:
        """The secret once the game is over; ``None`` while it is played."""
        outcome = self.outcome()
        return outcome.secret if outcome is not None else None

    @classmethod
    def new(cls, rules: Rules, codemaker: Codemaker, *, practice: bool = False) -> BreakSession:
        """A game as a player starts one: rated, with no help offered, when the secret is the computer's
        and nobody could know it in advance, unless ``practice`` is asked for; a practice game (or one
        with a secret that is set, seeded or adversarial) offers undo, hints, explain and the coach."""
        return cls(rules, codemaker, helps=practice or not _fair(codemaker))

    @property
    def rated(self) -> bool:
        """Whether the game counts on the leaderboard: a random secret nobody could know in advance, and
        no help offered (so none can have been used). A rated game counts from its start: lost,
        resigned or left unfinished, it counts as a loss."""
        return _fair(self.codemaker) and not self.helps

    def actions(self) -> frozenset[Action]:
        """What may happen next."""
        if self.is_over:
            return frozenset()
        found = {Action.GUESS, Action.RESIGN}
        if self.helps:
            found |= {Action.HINT, Action.EXPLAIN}
            if self.history:
                found.add(Action.COACH)
                if self.codemaker.kind != "adversarial":
                    found.add(Action.UNDO)
        return frozenset(found)

    # -- moves --------------------------------------------------------------------------------

    def guess(self, code: Code | str) -> Feedback:
        """Play a guess; its score."""
        if self.is_over:
            raise GameOverError("the game is over: no more guesses")
        guess = self.rules.adopt(code)
        feedback = self.codemaker.answer(guess)
        self.history = self.history.add(guess, feedback)
        return feedback

    def undo(self) -> tuple[Code, Feedback]:
        """Take back the last guess (its score was shown, so this counts as help)."""
        if self.is_over:
            raise GameOverError("the game is over: nothing to undo")
        if not self.history:
            raise IllegalMoveError("nothing to undo")
        if not self.helps:
            raise IllegalMoveError(f"no undo in {self._no_help_game}")
        self.codemaker.take_back()
        self.help_used.add(Help.UNDO)
        last = self.history[-1]
        self.history = History(self.rules, self.history[:-1])
        return last

    def resign(self) -> Outcome:
        """Give up: the game ends, unsolved, and the secret is shown."""
        if self.is_over:
            raise GameOverError("the game is over already")
        self.resigned = True
        outcome = self.outcome()
        assert outcome is not None
        return outcome

    # -- help (each use makes the game unrated) -------------------------------------------------

    def hint(self) -> Code:
        """A good next guess (level 3's)."""
        from keypeg.play.levels import level_choice

        self._helped(Help.HINT)
        return level_choice(self.knowledge()).guess

    def explain(self, top: int = 4) -> Choice:
        """The best next guesses with the figures behind them."""
        from keypeg.play.levels import level_choice

        self._helped(Help.EXPLAIN)
        return level_choice(self.knowledge(), top=top)

    def review(self) -> Review:
        """The coach's view of the last guess."""
        from keypeg.knowledge import Knowledge
        from keypeg.play.coach import review

        if not self.history:
            raise IllegalMoveError("no guess to review yet")
        if not scores_every_code(self.rules):
            raise TooLargeError(f"{self.rules.size:,} codes are too many to review guesses")
        if not self.is_over:  # a finished game's review is only a look back
            self._helped(Help.COACH)
        guess, feedback = self.history[-1]
        return review(Knowledge(self.rules, tuple(self.history[:-1])), guess, feedback)

    def _helped(self, kind: Help) -> None:
        if self.is_over:
            raise GameOverError("the game is over")
        if not self.helps:
            raise IllegalMoveError(f"no {kind.value} in {self._no_help_game}")
        self.help_used.add(kind)

    _no_help_game = "a rated game or a match game (a practice game offers undo, hints and the coach)"

    # -- saving ---------------------------------------------------------------------------------

    def to_state(self) -> tuple[dict[str, Any], Code | None]:
        """The public state (never the secret of a game in progress) and the secret for the private side."""
        state = {
            "keypeg_session": STATE_VERSION,
            "kind": self.kind,
            "rules": self.rules.as_dict(),
            "codemaker": self.codemaker.public_state(),
            "history": _codes(self.history),
            "help": sorted(h.value for h in self.help_used),
            "helps": self.helps,
            "resigned": self.resigned,
        }
        return state, self.codemaker.hidden()

    @classmethod
    def from_state(cls, state: dict[str, Any], secret: Code | None) -> BreakSession:
        """A session from :meth:`to_state`."""
        rules = Rules.from_dict(state["rules"])
        history = _history(rules, state["history"])
        maker = codemaker_from_state(rules, state["codemaker"], rules.adopt(secret) if secret else None, history)
        session = cls(rules, maker, helps=bool(state.get("helps", True)))
        session.history = History(rules, tuple(history))
        session.help_used = {Help(h) for h in state.get("help", ())}
        session.resigned = bool(state.get("resigned", False))
        return session


class SolveSession(_Game):
    """The computer, at ``level``, breaks a code a person keeps in mind; the person scores each guess.

    ``session.rules`` is the game's :class:`~keypeg.Rules`, ``session.history`` the scored guesses so far (an
    immutable :class:`~keypeg.History`, replaced at each move). The API is :func:`keypeg.make_code` (or this
    class) to make one, then :meth:`guess`, :meth:`score`, :meth:`fix`, :meth:`forgotten`, :meth:`choice`,
    :meth:`undo`, :meth:`resign`, :meth:`outcome`, :attr:`rows_left` and :attr:`is_over`; :meth:`actions`,
    :meth:`knowledge`, :meth:`to_state` and :meth:`from_state` serve keypeg's own terminal and web faces.

    >>> from keypeg import score
    >>> rules, secret = Rules(3, 3), Rules(3, 3).parse("CAB")
    >>> game = SolveSession(rules, level=3)
    >>> while not game.is_over:
    ...     game.score(score(secret, game.guess()))
    >>> game.outcome().solved, str(game.outcome().secret)
    (True, 'CAB')
    """

    kind: ClassVar[str] = "solve"
    role: ClassVar[str] = "maker"

    def __init__(self, rules: Rules, *, level: int = 3, seed: int | None = None, top: int = 1) -> None:
        from keypeg.play.levels import strategy_for

        if level not in LEVELS:
            raise KeypegError(f"level must be 1 to 4, not {level!r}")
        self.rules = rules
        self.level = level
        self.seed = seed
        self.top = top if scores_every_code(rules) else 1
        """How many guesses :meth:`choice` explains (1: the computer's guess alone, as on games too large
        to score every code)."""
        self.strategy: Strategy
        self.strategy, self.note = strategy_for(LEVELS[level].strategy, rules, seed=seed)
        self.history: History = History(rules)
        """The scored guesses so far: an immutable :class:`keypeg.History`, replaced at each move."""
        self.resigned = False
        self._choice: Choice | None = None
        self._kept_guess: Code | None = None
        """The guess awaiting a score as a saved state named it (so loading a game does not think again)."""
        self._rng_before: dict[str, Any] | None = None

    # -- what a front end shows ---------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on (the secret is known only if broken)."""

        def broken() -> Code | None:
            guess, feedback = self.history[-1] if self.history else (None, None)
            return guess if feedback == self.rules.win else None

        return outcome_of(self.rules, self.history, broken, resigned=self.resigned)

    def actions(self) -> frozenset[Action]:
        """What may happen next."""
        if self.is_over:
            return frozenset()
        found = {Action.SCORE, Action.RESIGN}
        if self.history:
            found |= {Action.UNDO, Action.FIX}
        return frozenset(found)

    def choice(self) -> Choice:
        """The computer's guess awaiting a score, with the figures behind it (:attr:`top` guesses)."""
        if self.is_over:
            raise GameOverError("the game is over: no more guesses")
        if self._choice is None:
            rng = getattr(self.strategy, "rng", None)
            self._rng_before = rng.bit_generator.state if rng is not None else None
            from keypeg.play.levels import advise_with

            self._choice = advise_with(self.strategy, self.knowledge(), top=self.top)
        return self._choice

    def forgotten(self) -> list[int]:
        """The guesses (numbered from 1) whose scores the guess awaiting a score contradicts: those the
        computer forgot (level 1 forgets scores now and then); none when the guess could be the code."""
        guess = self.guess()
        return [k for k, (past, given) in enumerate(self.history, 1) if score(guess, past) != given]

    def guess(self) -> Code:
        """The computer's guess awaiting a score."""
        if self._choice is None and self._kept_guess is not None and not self.is_over:
            return self._kept_guess
        return self.choice().guess

    # -- moves ---------------------------------------------------------------------------------

    def score(self, feedback: FeedbackLike) -> None:
        """Score the computer's guess (:meth:`guess`: the same guess whether or not it was asked for first)
        with a :class:`Feedback`, a ``(black, white)`` pair or text, as :meth:`keypeg.History.add` takes
        it; an impossible score raises :class:`InvalidFeedbackError`, one that contradicts the scores
        before it :class:`InconsistentScoreError` (naming the likely mistake)."""
        guess = self.guess()
        given = self._feedback(feedback)
        self._replace([*self.history, (guess, given)])

    def undo(self) -> tuple[Code, Feedback]:
        """Take back the last score."""
        if self.is_over:
            raise GameOverError("the game is over: nothing to undo")
        if not self.history:
            raise IllegalMoveError("no score to undo")
        last = self.history[-1]
        self._replace(self.history[:-1])
        return last

    def fix(self, number: int, feedback: FeedbackLike) -> None:
        """Correct the score of guess ``number`` (from 1), if the scores then fit some code. The winning
        score says that guess was the code: the game ends there, and the guesses after it are dropped."""
        if self.is_over:
            raise GameOverError("the game is over")
        if not self.history:
            raise IllegalMoveError("no guess has been scored yet: there is nothing to correct")
        if not 1 <= number <= len(self.history):
            raise IllegalMoveError(f"there is no guess {number!r}: guesses are numbered 1 to {len(self.history)}")
        given = self._feedback(feedback)
        history = list(self.history)
        history[number - 1] = (history[number - 1][0], given)
        self._replace(history[:number] if given == self.rules.win else history)

    def resign(self) -> Outcome:
        """Stop: the person wins this one; the game's outcome (as :meth:`BreakSession.resign` gives)."""
        if self.is_over:
            raise GameOverError("the game is over already")
        self.resigned = True
        outcome = self.outcome()
        assert outcome is not None
        return outcome

    def _feedback(self, value: FeedbackLike) -> Feedback:
        return read_feedback(self.rules, value)

    def _replace(self, history: Sequence[tuple[Code, Feedback]]) -> None:
        from keypeg.knowledge import Knowledge

        knowledge = Knowledge(self.rules, tuple(history))
        if not knowledge.is_consistent:
            result = knowledge.check()
            raise InconsistentScoreError(result.message(), result)
        self.history = History(self.rules, tuple(history))
        self._choice = None
        self._kept_guess = None

    # -- saving ---------------------------------------------------------------------------------

    def to_state(self) -> tuple[dict[str, Any], Code | None]:
        """The public state; there is no secret (the person keeps it)."""
        if not self.is_over and self._kept_guess is None:
            self.choice()  # fixes the guess awaiting a score, and the generator's state before it
        state = {
            "keypeg_session": STATE_VERSION,
            "kind": self.kind,
            "rules": self.rules.as_dict(),
            "level": self.level,
            "seed": self.seed,
            "top": self.top,
            "history": _codes(self.history),
            "resigned": self.resigned,
            "generator": self._rng_before,
            "guess": None if self.is_over else str(self.guess()),
        }
        return state, None

    @classmethod
    def from_state(cls, state: dict[str, Any], secret: Code | None = None) -> SolveSession:
        """A session from :meth:`to_state`: the same guess awaits a score."""
        rules = Rules.from_dict(state["rules"])
        session = cls(rules, level=int(state["level"]), seed=state.get("seed"), top=int(state.get("top", 1)))
        session.history = History(rules, tuple(_history(rules, state["history"])))
        session.resigned = bool(state.get("resigned", False))
        generator = state.get("generator")
        rng = getattr(session.strategy, "rng", None)
        if generator is not None and rng is not None:
            try:
                rng.bit_generator.state = generator
            except (TypeError, ValueError, KeyError) as error:
                raise KeypegError(f"damaged game state: {error}") from None
        session._rng_before = generator
        kept = state.get("guess")
        if isinstance(kept, str) and not session.is_over:
            session._kept_guess = rules.parse(kept)
        return session


Session = BreakSession | SolveSession
"""Any single-game session."""


def session_from_state(state: dict[str, Any], secret: Code | None) -> Session:
    """The session a saved state describes; a damaged state raises :class:`KeypegError`."""
    try:
        if state.get("keypeg_session") != STATE_VERSION:
            raise KeypegError("not a keypeg game state")
        kind = state.get("kind")
        if kind == BreakSession.kind:
            return BreakSession.from_state(state, secret)
        if kind == SolveSession.kind:
            return SolveSession.from_state(state, secret)
        raise KeypegError(f"damaged game state: unknown kind {kind!r}")
    except KeypegError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise KeypegError(f"damaged game state: {error.__class__.__name__}: {error}") from None
