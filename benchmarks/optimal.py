"""Time the exact optimal search, as `keypeg optimal` runs it.

Run: .venv/bin/python benchmarks/optimal.py [--big] [--bulls-and-cows] [--threads N]

Prints each game's optimal total, worst case, time and sets searched, with the
published optimum beside it, and writes the table to benchmarks/results/optimal.md.
The baseline, measured in the same run, is the time to build the most-parts
heuristic's whole tree for the same game: the ratio says how many such trees one
exact search costs, whatever the machine's speed today.
--big adds 4x7 and 4 pegs of 8 colours without repeats (a minute or two);
--bulls-and-cows adds 4 of 10 digits without repeats (most of an hour).
"""

from __future__ import annotations

import argparse
import sys
import time

import numba
from report import report

from keypeg import Rules, find_variant
from keypeg.analysis.tree import build_tree
from keypeg.strategies import make_strategy
from keypeg.strategies.optimal import OptimalSolver

REFERENCE = "fastest C++ search known, one core: classic 4x6 0.08 s, 4x7 14 s, bulls-and-cows 84 s"
PUBLISHED = {"4x6": 5625, "4x7": 11228, "bulls-and-cows": 26274, "4x6 rows 5": 5626}


def games(big: bool, bulls_and_cows: bool) -> list[tuple[str, Rules]]:
    found = [("3x4", Rules(3, 4)), ("4x4", Rules(4, 4)), ("4x6", Rules(4, 6)), ("4x6 rows 5", Rules(4, 6, rows=5))]
    if big:
        found += [("4x7", Rules(4, 7)), ("4x8 no repeats", Rules(4, 8, repeats=False))]
    if bulls_and_cows:
        found.append(("bulls-and-cows", find_variant("bulls-and-cows").rules))
    return found


def heuristic_seconds(rules: Rules) -> float:
    start = time.perf_counter()
    build_tree(make_strategy("most-parts"), rules)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--big", action="store_true", help="also 4x7 and 4x8 without repeats")
    parser.add_argument("--bulls-and-cows", action="store_true", help="also bulls-and-cows (most of an hour)")
    parser.add_argument("--threads", type=int, default=1, help="numba threads (default 1: one core)")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    OptimalSolver(Rules(3, 3)).solve()  # compile or load every kernel first
    heuristic_seconds(Rules(3, 3))
    rows = []
    for name, rules in games(args.big, args.bulls_and_cows):
        solver = OptimalSolver(rules)
        start = time.perf_counter()
        tree = solver.tree()
        seconds = time.perf_counter() - start
        baseline = heuristic_seconds(rules)
        published = PUBLISHED.get(name)
        rows.append(
            [
                name,
                f"{tree.stats.total:,}",
                f"{published:,}" if published else "",
                str(tree.stats.max),
                f"{seconds:.2f}",
                f"{seconds / baseline:,.1f}",
                f"{solver.nodes:,}",
                f"{solver.nodes / seconds:,.0f}",
            ]
        )
    baseline_note = "x most-parts: the search's time over the most-parts tree's (same game, same run)."
    report(
        "optimal",
        f"Optimal search, {args.threads} thread(s)",
        " ".join([".venv/bin/python benchmarks/optimal.py", *sys.argv[1:]]),
        [f"Reference: {REFERENCE}.", baseline_note],
        ["game", "total", "published", "worst", "seconds", "x most-parts", "sets searched", "sets/s"],
        rows,
    )


if __name__ == "__main__":
    main()
