"""keypeg's codebreakers as policies over the environment, and :func:`evaluate`, which plays a policy over many
secrets: an agent is compared with Knuth or the optimum in three lines.

A policy is called with an observation and its info and answers an action (``policy(observation, info)``);
:meth:`Policy.bind` ties it to an environment's rules first (:func:`evaluate` does that). Any callable
``(observation, info) -> action`` can be evaluated, an agent's too.

>>> from keypeg.envs import RandomPolicy, StrategyPolicy, evaluate
>>> print(evaluate(StrategyPolicy("knuth"), variant="3x3"))
knuth on 3x3: 27 games, 74 guesses, average 2.741, worst 4, 0 failures
>>> print(evaluate(RandomPolicy(), variant="3x3", episodes=10, seed=7).games)
10
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Self

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from keypeg.arguments import checked_seed, true_or_false
from keypeg.code import Code, Feedback
from keypeg.envs.board import decode_board
from keypeg.envs.mastermind import MastermindEnv
from keypeg.errors import IllegalMoveError, InvalidArgumentError, KeypegError, TooLargeError
from keypeg.history import History
from keypeg.rules import Rules
from keypeg.strategy_tree import StrategyTree
from keypeg.text import plural, quoted
from keypeg.variants import game_label

__all__ = ["Policy", "RandomPolicy", "StrategyPolicy", "Evaluation", "evaluate"]

_RANDOM_POLICY_TAG = 0x72616E64
"""Mixed into a :class:`RandomPolicy`'s seed (``"rand"``)."""

PolicyLike = Callable[[Any, Mapping[str, Any]], int]
"""What :func:`evaluate` plays: a :class:`Policy`, or any callable ``(observation, info) -> action``."""


def _board_and_mask(observation: Any, info: Mapping[str, Any]) -> tuple[Any, npt.NDArray[np.int8] | None]:
    """The board and the action mask, from this package's Gymnasium observation and info, or from a
    PettingZoo-style observation ``{"observation": board, "action_mask": mask}``."""
    if isinstance(observation, Mapping):
        return observation["observation"], observation.get("action_mask")
    return observation, info.get("action_mask")


def _legal(observation: Any) -> npt.NDArray[np.int8] | None:
    """The mask of the moves the environment allows, when it allows only some: a PettingZoo-style
    observation's ``action_mask`` with a zero in it (the Gymnasium env's ``info["action_mask"]`` only says
    which codes still fit: any code may be played there)."""
    if isinstance(observation, Mapping):
        mask = observation.get("action_mask")
        if mask is not None and not np.all(np.asarray(mask)):
            return np.asarray(mask)
    return None


class Policy(ABC):
    """A codebreaker over an environment's actions: ``policy(observation, info) -> action``."""

    name: str = "policy"
    """How results name the policy."""

    def __init__(self) -> None:
        self._env: Any = None

    def bind(self, env: gym.Env[Any, Any] | Any, *, seed: int | None = None) -> Self:
        """Play ``env``'s game (a :class:`~keypeg.envs.MastermindEnv`, wrapped or not, or any environment whose
        ``unwrapped`` has ``rules``, ``code`` and ``action``); ``seed`` reseeds a policy that draws at random.
        Returns the policy."""
        checked_seed(seed)
        unwrapped = getattr(env, "unwrapped", env)
        if not all(hasattr(unwrapped, name) for name in ("rules", "code", "action")):
            raise InvalidArgumentError(f"a policy plays one of keypeg's environments, not {quoted(env, 60)}")
        self._env = unwrapped
        return self

    @property
    def rules(self) -> Rules:
        """The rules of the environment the policy is bound to."""
        return self._bound().rules  # type: ignore[no-any-return]

    def _bound(self) -> Any:
        if self._env is None:
            raise IllegalMoveError(f"bind the policy to an environment first: {self.name}.bind(env)")
        return self._env

    @abstractmethod
    def __call__(self, observation: Any, info: Mapping[str, Any]) -> int:
        """The action to play on ``observation`` (``info`` holds the action mask)."""


