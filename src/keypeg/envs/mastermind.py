"""The codebreaker's game as a Gymnasium environment: ``keypeg/Mastermind-v0``.

An action is a code (its number in keypeg's code order), the observation the board so far, the reward
-1 a guess; an episode ends when the code is broken (terminated) or the rows run out (truncated).
``info["action_mask"]`` marks the codes that still fit the scores, ``info["fitting"]`` counts them.

>>> env = MastermindEnv(pegs=3, colors=3, render_mode="ansi")
>>> observation, info = env.reset(seed=1, options={"secret": "ABC"})
>>> observation.shape, info["fitting"]
((12, 5), 27)
>>> observation, reward, terminated, truncated, info = env.step(env.action("AAB"))
>>> observation[0].tolist(), reward, terminated, info["fitting"]
([0, 0, 1, 1, 1], -1.0, False, 4)
>>> print(env.render(), end="")
3 pegs, 3 colours, repeats, 12 rows
 1  AAB  ●○·  1 black, 1 white
11 rows left
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from keypeg.arguments import checked_seed, one_of
from keypeg.code import Code, Feedback
from keypeg.envs.board import CodeBook, board_space, encode_board, render_board, rules_from
from keypeg.errors import GameOverError, IllegalMoveError, InvalidArgumentError, InvalidCodeError
from keypeg.game import Game
from keypeg.rules import Rules
from keypeg.text import quoted

__all__ = ["MastermindEnv", "ENV_ID"]

ENV_ID = "keypeg/Mastermind-v0"
"""The name :func:`gymnasium.make` knows the environment by once :mod:`keypeg.envs` is imported."""


class MastermindEnv(gym.Env[npt.NDArray[np.int8], np.int64]):
    """Break a secret code: a Gymnasium environment over any rules keypeg plays.

    Args:
        variant: a preset's name (``"classic"`` by default, see ``keypeg variants``) or a
            :class:`~keypeg.Rules`; the other rules arguments change its fields, as the command line's
            ``--variant classic --rows 8`` does.
        pegs, colors, repeats, rows, blanks, feedback: the rules' fields (``feedback``: ``"standard"``,
            ``"black"`` or ``"colours"``).
        render_mode: ``"ansi"`` (:meth:`render` returns the board as text) or ``"human"`` (prints it).

    Spaces: the action is ``Discrete(number of codes)``, the codes numbered in keypeg's code order
    (:meth:`code` and :meth:`action` convert); the observation is the board, ``rows x (pegs + 2)`` int8,
    a guess's colour indices then its black and white pegs, ``-1`` in the rows not played.

    ``reset(seed=..., options={"secret": "RGBY"})`` plays a given secret (a :class:`~keypeg.Code` or text);
    without one the secret is drawn uniformly from the codes with the environment's seeded generator.
    Any code may be played; the mask only says which still could be the secret.

    Bad arguments raise keypeg's one-line errors (:class:`~keypeg.errors.InvalidRulesError`,
    :class:`~keypeg.errors.UnknownVariantError`; :class:`~keypeg.errors.TooLargeError` for games of more
    than :data:`keypeg.limits.ENV_CODE_LIMIT` codes); an action that is not a code raises
    :class:`~keypeg.errors.InvalidCodeError`, a step after the end :class:`~keypeg.errors.GameOverError`.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012 (as Env has it)

    def __init__(
        self,
        variant: str | Rules | None = None,
        pegs: int | None = None,
        colors: int | None = None,
        repeats: bool | None = None,
        rows: int | None = None,
        blanks: bool | None = None,
        feedback: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None:
            one_of(render_mode, self.metadata["render_modes"], "render_mode")
        self.rules: Rules = rules_from(variant, pegs, colors, repeats, rows, blanks, feedback)
        """The rules played."""
        self.codes = CodeBook(self.rules)
        """The codes as actions, and the codes that fit a history."""
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(self.codes.size)
        self.observation_space = board_space(self.rules)  # type: ignore[assignment]
        self._game: Game | None = None

    # -- codes and actions -----------------------------------------------------------------------

    def code(self, action: int | np.integer[Any]) -> Code:
        """The code an action plays."""
        return self.codes.code(int(action) if isinstance(action, np.integer) else action)

    def action(self, code: Code | str) -> int:
        """The action that plays ``code`` (a :class:`~keypeg.Code` or text in any notation)."""
        return self.codes.index(code)

    @property
    def history(self) -> list[tuple[Code, Feedback]]:
        """The scored guesses of the episode so far."""
        return list(self._game.history) if self._game is not None else []

    @property
    def secret(self) -> Code | None:
        """The episode's secret (``None`` before the first reset): an agent must not read it."""
        return self._game.secret if self._game is not None else None

    # -- the Gymnasium interface -----------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.int8], dict[str, Any]]:
        """Start an episode: a secret drawn with the seeded generator, or ``options["secret"]``. A seed is
        a whole number from 0 (:class:`~keypeg.errors.InvalidArgumentError` otherwise, as keypeg says it
        everywhere); any other option is refused the same way."""
        checked_seed(seed)
        if options is not None and not isinstance(options, Mapping):
            raise InvalidArgumentError(f"the options are a dict such as {{'secret': 'RGBY'}}, not {quoted(options)}")
        super().reset(seed=seed)
        options = dict(options or {})
        secret = options.pop("secret", None)
        if options:
            raise InvalidArgumentError(
                f"unknown reset option {quoted(next(iter(options)))}: the one option is 'secret'"
            )
        if secret is None:
            secret = self.codes.code(int(self.np_random.integers(self.codes.size)))
        elif not isinstance(secret, Code | str):
            raise InvalidCodeError(f"a secret is a Code or text, not {quoted(secret)}")
        self._game = Game(self.rules, secret)
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[npt.NDArray[np.int8], SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the code numbered ``action``: reward -1, terminated once broken, truncated when the rows run
        out unbroken."""
        if self._game is None:
            raise IllegalMoveError("reset the environment before the first step")
        if self._game.is_over:
            raise GameOverError("the episode is over: reset the environment for another")
        feedback = self._game.guess(self.code(action))
        terminated = feedback == self.rules.win
        truncated = not terminated and self._game.rows_left == 0
        if self.render_mode == "human":
            self.render()
        return self._observation(), -1.0, terminated, truncated, self._info()

    def render(self) -> str | None:
        """The board as text (``"ansi"``), or printed (``"human"``); nothing without a render mode."""
        if self.render_mode is None:
            return None
        game = self._game
        text = render_board(self.rules, game.history if game else [], secret=game.secret if game else None)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    # -- what an agent is shown -------------------------------------------------------------------

    def _observation(self) -> npt.NDArray[np.int8]:
        return encode_board(self.rules, self.history)

    def _info(self) -> dict[str, Any]:
        history = self.history
        fitting = self.codes.fitting(history)
        mask = np.zeros(self.codes.size, dtype=np.int8)
        mask[fitting] = 1
        return {"action_mask": mask, "fitting": int(fitting.size)}
