"""A tiny learning agent: tabular Q-learning on 3x3 Mastermind, measured against the proven optimum.

The agent learns only by playing ``keypeg/Mastermind-v0`` (reward -1 a guess): it never sees the secret
nor how scores are worked out. Its state is the set of codes that still fit the scores, which the environment
hands over as ``info["action_mask"]``: two boards that leave the same codes possible are the same
position, so the table stays small (a few hundred states on 3x3). It guesses only among those codes,
epsilon-greedily while it trains (epsilon falling from 1 to 0.05); its values start at -1 (every guess
hoped to be the last), move towards each target by ``visits ** -0.7`` (more slowly shrinking steps than
an average's ``1 / visits``, so the early, hopeful targets fade), and each game's moves are learnt last
first, so a win reaches the first guess's value in the same game.

Then it plays every secret greedily, and the script prints its total and average number of guesses
beside Knuth's strategy (``keypeg.analyze``) and the optimum (``keypeg.optimal``): on 3 pegs and
3 colours the optimum is 73 guesses over the 27 secrets, 2.704 a game, and Knuth's 74. Everything is
seeded: the same command prints the same figures (all but the CPU time). The learning is numpy only.

Run it::

    python examples/learn_3x3.py                      # 10,000 training games, a second or two
    python examples/learn_3x3.py --episodes 500       # too few: watch the average fall short
    python examples/learn_3x3.py --seed 7 --pegs 2 --colors 4

Needs Gymnasium (``pip install 'keypeg[envs]'``).
"""

from __future__ import annotations

import argparse
import sys
import time

import gymnasium as gym
import numpy as np
import numpy.typing as npt

import keypeg
from keypeg.envs import MastermindEnv

LARGEST = 256
"""The most codes this example trains on: a table of every position of a larger game is no toy."""

LAST_EPSILON = 0.05
"""How often the agent still guesses at random at the end of its training."""
STEP = 0.7
"""A value moves towards its target by ``visits ** -STEP``."""

Mask = npt.NDArray[np.int8]


class QLearner:
    """Tabular Q-learning over positions (the set of codes that still fit), with action masking."""

    def __init__(self, actions: int, *, seed: int) -> None:
        self.actions = actions
        self.epsilon = 1.0
        """The probability of a random guess while exploring (:func:`train` lowers it game by game)."""
        self.rng = np.random.default_rng(seed)
        self.values: dict[bytes, npt.NDArray[np.float64]] = {}
        self.visits: dict[bytes, npt.NDArray[np.float64]] = {}

    def row(self, mask: Mask) -> npt.NDArray[np.float64]:
        """The values of the position ``mask`` (made on first sight: -1 for the codes that fit, -inf for
        the others, so the argmax is always a code that fits)."""
        key = mask.tobytes()
        if key not in self.values:
            self.values[key] = np.where(mask == 1, -1.0, -np.inf)
            self.visits[key] = np.zeros(self.actions)
        return self.values[key]

    def act(self, mask: Mask, *, explore: bool) -> int:
        """A code that fits: a random one with probability epsilon while exploring, else the best valued."""
        if explore and self.rng.random() < self.epsilon:
            return int(self.rng.choice(np.flatnonzero(mask)))
        return int(np.argmax(self.row(mask)))

    def learn(self, moves: list[tuple[Mask, int, Mask | None]]) -> None:
        """Learn from one game's ``(position, action, next position or None at the win)`` moves, last first."""
        for mask, action, after in reversed(moves):
            target = -1.0 if after is None else -1.0 + float(self.row(after).max())
            values, visits = self.row(mask), self.visits[mask.tobytes()]
            visits[action] += 1
            values[action] += (target - values[action]) * visits[action] ** -STEP


def train(env: gym.Env, agent: QLearner, episodes: int, seed: int) -> None:
    """``episodes`` games against secrets the environment draws (seeded once, here), exploring less and
    less: epsilon falls linearly from 1 to :data:`LAST_EPSILON`."""
    _, info = env.reset(seed=seed)
    for episode in range(episodes):
        agent.epsilon = 1.0 - (1.0 - LAST_EPSILON) * episode / episodes
        moves: list[tuple[Mask, int, Mask | None]] = []
        done = False
        while not done:
            mask = info["action_mask"]
            action = agent.act(mask, explore=True)
            _, _, terminated, truncated, info = env.step(action)
            moves.append((mask, action, None if terminated else info["action_mask"]))
            done = terminated or truncated
        agent.learn(moves)
        _, info = env.reset()


def evaluate(env: gym.Env, agent: QLearner, secrets: list[keypeg.Code]) -> list[int]:
    """The greedy agent's number of guesses for each secret (a loss counts the rows + 1)."""
    counts = []
    for secret in secrets:
        _, info = env.reset(options={"secret": secret})
        guesses, terminated, truncated = 0, False, False
        while not (terminated or truncated):
            _, _, terminated, truncated, info = env.step(agent.act(info["action_mask"], explore=False))
            guesses += 1
        counts.append(guesses if terminated else guesses + 1)
    return counts


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pegs", type=int, default=3, help="pegs (default: %(default)s)")
    parser.add_argument("--colors", type=int, default=3, help="colours (default: %(default)s)")
    parser.add_argument("--episodes", type=int, default=10_000, help="training games (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the secrets and the agent (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error("--episodes must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return play_all(args)
    except KeyboardInterrupt:  # Ctrl-C at any point: one line, exit 130
        print("interrupted", file=sys.stderr)
        return 130


def play_all(args: argparse.Namespace) -> int:
    """Everything the script does with its arguments; the exit code."""
    try:
        env = gym.make("keypeg/Mastermind-v0", pegs=args.pegs, colors=args.colors)
        env.reset(seed=args.seed)  # the seed checked (a whole number from 0) before any work
        board = env.unwrapped  # the environment itself, under Gymnasium's wrappers: its rules and codes
        assert isinstance(board, MastermindEnv)
        rules = board.rules
        if rules.size > LARGEST:
            raise keypeg.TooLargeError(
                f"{rules.describe()} has {rules.size:,} codes; this example learns games of at most {LARGEST}"
            )
        optimum = keypeg.optimal(rules).stats
        knuth = keypeg.analyze(rules, "knuth").stats
    except keypeg.KeypegError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    agent = QLearner(rules.size, seed=args.seed)
    print(f"Tabular Q-learning on {rules.describe()} ({rules.size} codes), seed {args.seed}")
    started = time.process_time()
    train(env, agent, args.episodes, args.seed)
    print(
        f"trained on {args.episodes:,} games in {time.process_time() - started:.2f} CPU s: "
        f"{len(agent.values):,} positions seen"
    )
    counts = evaluate(env, agent, [board.code(action) for action in range(rules.size)])
    env.close()
    print(f"played greedily against all {len(counts)} secrets:")
    print()
    print(f"{'player':<24} {'total':>6} {'average':>8} {'worst':>6}")
    learnt = sum(counts) / len(counts)
    for name, total, average, worst in (
        ("Q-learning agent", sum(counts), learnt, max(counts)),
        ("Knuth (worst-case)", knuth.total, knuth.average, knuth.max),
        ("optimal", optimum.total, optimum.average, optimum.max),
    ):
        print(f"{name:<24} {total:>6} {average:>8.3f} {worst:>6}")
    print()
    print(f"the agent averages {learnt - optimum.average:.3f} guesses a game more than the optimum")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