class RandomPolicy(Policy):
    """A code drawn uniformly from those that still fit (``info["action_mask"]``), or from every code when
    no mask is given: the baseline any agent should beat.

    >>> env = MastermindEnv(variant="3x3")
    >>> policy = RandomPolicy(seed=1).bind(env)
    >>> observation, info = env.reset(seed=1)
    >>> bool(info["action_mask"][policy(observation, info)])
    True
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self._rng = self._generator(checked_seed(seed))

    @staticmethod
    def _generator(seed: int | None) -> np.random.Generator:
        """Draws of the policy's own: seeded by ``seed`` and a tag, so that under the seed an environment's
        secrets were drawn with, the policy never draws the same numbers (it would guess the secret at once)."""
        return np.random.default_rng(None if seed is None else (seed, _RANDOM_POLICY_TAG))

    def bind(self, env: gym.Env[Any, Any] | Any, *, seed: int | None = None) -> Self:
        """As :meth:`Policy.bind`; ``seed`` reseeds the draws."""
        bound = super().bind(env, seed=seed)
        if seed is not None:
            self._rng = self._generator(seed)
        return bound

    def __call__(self, observation: Any, info: Mapping[str, Any]) -> int:
        _, mask = _board_and_mask(observation, info)
        if mask is not None:
            allowed = np.flatnonzero(mask)
            if allowed.size:
                return int(allowed[self._rng.integers(allowed.size)])
        return int(self._rng.integers(int(self._bound().rules.size)))


class StrategyPolicy(Policy):
    """One of keypeg's codebreakers (``keypeg.strategy_names()``: ``"knuth"``, ``"irving"``, ``"kooi"``, ...,
    and ``"optimal"``) as a policy.

    It follows the strategy's whole tree (:func:`keypeg.analyze`; for ``"optimal"``, :func:`keypeg.optimal`,
    the fewest guesses in all), built once per rules when the policy is bound (:meth:`bind`), with
    :meth:`~keypeg.StrategyTree.next_guess`; off the tree (a history another player began) or on a game whose
    tree is too large to build, it asks :func:`keypeg.best_guess` move by move. A board the strategy cannot
    play is refused when the policy is bound, before any game, in one line: ``"optimal"`` on rows too few
    for every secret to be broken (no optimum exists there), or a game whose guesses are too costly to work
    out (``"optimal"`` on super, :class:`~keypeg.errors.TooCostlyError`; ``force=True`` does that work anyway).

    Where the environment allows only some moves (the PettingZoo env's ``hard=True``: its observation's
    ``action_mask`` has zeros), a guess it does not allow is replaced by the strategy's best among the codes
    that still fit (the strategy with its pool of guesses cut to those); should that one still not be allowed
    (``"careless"`` forgets scores, so its idea of what fits is not the environment's), by the first code in
    code order the environment allows. It never plays an illegal move.

    >>> env = MastermindEnv(variant="classic")
    >>> policy = StrategyPolicy("knuth").bind(env)
    >>> observation, info = env.reset(options={"secret": "RGBY"})
    >>> str(env.unwrapped.code(policy(observation, info)))
    'RRGG'
    """

    def __init__(self, strategy: str = "knuth", *, seed: int | None = None, force: bool = False) -> None:
        from keypeg.api import strategy_names
        from keypeg.strategies import canonical_name

        super().__init__()
        if not isinstance(strategy, str):
            raise InvalidArgumentError(
                f"a strategy is named, not {quoted(strategy)}: one of {', '.join(strategy_names())}"
            )
        self.strategy = canonical_name(strategy)
        """The strategy's name (its canonical one: ``"worst-case"`` for ``"knuth"``)."""
        self.name = strategy.strip().lower()
        self.seed = checked_seed(seed)
        self.force = true_or_false(force, "force")
        """Whether work keypeg's cost guard refuses is done anyway (``force=True`` of :func:`keypeg.optimal`,
        :func:`keypeg.analyze` and :func:`keypeg.best_guess`)."""
        self._trees: dict[tuple[tuple[object, ...], int], StrategyTree | None] = {}
        self._openings: dict[tuple[tuple[object, ...], int], Code] = {}

    def bind(self, env: gym.Env[Any, Any] | Any, *, seed: int | None = None) -> Self:
        """As :meth:`Policy.bind`, and the strategy made ready for ``env``'s rules: its tree built (or, past
        the size of a tree, its first guess worked out), so that a board it cannot play is refused here,
        before any game, with the one-line error of :func:`keypeg.optimal`, :func:`keypeg.analyze` or
        :func:`keypeg.best_guess` (the policy named in it)."""
        super().bind(env, seed=seed)
        try:
            if self.tree() is None:
                self.guess([])
        except KeypegError as error:
            label = game_label(self.rules)
            try:
                refusal = type(error)(f"{self.name} cannot play {label}: {error}")
            except TypeError:  # an error that takes more than its message: as it is
                raise error from None
            raise refusal from None
        return self

    def tree(self) -> StrategyTree | None:
        """The tree followed on the bound environment's rules (built on first use; ``None`` when too large)."""
        from keypeg.api import analyze, optimal

        rules = self.rules
        key = (rules.game, rules.rows)
        if key not in self._trees:
            try:
                if self.strategy == "optimal":
                    self._trees[key] = optimal(rules, force=self.force)
                else:
                    self._trees[key] = analyze(rules, self.strategy, seed=self.seed, force=self.force)
            except TooLargeError:
                self._trees[key] = None
        return self._trees[key]

    def guess(self, history: list[tuple[Code, Feedback]]) -> Code:
        """The strategy's guess after ``history``."""
        from keypeg.api import best_guess

        tree = self.tree()
        found = tree.next_guess(history) if tree is not None else None
        if found is None:
            key = (self.rules.game, self.rules.rows)
            if not history and key in self._openings:
                return self._openings[key]
            moves = History(self.rules, tuple(history))
            found = best_guess(moves, strategy=self.strategy, seed=self.seed, force=self.force).guess
            if not history:
                self._openings[key] = found
        return found

    def fitting_guess(self, history: list[tuple[Code, Feedback]]) -> Code:
        """The strategy's best guess after ``history`` among the codes that still fit it (its pool of guesses
        cut to those): what it plays where only those may be guessed."""
        from keypeg.knowledge import Knowledge
        from keypeg.strategies import make_strategy

        strategy = make_strategy(self.strategy, pool="consistent", seed=self.seed)
        return strategy.rank(Knowledge(self.rules, tuple(history))).guess

    def __call__(self, observation: Any, info: Mapping[str, Any]) -> int:
        board, mask = _board_and_mask(observation, info)
        env = self._bound()
        if mask is not None and len(mask) != env.rules.size:
            raise InvalidArgumentError(f"{self.name} is a codebreaker: it guesses codes, and this turn is not a guess")
        history = decode_board(env.rules, board)
        action = int(env.action(self.guess(history)))
        legal = _legal(observation)
        if legal is not None and not legal[action]:
            action = int(env.action(self.fitting_guess(history)))
            if not legal[action]:  # a strategy that forgets scores: the first code the environment allows
                allowed = np.flatnonzero(legal)
                action = int(allowed[0]) if allowed.size else action
        return action


@dataclass(frozen=True)
class Evaluation:
    """How a policy did over some games: the games played, the guesses in all, the most one game took, and
    the games not broken within the rows (each counted with the guesses it played)."""

    policy: str
    game: str
    games: int
    total: int
    worst: int
    failures: int

    @property
    def average(self) -> float:
        """Guesses per game."""
        return self.total / self.games if self.games else 0.0

    def __str__(self) -> str:
        return (
            f"{self.policy} on {self.game}: {plural(self.games, 'game')}, {plural(self.total, 'guess', 'guesses')}, "
            f"average {self.average:.3f}, worst {self.worst}, {plural(self.failures, 'failure')}"
        )


def _name(policy: object) -> str:
    name = getattr(policy, "name", None) or getattr(policy, "__name__", None) or type(policy).__name__
    return str(name)


def evaluate(
    policy: PolicyLike,
    env: gym.Env[Any, Any] | None = None,
    *,
    episodes: int | None = None,
    seed: int | None = None,
    progress: Callable[[int], None] | None = None,
    **rules: Any,
) -> Evaluation:
    """Play ``policy`` on ``env`` (or on a :class:`~keypeg.envs.MastermindEnv` of the rules keyword
    arguments ``rules``: ``variant``, ``pegs``, ...): against every secret in code order when ``episodes`` is
    ``None``, else ``episodes`` games of secrets drawn by the environment, the first reset seeded with
    ``seed`` (which also reseeds a policy that draws at random). ``progress`` is called with 1 after each game.

    >>> print(evaluate(StrategyPolicy("optimal"), variant="3x3"))
    optimal on 3x3: 27 games, 73 guesses, average 2.704, worst 4, 0 failures
    """
    if env is not None and rules:
        raise InvalidArgumentError(f"give an environment or rules, not both (got {', '.join(sorted(rules))} too)")
    if episodes is not None and (isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 0):
        raise InvalidArgumentError(f"episodes must be a whole number from 0, not {quoted(episodes)}")
    checked_seed(seed)
    if not callable(policy):
        raise InvalidArgumentError(f"a policy is callable as policy(observation, info), not {quoted(policy, 60)}")
    if progress is not None and not callable(progress):
        raise InvalidArgumentError(
            f"progress is called with 1 after each game, so it is callable, not {quoted(progress)}"
        )
    played = env if env is not None else MastermindEnv(**rules)
    unwrapped = played.unwrapped
    if not isinstance(unwrapped, MastermindEnv):
        raise InvalidArgumentError(f"evaluate plays keypeg's MastermindEnv, not {quoted(played, 60)}")
    if isinstance(policy, Policy):
        policy.bind(played, seed=seed)
    games = unwrapped.codes.size if episodes is None else episodes

    def secrets() -> Iterator[Code | None]:  # one at a time: ``episodes`` may be more than memory holds
        for number in range(games):
            yield unwrapped.code(number) if episodes is None else None

    total = worst = failures = 0
    for number, secret in enumerate(secrets()):
        options = {"secret": secret} if secret is not None else None
        observation, info = played.reset(seed=seed if number == 0 else None, options=options)
        guesses = 0
        while True:
            observation, _, terminated, truncated, info = played.step(policy(observation, info))
            guesses += 1
            if terminated or truncated:
                break
        total += guesses
        worst = max(worst, guesses)
        failures += int(not terminated)
        if progress is not None:
            progress(1)
    return Evaluation(_name(policy), game_label(unwrapped.rules), games, total, worst, failures)
