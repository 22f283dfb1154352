"""Codemaker against codebreaker: keypeg's Mastermind as a two-agent PettingZoo environment (AEC).

The environment, its agents, actions, observations, rewards and illegal moves are documented on
:class:`CodemakerEnv` (public as ``keypeg.envs.CodemakerEnv``); :func:`env` (``keypeg.envs.codemaker_env``) makes
it with PettingZoo's usual wrappers. :class:`AdversaryPolicy` scores as keypeg's adversary, and :func:`duel`
plays one game of two policies.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

try:
    from pettingzoo import AECEnv
    from pettingzoo.utils import AgentSelector, wrappers
except ImportError as missing:  # installed without its extra: one line naming it, as keypeg.envs says for Gymnasium
    raise ImportError(
        f"keypeg.envs.codemaker needs {missing.name or 'PettingZoo'}: pip install 'keypeg[envs]'"
    ) from None

from keypeg.arguments import checked_seed, one_of, true_or_false
from keypeg.code import Code, Feedback
from keypeg.envs.board import (
    NOT_PLAYED,
    CodeBook,
    board_space,
    decode_board,
    encode_board,
    render_board,
    rules_from,
)
from keypeg.envs.policies import Policy, PolicyLike, StrategyPolicy
from keypeg.errors import (
    GameOverError,
    IllegalMoveError,
    InconsistentHistoryError,
    InvalidArgumentError,
    InvalidCodeError,
    InvalidFeedbackError,
)
from keypeg.feedback import score
from keypeg.history import History
from keypeg.play.codemakers import codemaker_from_state
from keypeg.rules import Rules
from keypeg.text import plural, quoted
from keypeg.variants import game_label

__all__ = ["BREAKER", "MAKER", "CodemakerEnv", "raw_env", "env", "read_board", "AdversaryPolicy", "Duel", "duel"]

BREAKER = "codebreaker"
"""The agent who guesses."""
MAKER = "codemaker"
"""The agent who scores."""

Observation = dict[str, npt.NDArray[np.int8]]


class CodemakerEnv(AECEnv[str, Observation, int]):  # type: ignore[misc]  # pettingzoo ships no type hints
    """Codemaker against codebreaker, PettingZoo's AEC API (PettingZoo's ``raw_env``; :func:`codemaker_env`
    adds PettingZoo's usual wrappers).

    Two agents take turns: ``"codebreaker"`` guesses a code, ``"codemaker"`` scores it. No secret is fixed: the
    codemaker may answer any score that keeps at least one code fitting every score so far, so it can play fair
    (answer as a secret it chose would) or adversarially (keep the breaker guessing as long as it can, as
    :class:`AdversaryPolicy` does).

    - **Actions.** The codebreaker's: ``Discrete(number of codes)``, a code in keypeg's code order (the order of
      :func:`keypeg.fitting`; :meth:`code` and :meth:`action` convert). The codemaker's: ``Discrete(number of
      scores)``, a score in the order of :meth:`keypeg.Rules.feedbacks` (by black pegs, then white: 0,0  0,1 ...
      on classic 14 scores, the win last); :meth:`feedback` and :meth:`answer` convert.
    - **Observations**, as PettingZoo's classic games give them: ``{"observation": board, "action_mask": mask}``.
      The board is the same for both agents, encoded as :class:`~keypeg.envs.MastermindEnv`'s: one row a guess,
      its colour numbers then black and white, ``-1`` where nothing is played yet; a guess waiting for its score
      shows ``-1`` for black and white. The mask (``np.int8``) marks the legal actions of the agent to move, and
      is all zeros for the other and for both once the game is over: for the codebreaker every code (any code
      may be guessed; with ``hard=True`` only the codes that still fit), for the codemaker the scores that keep
      some code fitting. ``infos[agent]["fitting"]`` is the mask of the codes that still fit, whatever the mode
      (the Gymnasium env's ``info["action_mask"]``).
    - **Rewards**, zero-sum a guess: codebreaker -1, codemaker +1.
    - **Ends.** Terminated when a score is the win (the code is broken); truncated when the rows run out.
    - **Bad and illegal moves.** The rule of both of keypeg's environments: an action outside the agent's
      action space (out of range, not a whole number) is bad input, refused with
      :class:`~keypeg.errors.InvalidCodeError` (the codebreaker's) or :class:`~keypeg.errors.InvalidFeedbackError`
      (the codemaker's), both ``ValueError``; an action in the space that the game does not allow now (a score
      no code fits, a code that does not fit in hard mode) is :class:`~keypeg.errors.IllegalMoveError`. Either
      changes nothing; :func:`codemaker_env` with ``illegal_reward`` instead ends the game on an illegal move
      with that reward to the offender, as PettingZoo's classic games do.

    Args:
        variant, pegs, colors, repeats, rows, blanks, feedback: the rules, as
            :class:`~keypeg.envs.MastermindEnv` takes them.
        hard: the codebreaker may guess only codes that still fit (its mask says which).
        render_mode: ``"ansi"`` (:meth:`render` returns the board as text) or ``"human"`` (prints it).

    keypeg's players are agents here too: :class:`AdversaryPolicy` scores as keypeg's adversary,
    :class:`~keypeg.envs.StrategyPolicy` and :class:`~keypeg.envs.RandomPolicy` guess, and :func:`duel` plays one
    game of two policies::

        from keypeg.envs import AdversaryPolicy, StrategyPolicy, duel
        print(duel(StrategyPolicy("knuth"), AdversaryPolicy(), variant="classic"))
        # knuth against adversary on classic: broken in 5 guesses (RRGG=0,0 BBYW=1,1 BKBK=0,0 YWYY=0,2 WYWW=4,0)

    >>> from keypeg.envs import codemaker_env
    >>> game = codemaker_env(pegs=3, colors=3, render_mode="ansi")
    >>> game.reset(seed=0)
    >>> game.agent_selection
    'codebreaker'
    >>> game.step(game.unwrapped.action("ABC"))
    >>> observation, reward, terminated, truncated, info = game.last()  # the codemaker's turn, +1 for a guess
    >>> game.agent_selection, reward, [str(game.unwrapped.feedback(a)) for a in observation["action_mask"].nonzero()[0]]
    ('codemaker', 1, ['0,2', '0,3', '1,0', '1,1', '1,2', '2,0', '3,0'])
    >>> game.step(game.unwrapped.answer("1,1"))
    >>> print(game.render())
    3 pegs, 3 colours, repeats, 12 rows
     1  ABC  ●○·  1 black, 1 white
    11 rows left; 6 codes fit; the codebreaker to guess
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "keypeg_codemaker_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str | Rules | None = None,
        pegs: int | None = None,
        colors: int | None = None,
        repeats: bool | None = None,
        rows: int | None = None,
        blanks: bool | None = None,
        feedback: str | None = None,
        *,
        hard: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None:
            one_of(render_mode, self.metadata["render_modes"], "render_mode")
        self.rules: Rules = rules_from(variant, pegs, colors, repeats, rows, blanks, feedback)
        """The game's rules."""
        self.hard = true_or_false(bool(hard) if isinstance(hard, np.bool_) else hard, "hard")
        """Whether the codebreaker may guess only codes that still fit."""
        self.render_mode = render_mode
        self.book = CodeBook(self.rules)
        """The codes in action order."""
        self.scores: tuple[Feedback, ...] = self.rules.feedbacks()
        """The scores in the order of the codemaker's actions (:meth:`Rules.feedbacks`: by black, then white)."""
        self._score_index = {f: i for i, f in enumerate(self.scores)}
        self.possible_agents = [BREAKER, MAKER]
        self.agents = list(self.possible_agents)
        board = board_space(self.rules)
        self.action_spaces = {BREAKER: spaces.Discrete(self.book.size), MAKER: spaces.Discrete(len(self.scores))}
        self.observation_spaces = {
            agent: spaces.Dict(
                {"observation": board, "action_mask": spaces.Box(0, 1, shape=(int(space.n),), dtype=np.int8)}
            )
            for agent, space in self.action_spaces.items()
        }
        self._selector = AgentSelector(self.agents)
        self._history = History(self.rules)
        self._pending: Code | None = None
        self._masks: dict[str, npt.NDArray[np.int8]] = {}
        self.np_random: np.random.Generator = np.random.default_rng()
        """A generator for agents that want one, seeded by ``reset(seed=...)``."""
        self._reset_state()

    # -- conversions ---------------------------------------------------------------------

    def code(self, action: int) -> Code:
        """The code a codebreaker's action stands for."""
        return self.book.code(self._check_action(BREAKER, action))

    def action(self, code: Code | str) -> int:
        """The codebreaker's action for ``code`` (a :class:`~keypeg.Code` or text in the rules' symbols)."""
        return self.book.index(code)

    def feedback(self, action: int) -> Feedback:
        """The score a codemaker's action stands for."""
        return self.scores[self._check_action(MAKER, action)]

    def answer(self, feedback: Feedback | str | tuple[int, int]) -> int:
        """The codemaker's action for ``feedback`` (a :class:`~keypeg.Feedback`, text such as ``"2,1"`` or a
        ``(black, white)`` pair)."""
        _, read = History(self.rules).add(self.rules.example(), feedback).moves[0]
        return self._score_index[read]

    # -- the game so far ------------------------------------------------------------------

    @property
    def history(self) -> History:
        """The scored guesses so far."""
        return self._history

    @property
    def pending(self) -> Code | None:
        """The guess waiting for its score, if any."""
        return self._pending

    def fitting(self) -> npt.NDArray[np.int8]:
        """The mask of the codes that fit every score so far (1 for those), in action order."""
        return self.book.mask(self._history)

    def legal_feedbacks(self) -> tuple[Feedback, ...]:
        """The scores the codemaker may give the pending guess: those that keep some code fitting (none
        while no guess waits)."""
        return tuple(f for f, legal in zip(self.scores, self._maker_mask(), strict=True) if legal)

    # -- PettingZoo -------------------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.Space[Any]:
        """``agent``'s observations: a ``Dict`` of the board (``"observation"``) and its ``"action_mask"``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space[Any]:
        """``agent``'s actions: ``Discrete`` over the codes (codebreaker) or the scores (codemaker)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. The environment draws nothing (no secret is fixed): ``seed`` seeds :attr:`np_random`
        for agents that want it. ``options={"history": ...}`` starts from a position, the codebreaker to guess:
        a :class:`~keypeg.History`, scored guesses as text (``"AABB=1,0 ACDE=0,2"`` or a list of them) or
        ``(guess, score)`` pairs; some code must fit it, and the game must not be over. Other options are
        ignored, as PettingZoo expects (its ``api_test`` resets with options of its own), where the Gymnasium
        env refuses them. A seed that is not a whole number from 0, or options that are not a dict, are
        refused (:class:`~keypeg.errors.InvalidArgumentError`)."""
        checked_seed(seed)
        if options is not None and not isinstance(options, Mapping):
            raise InvalidArgumentError(f"the options are a dict such as {{'history': ...}}, not {quoted(options)}")
        start = History(self.rules)
        told = (options or {}).get("history")
        if told is not None:
            start = self._position(told)
        if seed is not None:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        self._reset_state(start)

    def _position(self, told: object) -> History:
        """The history ``reset`` was told to start from, checked."""
        if isinstance(told, History):
            start = History(self.rules, told.moves)
        elif isinstance(told, str) or (isinstance(told, list | tuple) and all(isinstance(m, str) for m in told)):
            start = History.parse(self.rules, told)
        elif isinstance(told, list | tuple):
            start = History(self.rules, tuple(told))
        else:
            raise InvalidArgumentError(
                f"a history is a History, scored guesses as text or (guess, score) pairs, not {quoted(told)}"
            )
        if start.solved or len(start) >= self.rules.rows:
            raise GameOverError(f"that history ends the game ({'broken' if start.solved else 'no rows left'})")
        if not self.book.fitting(start).size:
            raise InconsistentHistoryError(f"no code fits {start}: some score is wrong (keypeg.check names it)")
        return start

    def _reset_state(self, start: History | None = None) -> None:
        self.agents = list(self.possible_agents)
        self._history = start if start is not None else History(self.rules)
        self._pending = None
        self._masks = {}
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._selector.reinit(self.agents)
        self.agent_selection = self._selector.reset()
        self._update_infos()

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation: ``{"observation": board, "action_mask": mask}`` (the class's documentation)."""
        if agent == self.agent_selection and agent in self.agents and not self._over():
            mask = (self._breaker_mask() if agent == BREAKER else self._maker_mask()).copy()
        else:
            mask = np.zeros(self.action_spaces[agent].n, dtype=np.int8)
        board = encode_board(self.rules, self._history)
        if self._pending is not None:
            board[len(self._history), : self.rules.pegs] = self._pending.colors
        return {"observation": board, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to move (a code to guess, or a score to give); ``None`` for an agent whose
        game is over. Bad and illegal actions are refused as the class's documentation says."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = self._check_action(agent, action)
        if agent == BREAKER:
            guess = self.book.code(index)
            if not self._breaker_mask()[index]:
                raise IllegalMoveError(
                    f"{guess} does not fit the scores so far, and only codes that fit may be guessed"
                )
            self._pending = guess
            self.rewards = {BREAKER: -1, MAKER: 1}
        else:
            answer = self.scores[index]
            if not self._maker_mask()[index]:
                legal = ", ".join(self.rules.show(f) for f in self.legal_feedbacks())
                raise IllegalMoveError(
                    f"no code fits {self.rules.show(answer)} for {self._pending} with the scores before it: "
                    f"the legal scores are {legal}"
                )
            assert self._pending is not None
            self._history = self._history.add(self._pending, answer)
            self._pending = None
            self.rewards = dict.fromkeys(self.agents, 0)
            if answer == self.rules.win:
                self.terminations = dict.fromkeys(self.agents, True)
            elif len(self._history) >= self.rules.rows:
                self.truncations = dict.fromkeys(self.agents, True)
        self._cumulative_rewards[agent] = 0
        self._masks = {}
        self._update_infos()
        self.agent_selection = self._selector.next()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The board as text (``"ansi"``; ``"human"`` prints it): a line a guess, as keypeg's terminal
        writes scores, the guess waiting for its score, then how many codes fit and whose turn it is."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode: make the env with render_mode='ansi'")
            return None
        *lines, status = render_board(self.rules, self._history).rstrip("\n").split("\n")
        if self._pending is not None:
            width = len(str(self.rules.rows))
            lines.append(f"{len(self._history) + 1:>{width}}  {self._pending}  {'?' * self.rules.pegs}")
        count = int(self.book.fitting(self._history).size)
        fit = f"{plural(count, 'code')} {'fits' if count == 1 else 'fit'}"
        if self._history.solved:
            lines.append(status)
        elif self._over():
            lines.append(f"{status}; {fit}")
        else:
            turn = "guess" if self.agent_selection == BREAKER else "score"
            lines.append(f"{status}; {fit}; the {self.agent_selection} to {turn}")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # -- inside ------------------------------------------------------------------------------

    def _over(self) -> bool:
        return self._history.solved or len(self._history) >= self.rules.rows

    def _check_action(self, agent: str, action: object) -> int:
        """``action`` as an action number of ``agent``'s space; outside it, bad input as the Gymnasium env says
        it: :class:`InvalidCodeError` (the codebreaker's), :class:`InvalidFeedbackError` (the codemaker's)."""
        size = int(self.action_spaces[agent].n)
        wrong = (InvalidCodeError if agent == BREAKER else InvalidFeedbackError)(
            f"the {agent}'s action is a whole number from 0 to {size - 1}, not {quoted(action)}"
        )
        if isinstance(action, bool | np.bool_):
            raise wrong
        try:
            index = operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            raise wrong from None
        if not 0 <= index < size:
            raise wrong
        return index

    def _breaker_mask(self) -> npt.NDArray[np.int8]:
        if BREAKER not in self._masks:
            self._masks[BREAKER] = self.fitting() if self.hard else np.ones(self.book.size, dtype=np.int8)
        return self._masks[BREAKER]

    def _maker_mask(self) -> npt.NDArray[np.int8]:
        if MAKER not in self._masks:
            mask = np.zeros(len(self.scores), dtype=np.int8)
            if self._pending is not None:  # the scores the pending guess gets from the codes that fit
                guess = self._pending
                given = {score(self.book.code(i), guess) for i in self.book.fitting(self._history).tolist()}
                mask[[self._score_index[f] for f in given]] = 1
            self._masks[MAKER] = mask
        return self._masks[MAKER]

    def _update_infos(self) -> None:
        self.infos = {agent: {"fitting": self.fitting()} for agent in self.agents}


def read_board(rules: Rules, board: npt.ArrayLike) -> tuple[list[tuple[Code, Feedback]], Code | None]:
    """The scored guesses an observation's board shows, and the guess waiting for its score (``None`` if none):
    what a policy that sees only observations needs to answer."""
    array = np.array(board)
    scored = int(np.argmin(np.append(array[:, rules.pegs] != NOT_PLAYED, False)))  # the first row without a score
    pending = None
    if scored < rules.rows and array[scored, 0] != NOT_PLAYED:
        pending = rules.code([int(c) for c in array[scored, : rules.pegs]])
        array[scored] = NOT_PLAYED
    return decode_board(rules, array), pending


raw_env = CodemakerEnv
"""PettingZoo's name for the unwrapped environment."""


class InBoundsWrapper(wrappers.BaseWrapper):  # type: ignore[misc]  # pettingzoo ships no type hints
    """PettingZoo's ``AssertOutOfBoundsWrapper`` as keypeg says it: an action outside the agent's space (or
    ``None`` from an agent still playing) is refused with a one-line :class:`~keypeg.errors.InvalidCodeError`
    or :class:`~keypeg.errors.InvalidFeedbackError` before it reaches the wrappers inside (an assert would
    vanish under ``python -O``)."""

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if not (action is None and (self.terminations[agent] or self.truncations[agent])):
            self.env.unwrapped._check_action(agent, action)
        super().step(action)


def env(*, illegal_reward: float | None = None, **kwargs: Any) -> AECEnv[str, Observation, int]:
    """:class:`CodemakerEnv` (codemaker against codebreaker: its agents, actions, observations, rewards and
    illegal moves are documented there) with PettingZoo's usual wrappers (PettingZoo's ``env()``; public as
    ``keypeg.envs.codemaker_env``): actions out of range refused (:class:`~keypeg.errors.InvalidCodeError` or
    :class:`~keypeg.errors.InvalidFeedbackError`, where PettingZoo's own wrapper asserts), the order of calls
    (``reset`` first) enforced; with ``illegal_reward`` an illegal move ends the game with that reward to the
    agent who made it (PettingZoo's ``TerminateIllegalWrapper``) instead of being refused. ``kwargs`` are
    :class:`CodemakerEnv`'s: the rules (``variant``, or ``pegs``, ``colors``, ``repeats``, ``rows``, ``blanks``,
    ``feedback``), ``hard`` and ``render_mode``.

    >>> game = env(variant="3x3")
    >>> game.reset()
    >>> game.agents, game.action_space("codebreaker"), game.action_space("codemaker")
    (['codebreaker', 'codemaker'], Discrete(27), Discrete(9))
    """
    game: AECEnv[str, Observation, int] = CodemakerEnv(**kwargs)
    if illegal_reward is not None:
        game = wrappers.TerminateIllegalWrapper(game, illegal_reward=illegal_reward)
    game = InBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)


class AdversaryPolicy(Policy):
    """The codemaker as keypeg's adversary plays it (as ``keypeg play`` against the adversary does):
    each guess gets the score that leaves the most codes fitting (ties: the lowest score), never the win while
    another code fits. It reads everything from the observation's board, so it can take over any game.

    >>> game = CodemakerEnv(pegs=3, colors=3)
    >>> adversary = AdversaryPolicy().bind(game)
    >>> game.reset()
    >>> game.step(game.action("AAB"))
    >>> str(game.feedback(adversary(game.observe("codemaker"), game.infos["codemaker"])))  # 1,0, 2,0: 6 codes each
    '1,0'
    """

    name = "adversary"

    def __call__(self, observation: Any, info: Mapping[str, Any]) -> int:
        rules = self.rules
        board = observation["observation"] if isinstance(observation, Mapping) else observation
        moves, pending = read_board(rules, board)
        if pending is None:
            raise IllegalMoveError("the adversary scores a guess, and no guess waits for its score on this board")
        maker = codemaker_from_state(rules, {"kind": "adversarial"}, None, moves)
        return int(self._bound().answer(maker.answer(pending)))


@dataclass(frozen=True)
class Duel:
    """One game between a codebreaker and a codemaker: who played, on which game, and the scored guesses."""

    breaker: str
    maker: str
    history: History

    @property
    def guesses(self) -> int:
        """The guesses the codebreaker played."""
        return len(self.history)

    @property
    def broken(self) -> bool:
        """Whether the code was broken within the rows."""
        return self.history.solved

    def __str__(self) -> str:
        ending = "broken" if self.broken else "not broken"
        played = " ".join(f"{guess}={self.history.rules.key(score)}" for guess, score in self.history)
        return (
            f"{self.breaker} against {self.maker} on {game_label(self.history.rules)}: {ending} in "
            f"{plural(self.guesses, 'guess', 'guesses')} ({played})"
        )


def duel(
    breaker: PolicyLike,
    maker: PolicyLike,
    game: AECEnv | None = None,
    *,
    seed: int | None = None,
    start: object = None,
    **rules: Any,
) -> Duel:
    """Play one game of ``breaker`` against ``maker`` (policies, or callables ``(observation, info) -> action``)
    through the AEC interface, on ``game`` (a :func:`codemaker_env` or :class:`CodemakerEnv`) or on a new environment of
    the rules keyword arguments ``rules``; ``seed`` seeds the reset and reseeds a policy that draws at random;
    ``start`` is a position to play on from (a history, as :meth:`CodemakerEnv.reset` takes it).

    >>> from keypeg.envs import StrategyPolicy
    >>> print(duel(StrategyPolicy("knuth"), AdversaryPolicy(), variant="3x3"))
    knuth against adversary on 3x3: broken in 3 guesses (AAB=1,0 ACC=0,0 BBB=3,0)
    """
    if game is not None and rules:
        raise InvalidArgumentError(f"give an environment or rules, not both (got {', '.join(sorted(rules))} too)")
    checked_seed(seed)
    for policy in (breaker, maker):
        if not callable(policy):
            raise InvalidArgumentError(f"a policy is callable as policy(observation, info), not {quoted(policy, 60)}")
    if isinstance(maker, StrategyPolicy):
        raise InvalidArgumentError(
            f"{maker.name} is a codebreaker (a StrategyPolicy guesses): the codemaker is AdversaryPolicy(), "
            "RandomPolicy() or a policy of yours"
        )
    if isinstance(breaker, AdversaryPolicy):
        raise InvalidArgumentError("the adversary is a codemaker (it scores): the codebreaker is a StrategyPolicy, ...")
    played = game if game is not None else env(**rules)
    unwrapped = played.unwrapped
    if not isinstance(unwrapped, CodemakerEnv):
        raise InvalidArgumentError(f"a duel is played on keypeg's CodemakerEnv, not {quoted(played, 60)}")
    policies = {BREAKER: breaker, MAKER: maker}
    for policy in policies.values():
        if isinstance(policy, Policy):
            policy.bind(played, seed=seed)
    played.reset(seed=seed, options=None if start is None else {"history": start})
    for agent in played.agent_iter():
        observation, _, terminated, truncated, info = played.last()
        played.step(None if terminated or truncated else policies[agent](observation, info))
    return Duel(_named(breaker), _named(maker), unwrapped.history)


def _named(policy: object) -> str:
    return str(getattr(policy, "name", None) or getattr(policy, "__name__", None) or type(policy).__name__)
