"""Time each heuristic's whole strategy tree, as `keypeg analyze` builds it.

Run: .venv/bin/python benchmarks/trees.py [--big] [--quick]

For each game and heuristic: the tree's total and worst case, the time on one
core and on all cores (the tree kernel, subtrees side by side), and, as the
baseline measured in the same run, the time of the Python path on one core
(``build_tree(..., compiled=False)``: one decision per node through
``Strategy.rank``, the reference the kernel is tested against), which must give
the same total. ``--big`` adds 6x9 most parts (kernel only) with its peak memory.
Writes the table to benchmarks/results/trees.md.
"""

from __future__ import annotations

import argparse
import resource
import time

import numba
from report import report

from keypeg import Rules
from keypeg.analysis.tree import build_tree
from keypeg.strategies import make_strategy

HEURISTICS = ("worst-case", "expected-size", "entropy", "most-parts")
REFERENCE = "fastest C++ solver known, one core: 4x6 any heuristic 5-10 ms; 5x8 worst case 4.7 s, "
REFERENCE += "expected size 2.1 s, entropy 3.6 s, most parts 1.8 s"


def timed(name: str, rules: Rules, threads: int, compiled: bool = True) -> tuple[float, int, int]:
    numba.set_num_threads(threads)
    start = time.perf_counter()
    tree = build_tree(make_strategy(name), rules, compiled=compiled)
    return time.perf_counter() - start, tree.stats.total, tree.stats.max


def peak_mib() -> float:
    """The largest resident set of this process so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


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
            timed(name, rules, 1, compiled=False)
    rows = []
    jobs = [(rules, name) for rules in games for name in HEURISTICS]
    if args.big:
        jobs.append((Rules(6, 9), "most-parts"))
    for rules, name in jobs:
        one, total, worst = timed(name, rules, 1)
        many, _, _ = timed(name, rules, cores)
        base = ratio = ""
        if rules.size <= 32768:
            python, python_total, _ = timed(name, rules, 1, compiled=False)
            assert python_total == total, "the kernel changed a total"
            base, ratio = f"{python:.3f}", f"{python / one:.1f}x"
        row = [f"{rules.pegs}x{rules.colors}", name, f"{total:,}", str(worst), f"{one:.3f}", f"{many:.3f}"]
        rows.append([*row, f"{one / many:.2f}x", base, ratio])
        print(" | ".join(rows[-1]), flush=True)
    report(
        "trees",
        "Whole-tree times (seconds)",
        f".venv/bin/python benchmarks/trees.py{' --big' if args.big else ''}",
        [
            f"Speed-up: one core over {cores} cores. Kernel: the Python path's time over the kernel's, both on "
            "one core, same run, same totals.",
            f"Peak memory of this process (max RSS): {peak_mib():.0f} MiB.",
            f"Reference: {REFERENCE}.",
        ],
        [
            "game",
            "strategy",
            "total",
            "worst",
            "1 core (s)",
            f"{cores} cores (s)",
            "speed-up",
            "Python path, 1 core (s)",
            "kernel",
        ],
        rows,
        left=2,
        save=not args.quick,
    )


if __name__ == "__main__":
    main()
