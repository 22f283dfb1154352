"""Watch the computer play: a strategy breaks a secret step by step, each step with the codes left before
and after it and why the strategy chose its guess (its own figures, :attr:`Choice.ranked`, as the game
page's "How the computer chose its guess" shows them).

The game is the computer's own: the secret is drawn from a seed (or given), and shown. Each decision is
the one :class:`~keypeg.play.sessions.SolveSession` makes (:func:`keypeg.play.levels.strategy_for`, then
:func:`~keypeg.play.levels.advise_with`), guarded first by the face's check (the web's budget) with the
estimate :func:`keypeg.analysis.advice.decision_cost` gives: a decision the optimal strategy reads from a
solved tree is never checked. A finished game is kept in memory (a few hundred at most), so a reload or a
second viewer of the same address is answered without any check.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from keypeg.code import Code, Feedback
from keypeg.feedback import score
from keypeg.game import random_code
from keypeg.rules import Rules
from keypeg.services.games import EXPLAIN_TOP, check_thinkable
from keypeg.strategies import NAMES, canonical_name
from keypeg.text import plural

if TYPE_CHECKING:
    from keypeg.analysis.cost import Estimate
    from keypeg.strategies import Choice, Ranked

__all__ = ["DEFAULT_STRATEGY", "SEEDED", "STRATEGIES", "Step", "WatchedGame", "reason", "watch", "forget_games"]

DEFAULT_STRATEGY = "worst-case"
"""The strategy a viewer sees unless they pick another (Knuth's)."""
STRATEGIES = NAMES
"""Every codebreaker of the registry may be watched (a decision too costly for the rules is refused)."""
SEEDED = frozenset({"random", "careless", "genetic"})
"""The strategies that draw at random: the game's seed is theirs too, so an address replays the same game."""
KEPT_GAMES = 256
"""How many finished games are kept in memory (the least recently watched are forgotten first)."""

Check = Callable[["Estimate"], None]
"""A guard: returns when the work may go ahead, raises :class:`~keypeg.analysis.cost.TooCostlyError` if not."""


@dataclass(frozen=True)
class Step:
    """One guess of a watched game: the codes that fit before it and after its score, and its reason."""

    number: int
    guess: Code
    feedback: Feedback
    before: int
    """Codes that fit the scores before this guess."""
    after: int
    """Codes that fit once this guess is scored (1 when it broke the code)."""
    fitting: int | None
    """The codes the strategy counted (``None`` where it does not count them: the genetic codebreaker)."""
    over: str
    """What the figures split (:attr:`keypeg.strategies.Choice.over`)."""
    measure: str
    """What the strategy's costs measure (:attr:`keypeg.strategies.Choice.measure`)."""
    ranked: tuple[Ranked, ...]
    """The guess played first, then the runners-up, each with its figures (the strategy's own)."""
    forgotten: tuple[int, ...]
    """The earlier guesses (from 1) whose scores this guess contradicts: a careless player's forgetting."""
    reason: str
    """Why the strategy chose the guess, in one line (:func:`reason`)."""
    broke: bool
    """Whether this guess broke the code."""

    @property
    def chosen(self) -> Ranked:
        """The guess played with its figures."""
        return self.ranked[0]


@dataclass(frozen=True)
class WatchedGame:
    """A whole game the computer played: the rules, the strategy, the secret and the steps."""

    rules: Rules
    asked: str
    """The strategy asked for (the registry's name)."""
    strategy: str
    """The strategy that played (another when the one asked for cannot: see :attr:`note`)."""
    note: str | None
    about: str
    """What the strategy that played does, in one line."""
    secret: Code
    seed: int
    steps: tuple[Step, ...]
    cached: bool = False
    """Whether the game was kept from an earlier request rather than played now."""

    @property
    def solved(self) -> bool:
        """Whether the computer broke the code within the rows."""
        return bool(self.steps) and self.steps[-1].broke

    @property
    def outcome(self) -> str:
        """One line: broken in how many guesses, or not within the rows."""
        if self.solved:
            return f"The computer broke the code in {plural(len(self.steps), 'guess', 'guesses')}."
        return f"The code held: the computer did not break it within the {plural(self.rules.rows, 'row')}."


def reason(strategy: str, choice: Choice, forgotten: tuple[int, ...] = ()) -> str:
    """Why ``strategy`` played ``choice``'s guess, in one line, from the figures it ranked by: the split of
    the codes it counted, with the figure its measure uses (the largest part, the expected size, the
    entropy, or the parts). What the strategy does in general is its :attr:`Strategy.about`."""
    chosen = choice.chosen
    if chosen.figures is None:  # the genetic codebreaker's opening, before any score
        return "Its opening guess, played before any score: there is nothing to split yet."
    figures = chosen.split
    if figures.size == 1 and chosen.fits:
        return "Only one code fits the scores: it plays it."
    if choice.over == "eligible set":
        what = f"its eligible set of {plural(figures.size, 'code')} (the codes it found that fit)"
    else:
        what = f"the {plural(figures.size, 'code')} that fit"
    parts = plural(figures.number_of_parts, "part")
    if strategy == "expected-size":
        said = f"It splits {what} into {parts}, leaving {figures.expected_size:,.1f} codes on average."
    elif strategy == "entropy":
        said = f"It splits {what} into {parts}: {figures.entropy:.2f} bits of information."
    elif strategy in ("simple", "random", "careless") and chosen.fits:
        said = f"It could be the secret: one of {what}."
    else:  # worst-case, most parts, two-step, optimal, genetic, and a careless guess that cannot win
        said = f"It splits {what} into {parts}, the largest {figures.largest:,}."
    if forgotten:
        if len(forgotten) == 1:
            said += f" It forgot the score of guess {forgotten[0]}."
        else:
            numbers = ", ".join(str(n) for n in forgotten[:-1])
            said += f" It forgot the scores of guesses {numbers} and {forgotten[-1]}."
    return said


class _Kept:
    """The finished games, most recently watched last (thread-safe)."""

    def __init__(self, size: int) -> None:
        self._games: OrderedDict[tuple[object, ...], WatchedGame] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, key: tuple[object, ...]) -> WatchedGame | None:
        with self._lock:
            found = self._games.get(key)
            if found is not None:
                self._games.move_to_end(key)
            return found

    def put(self, key: tuple[object, ...], game: WatchedGame) -> None:
        with self._lock:
            self._games[key] = game
            self._games.move_to_end(key)
            while len(self._games) > self._size:
                self._games.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._games.clear()


