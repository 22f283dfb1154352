"""Compare codebreakers through the Gymnasium interface: random, Knuth, the optimum, any keypeg strategy.

Each policy plays ``keypeg/Mastermind-v0`` against every secret (or ``--episodes`` drawn ones) with
``keypeg.envs.evaluate``; the table gives the guesses in all, per game and at worst. The heart of it
is three lines::

    from keypeg.envs import RandomPolicy, StrategyPolicy, evaluate
    for policy in (RandomPolicy(seed=0), StrategyPolicy("knuth"), StrategyPolicy("optimal")):
        print(evaluate(policy, variant="classic"))

On classic Mastermind Knuth's strategy needs 5,801 guesses over the 1,296 secrets, never more than 5
(Knuth 1976), and the optimum 5,625 (Koyama and Lai 1993). A policy is anything callable as
``policy(observation, info) -> action``: ``first-fitting`` below is a two-line function (the first code
that still fits, Shapiro's strategy), evaluated like keypeg's own; put your agent there.

Run it::

    python examples/compare_policies.py                               # random, knuth, optimal on classic
    python examples/compare_policies.py -s knuth -s irving -s kooi -s entropy -s first-fitting
    python examples/compare_policies.py --variant super --episodes 200 -s random -s kooi

Strategy names: ``random``, ``first-fitting`` and every name of ``keypeg.strategy_names()`` or an alias
(``knuth``, ``irving``, ``kooi``, ``neuwirth``, ...). Needs Gymnasium (``pip install 'keypeg[envs]'``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

import keypeg
from keypeg.envs import Evaluation, RandomPolicy, StrategyPolicy, evaluate

DEFAULT = ("random", "knuth", "optimal")


def first_fitting(observation: Any, info: Mapping[str, Any]) -> int:
    """An agent of one line: the first code (in code order) that still fits every score."""
    return int(np.flatnonzero(info["action_mask"])[0])


def policy_named(name: str, seed: int, force: bool = False) -> Callable[[Any, Mapping[str, Any]], int]:
    """The policy a name on the command line stands for."""
    if name == "random":
        return RandomPolicy(seed=seed)
    if name == "first-fitting":
        return first_fitting
    return StrategyPolicy(name, seed=seed, force=force)


def said(error: Exception) -> str:
    """keypeg's error as this script's user acts on it: the library's ``force=True`` is ``--force`` here."""
    return str(error).replace("force=True", "--force")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-s",
        "--strategy",
        action="append",
        dest="strategies",
        help=f"a policy (repeatable; default: {' '.join(DEFAULT)})",
    )
    parser.add_argument("--variant", help="a preset (default: classic)")
    parser.add_argument("--pegs", type=int, help="pegs (changes the preset)")
    parser.add_argument("--colors", type=int, help="colours (changes the preset)")
    parser.add_argument("--rows", type=int, help="rows (changes the preset)")
    parser.add_argument("--episodes", type=int, help="games of drawn secrets (default: every secret once)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the drawn secrets and guesses (default: 0)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="do the work keypeg's cost guard refuses as too long (the library's force=True)",
    )
    args = parser.parse_args(argv)
    args.strategies = args.strategies or list(DEFAULT)
    if args.episodes is not None and args.episodes < 1:
        parser.error("--episodes must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    asked = {name: getattr(args, name) for name in ("variant", "pegs", "colors", "rows")}
    asked = {name: value for name, value in asked.items() if value is not None}
    try:
        env = gym.make("keypeg/Mastermind-v0", **asked)
        policies = [(name, policy_named(name, args.seed, args.force)) for name in args.strategies]
    except keypeg.KeypegError as error:
        print(f"error: {said(error)}", file=sys.stderr)
        return 2
    board = env.unwrapped
    assert isinstance(board, keypeg.envs.MastermindEnv)
    games = args.episodes or board.rules.size
    secrets = "every secret once" if args.episodes is None else f"{games:,} drawn secrets (seed {args.seed})"
    named = f"{board.rules.name}, " if board.rules.name else ""
    print(f"{named}{board.rules.describe()}: {board.rules.size:,} codes, {secrets}")
    print()
    print(f"{'policy':<16} {'games':>7} {'total':>8} {'average':>8} {'worst':>6} {'failures':>9} {'CPU s':>7}")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    try:
        with Progress(*columns, transient=True) as progress:
            for name, policy in policies:
                task = progress.add_task(escape(name), total=games)
                started = time.process_time()
                try:
                    result: Evaluation = evaluate(
                        policy, env, episodes=args.episodes, seed=args.seed, progress=partial(progress.advance, task)
                    )
                except keypeg.KeypegError as error:  # a policy that cannot play this board: its row says why
                    progress.remove_task(task)
                    refused = escape(f"{name:<16} {'n/a':>7}   {said(error)}")
                    progress.console.print(refused, highlight=False, soft_wrap=True)
                    continue
                seconds = time.process_time() - started
                progress.remove_task(task)
                row = f"{name:<16} {result.games:>7,} {result.total:>8,} {result.average:>8.3f} {result.worst:>6} "
                progress.console.print(escape(f"{row}{result.failures:>9} {seconds:>7.2f}"), highlight=False)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
