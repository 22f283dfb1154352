"""keypeg.envs' speed: steps of ``keypeg/Mastermind-v0`` per CPU second, and the three-line comparison.

1. **Steps**: a random policy (a fitting code each turn) plays ``--episodes`` games of each game through
   :class:`~keypeg.envs.MastermindEnv`, whose action mask comes from the engine's knowledge (the kernels'
   filter, kept per history), against the same games with the mask made from :func:`keypeg.fitting`'s list
   of codes (the public door, which scores small games in plain Python), measured in the same run. The
   baseline's secrets and draws are the same (same seeds), so both play the same steps.
2. **The comparison**: random, Knuth and the optimum against all 1,296 secrets of classic
   (:func:`keypeg.envs.evaluate`), with each line's CPU seconds (the trees built, or read, included).

CPU seconds are the process's user + system time (children included), so a busy machine distorts them less
than wall time; the load average is stated.

    python benchmarks/envs.py [--episodes 200] [--no-save]
"""

from __future__ import annotations

import argparse
import os
import resource
from typing import Any

import numpy as np
import numpy.typing as npt
from report import report

from keypeg import History, fitting
from keypeg.envs import MastermindEnv, RandomPolicy, StrategyPolicy, evaluate
from keypeg.envs.board import CodeBook

GAMES = {"classic": {"variant": "classic"}, "5x8": {"pegs": 5, "colors": 8}}


def cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class PublicDoorBook(CodeBook):
    """The baseline: the codes that fit listed by :func:`keypeg.fitting`, then numbered, nothing kept."""

    def fitting(self, history: Any) -> npt.NDArray[np.int64]:
        moves = tuple(history)
        if not moves:
            return np.arange(self.size, dtype=np.int64)
        codes = fitting(History(self.rules, moves), limit=self.size)
        return np.fromiter((self.index(code) for code in codes), dtype=np.int64, count=len(codes))


def steps_per_second(rules: dict[str, Any], episodes: int, baseline: bool) -> tuple[int, float]:
    env = MastermindEnv(**rules)
    if baseline:
        env.codes = PublicDoorBook(env.rules)
    start = cpu()
    result = evaluate(RandomPolicy(), env, episodes=episodes, seed=1)
    return result.total, cpu() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    MastermindEnv(variant="3x3").reset(seed=0)  # numba and the kernels loaded before anything is timed
    evaluate(RandomPolicy(), variant="3x3", episodes=3, seed=0)
    rows = []
    for name, rules in GAMES.items():
        steps, fast = steps_per_second(rules, args.episodes, baseline=False)
        same, slow = steps_per_second(rules, args.episodes, baseline=True)
        assert same == steps, "the baseline played other games"
        rows.append(
            [
                f"{name}: {steps:,} steps, random policy",
                f"{steps / fast:,.0f}",
                f"{steps / slow:,.0f}",
                f"{slow / fast:.1f}",
            ]
        )
    for policy in (RandomPolicy(seed=0), StrategyPolicy("knuth"), StrategyPolicy("optimal")):
        start = cpu()
        result = evaluate(policy, variant="classic")
        rows.append([str(result), f"{result.total / (cpu() - start):,.0f}", "", f"{cpu() - start:.2f} CPU s"])
    report(
        "envs",
        "keypeg/Mastermind-v0: steps per CPU second",
        f"python benchmarks/envs.py --episodes {args.episodes}",
        [
            f"Load average {load:.1f} at the start (2 cores shared). Steps per CPU second of the environment "
            "with its mask from the engine's knowledge, and of the baseline (the mask from keypeg.fitting's "
            "codes), in the same run; the last column is baseline / environment time. The comparison's rows "
            "give the policy's steps per CPU second and the line's CPU seconds.",
        ],
        ["run", "steps / CPU s", "baseline steps / CPU s", "ratio"],
        rows,
        save=not args.no_save,
    )


if __name__ == "__main__":
    main()
