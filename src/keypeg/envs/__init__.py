"""keypeg's Mastermind for learning agents: a Gymnasium environment, keypeg's codebreakers as policies, and
:func:`evaluate` to compare them (install ``keypeg[envs]``).

Importing :mod:`keypeg.envs` registers ``keypeg/Mastermind-v0`` with Gymnasium, so that after
``import keypeg.envs`` (or in one go, ``gymnasium.make("keypeg.envs:keypeg/Mastermind-v0")``, which imports
it) the environment is made by name, the rules as keyword arguments::

    import gymnasium
    import keypeg.envs

    env = gymnasium.make("keypeg/Mastermind-v0", variant="classic")  # or pegs=4, colors=6, rows=8, ...

- :class:`MastermindEnv`: an action is a code (``Discrete(number of codes)`` in keypeg's code order;
  ``env.unwrapped.code(action)`` and ``.action(code)`` convert), the observation the board so far
  (``rows x (pegs + 2)`` int8: colour indices, then black and white; ``-1`` for rows not played), reward -1 a
  guess, terminated when broken, truncated when the rows run out; ``info["action_mask"]`` (``np.int8``, 1 for
  the codes that still fit) and ``info["fitting"]`` (how many fit).
- Policies: :class:`RandomPolicy` (uniform over the mask) and :class:`StrategyPolicy` (``"knuth"``,
  ``"optimal"`` and every strategy of :func:`keypeg.strategy_names`); any callable
  ``(observation, info) -> action`` is a policy too.
- :class:`CodemakerEnv` (PettingZoo's AEC API; its documentation has the agents, actions, observations,
  rewards and illegal moves): the codemaker against the codebreaker, no secret fixed (any score that keeps a
  code fitting is legal); :func:`codemaker_env` makes it with PettingZoo's usual wrappers (PettingZoo's
  ``env()``); :class:`AdversaryPolicy` is keypeg's adversarial codemaker as an agent, and :func:`duel` plays
  one game of two policies (a :class:`Duel`). The breaker's policies above play it too. These names load
  PettingZoo on first use: the Gymnasium env alone needs only Gymnasium (``from keypeg.envs import *`` takes
  them only where PettingZoo is installed).
- :func:`evaluate` plays a policy against every secret (or ``episodes`` drawn ones) and returns an
  :class:`Evaluation` (games, total, average, worst, failures)::

    from keypeg.envs import RandomPolicy, StrategyPolicy, evaluate
    for policy in (RandomPolicy(seed=0), StrategyPolicy("knuth"), StrategyPolicy("optimal")):
        print(evaluate(policy, variant="classic"))

>>> import gymnasium
>>> env = gymnasium.make(ENV_ID, variant="3x3")
>>> env.action_space, env.observation_space.shape
(Discrete(27), (10, 5))
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

try:
    import gymnasium
except ImportError as missing:  # installed without its extra: one line naming it, not a bare module error
    raise ImportError(f"keypeg.envs needs {missing.name or 'Gymnasium'}: pip install 'keypeg[envs]'") from None

from keypeg.envs.mastermind import ENV_ID, MastermindEnv
from keypeg.envs.policies import Evaluation, Policy, RandomPolicy, StrategyPolicy, evaluate

if TYPE_CHECKING:
    from keypeg.envs.codemaker import AdversaryPolicy, CodemakerEnv, Duel, duel
    from keypeg.envs.codemaker import env as codemaker_env

__all__ = ["ENV_ID", "MastermindEnv", "Policy", "RandomPolicy", "StrategyPolicy", "Evaluation", "evaluate"]
if find_spec("pettingzoo") is not None:  # PettingZoo's, loaded on first use: `import *` works without it
    __all__ += ["CodemakerEnv", "codemaker_env", "AdversaryPolicy", "Duel", "duel"]
_PETTINGZOO = {"CodemakerEnv": "CodemakerEnv", "codemaker_env": "env", "AdversaryPolicy": "AdversaryPolicy"}
_PETTINGZOO |= {"Duel": "Duel", "duel": "duel"}
"""The names of the PettingZoo env (:mod:`keypeg.envs.codemaker`), loaded on first use, and theirs there."""


def __getattr__(name: str) -> Any:
    """The PettingZoo env's names, from :mod:`keypeg.envs.codemaker` (which imports PettingZoo) on first use."""
    if name in _PETTINGZOO:
        from keypeg.envs import codemaker

        value = getattr(codemaker, _PETTINGZOO[name])
        globals()[name] = value
        return value
    raise AttributeError(f"module 'keypeg.envs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="keypeg.envs.mastermind:MastermindEnv")
