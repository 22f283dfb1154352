"""A random agent on keypeg's Gymnasium environment, ``keypeg/Mastermind-v0``, with and without action masking.

It shows the environment's loop (``reset``, ``step`` until terminated or truncated) and what masking buys:

- **unmasked**, the agent draws any code: on classic Mastermind (1,296 codes, 12 rows) it almost never
  breaks the code before the rows run out (the game is then truncated);
- **masked**, it draws only among the codes that still fit every score so far (``info["action_mask"]``):
  it always wins, in about 4.6 guesses on classic.

Run it::

    python examples/random_agent.py                       # classic, 100 games each way
    python examples/random_agent.py --games 20 --show     # and draw the first masked game
    python examples/random_agent.py --pegs 3 --colors 4 --rows 6

Needs Gymnasium (``pip install 'keypeg[envs]'``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

import keypeg
import keypeg.envs


@dataclass(frozen=True)
class Played:
    """One game: how many guesses, and whether the code was broken."""

    guesses: int
    won: bool


def play(env: gym.Env, info: dict[str, Any], *, masked: bool) -> Played:
    """One game of the random agent from the reset that gave ``info``: its guesses drawn from every code,
    or only from the codes that fit (``masked``)."""
    guesses, terminated, truncated = 0, False, False
    while not (terminated or truncated):
        action = env.action_space.sample(mask=info["action_mask"] if masked else None)
        _, _, terminated, truncated, info = env.step(action)
        guesses += 1
    return Played(guesses, terminated)


def run(env: gym.Env, games: int, *, masked: bool, seed: int) -> list[Played]:
    """``games`` games, the secrets drawn by the environment seeded with ``seed`` (the same secrets for
    either agent), the guesses by its action space seeded apart (``seed + 1``)."""
    env.action_space.seed(seed + 1)
    played = []
    for game in range(games):
        _, info = env.reset(seed=seed if game == 0 else None)
        played.append(play(env, info, masked=masked))
    return played


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default=None, help="a preset (default: classic)")
    parser.add_argument("--pegs", type=int, help="pegs (changes the preset)")
    parser.add_argument("--colors", type=int, help="colours (changes the preset)")
    parser.add_argument("--rows", type=int, help="rows (changes the preset)")
    parser.add_argument("--games", type=int, default=100, help="games each way (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed (default: %(default)s)")
    parser.add_argument("--show", action="store_true", help="draw the first masked game, move by move")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
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
    asked = {name: getattr(args, name) for name in ("variant", "pegs", "colors", "rows")}
    asked = {name: value for name, value in asked.items() if value is not None}
    try:
        env = gym.make("keypeg/Mastermind-v0", **asked)
        env.reset(seed=args.seed)  # the seed checked (a whole number from 0) before any game
    except keypeg.KeypegError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    board = env.unwrapped  # the environment itself, under Gymnasium's wrappers
    assert isinstance(board, keypeg.envs.MastermindEnv)
    rules = board.rules
    each_way = f"{args.games} game{'' if args.games == 1 else 's'} each way"
    print(f"A random agent on {rules.describe()} ({rules.size:,} codes), {each_way}")
    print()
    print(f"{'agent':<10} {'won':>5} {'lost':>5}   {'average guesses to win':>22}")
    for masked in (False, True):
        games = run(env, args.games, masked=masked, seed=args.seed)
        won = [game.guesses for game in games if game.won]
        average = f"{statistics.mean(won):.3f}" if won else "-"
        print(f"{'masked' if masked else 'unmasked':<10} {len(won):>5} {len(games) - len(won):>5}   {average:>22}")
    if args.show:
        print()
        print("The first masked game:")
        shown = gym.make("keypeg/Mastermind-v0", render_mode="ansi", **asked)
        run(shown, 1, masked=True, seed=args.seed)
        print(shown.render(), end="")
        shown.close()
    env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
