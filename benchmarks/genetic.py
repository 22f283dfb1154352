"""The genetic codebreaker over seeded random secrets, beside the best one-step heuristic.

Run: .venv/bin/python benchmarks/genetic.py [--games N]

For 4x6, 5x8, 6x9, 7x10 and 8x12: average and worst number of guesses and time per
game over the same seeded secrets; for games small enough, the whole-tree average of
most parts (the best one-step heuristic here) for comparison. Writes the table to
benchmarks/results/genetic.md.
"""

from __future__ import annotations

import argparse
import random
import time

from report import report

from keypeg import Rules, score
from keypeg.analysis.tree import build_tree
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
from keypeg.strategies import make_strategy

GAMES = [Rules(4, 6, rows=50), Rules(5, 8, rows=50), Rules(6, 9, rows=50), Rules(7, 10, rows=50), Rules(8, 12, rows=50)]
HEURISTIC_LIMIT = 40_000
"""Whole trees of the heuristic are built up to this many codes."""


def play(rules: Rules, seed: int) -> tuple[int, float]:
    secret = random_code(rules, random.Random(seed))
    strategy = make_strategy("genetic", seed=seed)
    strategy.reset(rules)
    knowledge = Knowledge(rules)
    start = time.perf_counter()
    while not knowledge.solved:
        guess = strategy.next_guess(knowledge)
        knowledge = knowledge.add(guess, score(secret, guess))
    return len(knowledge.history), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=30, help="seeded secrets per game size")
    args = parser.parse_args()
    play(Rules(4, 6), 0)  # compile or load the kernels first
    rows = []
    for rules in GAMES:
        results = [play(rules, seed) for seed in range(args.games)]
        guesses = [g for g, _ in results]
        heuristic = ""
        if rules.size <= HEURISTIC_LIMIT:
            heuristic = f"{build_tree(make_strategy('most-parts'), rules).stats.average:.3f}"
        row = [
            f"{rules.pegs}x{rules.colors}",
            f"{sum(guesses) / len(guesses):.3f}",
            str(max(guesses)),
            f"{sum(t for _, t in results) / len(results):.2f}",
            heuristic,
        ]
        rows.append(row)
    report(
        "genetic",
        f"Genetic codebreaker, {args.games} seeded secrets per size",
        f".venv/bin/python benchmarks/genetic.py --games {args.games}",
        [
            "Secrets: `random_code(rules, random.Random(seed))` for seeds 0..games-1; the codebreaker is seeded alike.",
            "Paper defaults: population 150, 100 generations, eligible set 60, mutation 0.03, permutation 0.03,",
            "inversion 0.02, one- or two-point crossover at 0.5; the constraint solver tops up a thin eligible set.",
        ],
        ["game", "average", "worst", "seconds/game", "most parts (whole tree)"],
        rows,
    )


if __name__ == "__main__":
    main()
