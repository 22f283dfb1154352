"""Every distinct opening of 4x6 and 5x8 for the four one-step heuristics, as `keypeg openings` plays them.

Run: nice -n 10 .venv/bin/python benchmarks/openings.py [--quick] [--pool all|consistent|both]

For each game, guess pool and heuristic: each opening's total, average and worst case, the best marked
(least total, then worst case, then code order), and the CPU seconds of its tree (this process, every
thread: what load does not distort; the kernels are compiled or loaded first, so no tree pays for it).
Nothing is read from the cache. Beside each figure, where it is published, the GPU solver's (Michael
Magruder's mikemag/Mastermind, docs/initial_guesses/mastermind_run_stats_find_ig_{4,5}p_20201205_175810_6bacb03.csv,
totals from its histograms; its guesses come from all codes). Writes benchmarks/results/openings.md, one
section per game and pool.
"""

from __future__ import annotations

import argparse
import os
import time

import numba
from report import report

from keypeg import Rules
from keypeg.analysis.openings import Opening, best, openings
from keypeg.analysis.tree import build_tree
from keypeg.strategies import make_strategy

HEURISTICS = ("worst-case", "expected-size", "entropy", "most-parts")
SOURCE = (
    "mikemag/Mastermind (Magruder, 2020), docs/initial_guesses/mastermind_run_stats_find_ig_{4,5}p_"
    "20201205_175810_6bacb03.csv: totals from its histograms, all codes as guesses"
)
PUBLISHED: dict[tuple[str, str], dict[str, tuple[int, int]]] = {
    # (game, strategy): {opening: (total, worst)}; the GPU solver's Knuth is keypeg's worst-case
    ("4x6", "worst-case"): {
        "AAAA": (6564, 6), "AAAB": (5905, 6), "AABB": (5801, 5), "AABC": (5803, 6), "ABCD": (5803, 6),
    },
    ("4x6", "most-parts"): {
        "AAAA": (6365, 7), "AAAB": (5836, 6), "AABB": (5728, 6), "AABC": (5668, 6), "ABCD": (5759, 6),
    },
    ("4x6", "entropy"): {
        "AAAA": (6366, 6), "AAAB": (5823, 6), "AABB": (5738, 6), "AABC": (5680, 6), "ABCD": (5722, 6),
    },
    ("4x6", "expected-size"): {
        "AAAA": (6360, 6), "AAAB": (5866, 6), "AABB": (5770, 5), "AABC": (5696, 6), "ABCD": (5742, 6),
    },
    ("5x8", "worst-case"): {
        "AAAAA": (202917, 8), "AAAAB": (191387, 8), "AAABB": (187897, 7), "AAABC": (185514, 7),
        "AABBC": (183775, 7), "AABCD": (183966, 7), "ABCDE": (185184, 7),
    },
    ("5x8", "most-parts"): {
        "AAAAA": (200956, 8), "AAAAB": (187720, 8), "AAABB": (184809, 8), "AAABC": (183026, 8),
        "AABBC": (181834, 8), "AABCD": (182065, 8), "ABCDE": (183713, 8),
    },
    ("5x8", "entropy"): {
        "AAAAA": (199082, 8), "AAAAB": (186475, 8), "AAABB": (183192, 8), "AAABC": (181592, 7),
        "AABBC": (179748, 7), "AABCD": (179903, 8), "ABCDE": (181198, 7),
    },
    ("5x8", "expected-size"): {
        "AAAAA": (199458, 8), "AAAAB": (186584, 8), "AAABB": (183733, 7), "AAABC": (181749, 7),
        "AABBC": (180209, 7), "AABCD": (180295, 7), "ABCDE": (181248, 7),
    },
}  # fmt: skip


def published(game: str, name: str, pool: str, opening: Opening) -> str:
    """The published total and worst case of this opening, with = when keypeg's are the same."""
    if pool != "all" or (game, name) not in PUBLISHED:
        return ""
    figures = PUBLISHED[(game, name)].get(str(opening.guess))
    if figures is None:
        return ""
    total, worst = figures
    same = "=" if (total, worst) == (opening.total, opening.worst) else "≠"
    return f"{same} {total:,} / {worst}"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="only 4x6")
    parser.add_argument("--pool", choices=["all", "consistent", "both"], default="both")
    args = parser.parse_args()
    games = [Rules(4, 6)] if args.quick else [Rules(4, 6), Rules(5, 8)]
    pools = ["all", "consistent"] if args.pool == "both" else [args.pool]
    for name in HEURISTICS:  # compile (or load) the tree kernel and its callees before anything is timed
        build_tree(make_strategy(name), Rules(4, 6))
    for rules in games:
        game = f"{rules.pegs}x{rules.colors}"
        for pool in pools:
            before, started, cpu = load(), time.perf_counter(), time.process_time()
            rows = []
            for name in HEURISTICS:
                strategy = make_strategy(name, pool=pool)
                found = openings(rules, strategy, use_cache=False)
                chosen = best(found)
                for opening in found:
                    row = [name, str(opening.guess), f"{opening.total:,}", f"{opening.average:.4f}"]
                    row += [str(opening.worst), "**best**" if opening is chosen else ""]
                    row += [f"{opening.cpu_seconds:.3f}", f"{opening.seconds:.3f}"]
                    row.append(published(game, name, pool, opening))
                    rows.append(row)
                    print(" | ".join(row), flush=True)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            report(
                "openings",
                f"{game}, {pool} codes as guesses",
                "nice -n 10 .venv/bin/python benchmarks/openings.py",
                [
                    f"Threads: {numba.get_num_threads()}. Load average (1, 5, 15 min) before: {before}; "
                    f"after: {load()}. The section took {cpu:.1f} CPU s, {wall:.1f} s wall.",
                    "CPU s: this process's CPU seconds (every thread) while the tree grew; wall s: its elapsed time.",
                    f"Published: {SOURCE}; = the same total and worst case, ≠ not." if pool == "all" else "",
                ],
                ["strategy", "opening", "total", "average", "worst", "best", "CPU s", "wall s", "published"],
                rows,
                left=2,
                section=True,
            )


if __name__ == "__main__":
    main()