_KEPT = _Kept(KEPT_GAMES)


def forget_games() -> None:
    """Forget the games kept (tests)."""
    _KEPT.clear()


def watch(rules: Rules, strategy: str, *, seed: int, secret: Code | str | None = None, check: Check) -> WatchedGame:
    """The computer's game with ``strategy`` on ``rules`` against ``secret`` (drawn from ``seed`` when not
    given; the seed is also the strategy's, for those that draw): every step with its figures and reason.

    Bad input (an unknown strategy, a code the rules refuse, a negative seed) raises a ``ValueError`` kind;
    rules too large for the computer to think on here :class:`~keypeg.errors.TooLargeError`; a decision
    ``check`` refuses :class:`~keypeg.analysis.cost.TooCostlyError`. A kept game is answered without any check.
    """
    from keypeg.errors import KeypegError

    name = canonical_name(strategy)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise KeypegError(f"a seed is a whole number from 0, not {seed!r}")
    check_thinkable(rules, "watching the computer play")
    code = random_code(rules, random.Random(seed)) if secret is None else rules.adopt(secret)
    key = (rules, name, str(code), seed if name in SEEDED else None)  # rules compare their rows and symbols
    kept = _KEPT.get(key)
    if kept is not None:
        return replace(kept, seed=seed, cached=True)
    game = _play(rules, name, code, seed, check)
    _KEPT.put(key, game)
    return game


def _play(rules: Rules, name: str, secret: Code, seed: int, check: Check) -> WatchedGame:
    """Play the game: each decision checked, then made as a :class:`SolveSession` makes it."""
    from keypeg.analysis.advice import decision_cost
    from keypeg.knowledge import Knowledge
    from keypeg.play.levels import advise_with, strategy_for
    from keypeg.strategies import find_strategy

    player, note = strategy_for(name, rules, seed=seed if name in SEEDED else None)
    knowledge = Knowledge(rules)
    steps: list[Step] = []
    while len(steps) < rules.rows:
        cost = decision_cost(player, knowledge)
        if cost is not None:
            check(cost)
        choice = advise_with(player, knowledge, top=EXPLAIN_TOP)
        guess = choice.guess
        feedback = score(secret, guess)
        forgotten = tuple(
            k
            for k, (past, given) in enumerate(knowledge.history, 1)
            if player.name == "careless" and score(guess, past) != given
        )
        after = knowledge.add(guess, feedback)
        steps.append(
            Step(
                number=len(steps) + 1,
                guess=guess,
                feedback=feedback,
                before=knowledge.count,
                after=after.count,
                fitting=choice.fitting,
                over=choice.over,
                measure=choice.measure,
                ranked=choice.ranked,
                forgotten=forgotten,
                reason=reason(player.name, choice, forgotten),
                broke=feedback == rules.win,
            )
        )
        knowledge = after
        if feedback == rules.win:
            break
    about = find_strategy(player.name).about
    return WatchedGame(rules, name, player.name, note, about, secret, seed, tuple(steps))
