"""Time each heuristic's whole strategy tree, as `keypeg analyze` builds it.

Run: .venv/bin/python benchmarks/trees.py [--big] [--quick]

For each game and heuristic: the tree's total and worst case, the time on one
core and on all cores, and, as the baseline measured in the same run, the time
without symmetry classes (small games only; it scores every guess at every node).
Writes the table to benchmarks/results/trees.md.
"""

from __future__ import annotations

import argparse
import time

import numba
from report import report

from keypeg import Rules
from keypeg.analysis.tree import build_tree
from keypeg.strategies import make_strategy

HEURISTICS = ("worst-case", "expected-size", "entropy", "most-parts")
REFERENCE = "fastest C++ solver known, one core: 4x6 any heuristic 5-10 ms; 5x8 worst case 4.7 s, "
REFERENCE += "expected size 2.1 s, entropy 3.6 s, most parts 1.8 s"


def timed(name: str, rules: Rules, threads: int, symmetry: bool = True) -> tuple[float, int, int]:
    numba.set_num_threads(threads)
    start = time.perf_counter()
    tree = build_tree(make_strategy(name, symmetry=symmetry), rules)
    return time.perf_counter() - start, tree.stats.total, tree.stats.max


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--big", action="store_true", help="also 6x9 most parts")
    parser.add_argument("--quick", action="store_true", help="only 4x6 and 4x7")
    args = parser.parse_args()
    games = [Rules(4, 6), Rules(4, 7)] if args.quick else [Rules(4, 6), Rules(4, 7), Rules(4, 8), Rules(5, 8)]
    cores = numba.config.NUMBA_NUM_THREADS
    for rules in games[:1]:  # compile (or load) every kernel before timing
        for name in HEURISTICS:
            timed(name, rules, cores)
    rows = []
    jobs = [(rules, name) for rules in games for name in HEURISTICS]
    if args.big:
        jobs.append((Rules(6, 9), "most-parts"))
    for rules, name in jobs:
        one, total, worst = timed(name, rules, 1)
        many, _, _ = timed(name, rules, cores)
        base = ratio = ""
        if rules.size <= 4096 or name == "most-parts":
            plain, plain_total, _ = timed(name, rules, 1, symmetry=False)
            assert plain_total == total, "symmetry changed a result"
            base, ratio = f"{plain:.3f}", f"{plain / one:.1f}x"
        row = [f"{rules.pegs}x{rules.colors}", name, f"{total:,}", str(worst), f"{one:.3f}", f"{many:.3f}", base, ratio]
        rows.append(row)
    report(
        "trees",
        "Whole-tree times (seconds)",
        f".venv/bin/python benchmarks/trees.py{' --big' if args.big else ''}",
        [
            "Ratio: the time without symmetry classes over the time with them, both on one core, same run.",
            f"Reference: {REFERENCE}.",
        ],
        ["game", "strategy", "total", "worst", "1 core (s)", f"{cores} cores (s)", "no symmetry, 1 core (s)", "ratio"],
        rows,
        left=2,
        save=not args.quick,
    )


if __name__ == "__main__":
    main()
