"""Codebreakers against an adversarial codemaker, in keypeg's two-agent PettingZoo environment.

The codemaker of ``keypeg.envs.CodemakerEnv`` keeps no secret: it may give any score that leaves at least one
code fitting. keypeg's adversary (``AdversaryPolicy``) gives each guess the score that leaves the most
codes, so it stretches the game out; it can never beat a strategy's worst case, since its scores always
fit some secret, and the strategy would need as many guesses against that secret. The script plays the
first codebreaker through the AEC loop written out (``agent_iter``, ``last``, ``step``) and draws the
board, then each codebreaker with ``keypeg.envs.duel``, beside its worst case over every secret.

Run it::

    python examples/adversary.py                                  # Knuth and others on classic
    python examples/adversary.py -s knuth -s random --variant mini
    python examples/adversary.py --pegs 3 --colors 3

Needs Gymnasium and PettingZoo (``pip install 'keypeg[envs]'``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import keypeg
from keypeg.envs import AdversaryPolicy, StrategyPolicy, codemaker_env, duel

DEFAULT = ("knuth", "irving", "kooi", "entropy", "optimal", "random")
"""keypeg's strategies; ``random`` draws each guess among the codes that fit (seeded)."""


def play_out(breaker: StrategyPolicy, asked: dict[str, Any], seed: int) -> str:
    """One game of ``breaker`` against the adversary through the AEC loop; the board at the end."""
    game = codemaker_env(render_mode="ansi", **asked)
    policies = {"codebreaker": breaker.bind(game, seed=seed), "codemaker": AdversaryPolicy().bind(game)}
    game.reset(seed=seed)
    for agent in game.agent_iter():
        observation, _, terminated, truncated, info = game.last()
        action = None if terminated or truncated else policies[agent](observation, info)
        game.step(action)
    board = str(game.render())
    game.close()
    return board


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = " ".join(DEFAULT)
    parser.add_argument("-s", "--strategy", action="append", dest="strategies", help=f"a strategy (default: {default})")
    parser.add_argument("--variant", help="a preset (default: classic)")
    parser.add_argument("--pegs", type=int, help="pegs (changes the preset)")
    parser.add_argument("--colors", type=int, help="colours (changes the preset)")
    parser.add_argument("--seed", type=int, default=0, help="seed of a strategy that draws at random (default: 0)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="do the work keypeg's cost guard refuses as too long (the library's force=True)",
    )
    args = parser.parse_args(argv)
    args.strategies = args.strategies or list(DEFAULT)
    return args


def said(error: Exception) -> str:
    """keypeg's error as this script's user acts on it: the library's ``force=True`` is ``--force`` here."""
    return str(error).replace("force=True", "--force")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    asked: dict[str, Any] = {name: getattr(args, name) for name in ("variant", "pegs", "colors")}
    asked = {name: value for name, value in asked.items() if value is not None}
    try:
        breakers = [(name, StrategyPolicy(name, seed=args.seed, force=args.force)) for name in args.strategies]
        for first, policy in breakers:  # the first codebreaker that can play this board, move by move
            try:
                board = play_out(policy, asked, args.seed)
            except keypeg.KeypegError:
                if policy is breakers[-1][1]:
                    raise
                continue
            print(f"{first} against the adversary, move by move:")
            print(board)
            break
        print(f"{'codebreaker':<12} {'guesses':>8} {'worst case':>11}   game")
        for name, policy in breakers:
            try:
                played = duel(policy, AdversaryPolicy(), seed=args.seed, **asked)
            except keypeg.KeypegError as error:  # a strategy that cannot play this board: its row says why
                print(f"{name:<12} {'n/a':>8}   {said(error)}")
                continue
            tree = policy.tree()  # the strategy's whole tree, which the policy follows
            worst = str(tree.stats.max) if tree is not None else "-"
            moves = " ".join(f"{guess}={played.history.rules.key(score)}" for guess, score in played.history)
            print(f"{name:<12} {played.guesses:>8} {worst:>11}   {moves}")
    except keypeg.KeypegError as error:
        print(f"error: {said(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    print()
    print("worst case: the most guesses the strategy needs over every secret (keypeg.analyze, keypeg.optimal)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
