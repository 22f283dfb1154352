"""The exact optimal search beside mmstrat (fancidev's C++ solver), same games, same run.

Run: .venv/bin/python benchmarks/optimal.py [--big] [--bulls-and-cows] [--runs 3] [--no-save]

For each game, in turn (keypeg one thread, mmstrat, keypeg two threads; medians of ``--runs``):
keypeg's search in this process (``OptimalSolver.tree()``, the kernels loaded before), and mmstrat's
``-s optimal -mt 1`` as a whole process less its start-up (mmstrat prints no time of its own). The
ratio keypeg / mmstrat is from this run only; "2 threads" is keypeg's one-thread time over its
two-thread time. Saved to benchmarks/results/optimal.md. Without mmstrat (no compiler) its columns
stay empty. --big adds 4x7, 4 pegs of 8 and 9 colours without repeats and 5x5; --bulls-and-cows adds
4 of 10 digits without repeats (a minute or two here; mmstrat took 84 s on this machine).
--whole times instead whole processes, one thread each: ``keypeg optimal --no-save --restart --json``
against mmstrat on 4x6 (and 4x7 with --big, bulls-and-cows with --bulls-and-cows), saved as a section
of its own in the same file.
--4x8 times instead the optimal search of 4 pegs of 8 colours (4,096 codes, pool all) for both objectives,
the least total (with its tree) and the worst case first, with 1 and 2 threads: CPU seconds (every thread of
this process, which the machine's other work does not inflate) and wall seconds, beside the published
8,000 s of arfst23/Mastermind on an Intel Core i7-9700K; a section of its own in the same file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from anchor import build_mmstrat, keypeg, keypeg_total, mmstrat_total, run
from report import report

from keypeg import Rules, find_variant
from keypeg.strategies.optimal import OptimalSolver

PUBLISHED = {"4x6": 5625, "4x7": 11228, "bulls-and-cows": 26274, "4x6 rows 5": 5626}
FOUR_EIGHT = {"total": (20471, 7), "worst-case": (20473, 6)}
"""4x8's optima, (total, worst case) by objective, as https://github.com/arfst23/Mastermind (README, "Solutions")
publishes them: averages 4.99780 in at most 7 guesses and 4.99829 in at most 6 (times 4,096 codes), each
found in 8,000 s on an Intel Core i7-9700K (8 cores, 8 threads; the README does not say how many its
program used)."""


def games(big: bool, bulls_and_cows: bool) -> list[tuple[str, Rules, list[str] | None]]:
    """(name, rules, mmstrat's rules arguments or None when mmstrat cannot play it)."""
    found: list[tuple[str, Rules, list[str] | None]] = [
        ("3x4", Rules(3, 4), ["-r", "p3c4r"]),
        ("4x4", Rules(4, 4), ["-r", "p4c4r"]),
        ("4x5", Rules(4, 5), ["-r", "p4c5r"]),
        ("4x6", Rules(4, 6), ["-r", "mm"]),
        ("4x6 rows 5", Rules(4, 6, rows=5), None),
        ("4x8 no repeats", Rules(4, 8, repeats=False), ["-r", "p4c8n"]),
    ]
    if big:
        found += [
            ("4x7", Rules(4, 7), ["-r", "p4c7r"]),
            ("4x9 no repeats", Rules(4, 9, repeats=False), ["-r", "p4c9n"]),
            ("5x5", Rules(5, 5), ["-r", "p5c5r"]),
        ]
    if bulls_and_cows:
        found.append(("bulls-and-cows", find_variant("bulls-and-cows").rules, ["-r", "bc"]))
    return found


def search(rules: Rules, threads: int) -> tuple[float, int, int, int]:
    """Seconds, total, worst case and sets searched of one search in this process."""
    solver = OptimalSolver(rules, threads=threads)
    start = time.perf_counter()
    tree = solver.tree()
    return time.perf_counter() - start, tree.stats.total, tree.stats.max, solver.nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--big", action="store_true", help="also 4x7, 4x9 without repeats and 5x5")
    parser.add_argument("--bulls-and-cows", action="store_true", help="also bulls-and-cows")
    parser.add_argument("--runs", type=int, default=3, help="runs of each side per game (median)")
    parser.add_argument("--no-save", action="store_true", help="print only")
    parser.add_argument("--mmstrat", help="the mmstrat binary (default: build it with benchmarks/mmstrat.py)")
    parser.add_argument("--whole", action="store_true", help="whole processes instead (keypeg optimal, mmstrat)")
    parser.add_argument("--4x8", dest="four_eight", action="store_true", help="4x8's search instead, both objectives")
    args = parser.parse_args()
    if args.four_eight:
        four_eight(args)
        return
    mmstrat, how = build_mmstrat(args.mmstrat)
    one = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    OptimalSolver(Rules(3, 3), threads=1).solve()  # load (or compile) every kernel first
    mm_startup = 0.0
    if mmstrat:
        mm_startup = statistics.median(
            run([mmstrat, "-r", "p2c2r", "-s", "simple", "-S", "-q", "-mt", "1"], one)[0] for _ in range(9)
        )
    if args.whole:
        whole(args, mmstrat, one)
        return
    rows = []
    for name, rules, theirs in games(args.big, args.bulls_and_cows):
        runs = 1 if name == "bulls-and-cows" else args.runs
        alone, together, reference = [], [], []
        for _ in range(runs):
            seconds, total, worst, nodes = search(rules, 1)
            alone.append(seconds)
            if mmstrat and theirs:
                seconds, out, _ = run([mmstrat, *theirs, "-s", "optimal", "-S", "-q", "-mt", "1"], one)
                reference.append(seconds - mm_startup)
                if mmstrat_total(out) != total:
                    raise SystemExit(f"{name}: mmstrat's total {mmstrat_total(out)} differs from keypeg's {total}")
            together.append(search(rules, 2)[0])
        k1, k2 = statistics.median(alone), statistics.median(together)
        m = statistics.median(reference) if reference else None
        published = PUBLISHED.get(name)
        if published is not None and published != total:
            raise SystemExit(f"{name}: total {total} differs from the published {published}")
        rows.append(
            [
                name,
                f"{total:,}",
                str(worst),
                f"{nodes:,}",
                f"{k1:.3f}",
                f"{k2:.3f}",
                f"{k1 / k2:.2f}",
                "" if m is None else f"{m:.3f}",
                "" if m is None else f"{k1 / max(m, 1e-4):.2f}",
            ]
        )
        print(" | ".join(rows[-1]), flush=True)
    report(
        "optimal",
        "Optimal search: keypeg in process (1 and 2 threads) beside mmstrat (one thread)",
        " ".join([".venv/bin/python benchmarks/optimal.py", *sys.argv[1:]]),
        [
            how if mmstrat else f"mmstrat: {how}",
            f"Medians of {args.runs} interleaved runs (one for bulls-and-cows); mmstrat's time is its whole "
            f"process less its start-up ({mm_startup * 1000:.1f} ms, the median of 9 runs of a 4-code game).",
            "Totals are checked against mmstrat's and the published optima (4x6 5,625, 4x7 11,228, "
            "bulls-and-cows 26,274, 4x6 within 5 rows 5,626).",
            f"Load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} (2 threads help only "
            "when a core is free).",
        ],
        [
            "game",
            "total",
            "worst",
            "sets searched",
            "1 thread s",
            "2 threads s",
            "2 threads",
            "mmstrat s",
            "keypeg / mmstrat",
        ],
        rows,
        save=not args.no_save,
        section=True,
    )


def objective_search(rules: Rules, objective: str, threads: int) -> tuple[float, float, int, int, int]:
    """CPU seconds (every thread of this process), wall seconds, total, worst case and sets searched of one
    search: the least total with its tree, or the worst case first (the fewest rounds, then the least total)."""
    solver = OptimalSolver(rules, threads=threads)
    cpu, wall = time.process_time(), time.perf_counter()
    if objective == "total":
        tree = solver.tree()
        total, worst = tree.stats.total, tree.stats.max
    else:
        worst, total = solver.fewest_rounds()
    return time.process_time() - cpu, time.perf_counter() - wall, total, worst, solver.nodes


def four_eight(args: argparse.Namespace) -> None:
    """4x8's optimal search, both objectives, 1 and 2 threads, beside the published 8,000 s."""
    rules = Rules(4, 8)
    OptimalSolver(Rules(3, 3), threads=1).solve()  # load (or compile) every kernel first
    rows = []
    for objective, (published, published_worst) in FOUR_EIGHT.items():
        timed: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
        nodes = 0
        for _ in range(args.runs):
            for threads in (1, 2):
                cpu, wall, total, worst, searched = objective_search(rules, objective, threads)
                if (total, worst) != (published, published_worst):
                    raise SystemExit(f"4x8 {objective}: {total} in {worst} differs from the published {published}")
                timed[threads].append((cpu, wall))
                nodes = searched if threads == 1 else nodes
                print(f"4x8 {objective}, {threads} threads: {cpu:.1f} CPU s, {wall:.1f} s", flush=True)
        cpu1, wall1 = (statistics.median(x) for x in zip(*timed[1], strict=True))
        cpu2, wall2 = (statistics.median(x) for x in zip(*timed[2], strict=True))
        rows.append(
            [
                "least total" if objective == "total" else "worst case first",
                f"{total:,}",
                str(worst),
                f"{nodes:,}",
                f"{cpu1:.1f}",
                f"{wall1:.1f}",
                f"{cpu2:.1f}",
                f"{wall2:.1f}",
                "8,000",
                f"{8000 / cpu1:,.0f}",
            ]
        )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    report(
        "optimal",
        "Optimal 4x8 (4,096 codes, pool all), both objectives, beside the published 8,000 s",
        " ".join([".venv/bin/python benchmarks/optimal.py", *sys.argv[1:]]),
        [
            'Published: https://github.com/arfst23/Mastermind (README, "Solutions"): 4x8\'s least total '
            "(average 4.99780, at most 7 guesses) and its worst case first (at most 6, average 4.99829), 8,000 s "
            "each on an Intel Core i7-9700K (a desktop of 8 cores and 8 threads, 3.6-4.9 GHz; how many its "
            "program used is not said). keypeg: this machine (below), in process, kernels loaded first; the "
            "least total includes building its tree.",
            f"CPU seconds are every thread's of this process (the machine's other work does not inflate them); "
            f"wall seconds do grow with it. Medians of {args.runs} runs. Load average at the end: {load}.",
        ],
        [
            "objective",
            "total",
            "worst",
            "sets searched (1 thread)",
            "1 thread CPU s",
            "1 thread wall s",
            "2 threads CPU s",
            "2 threads wall s",
            "published s (8-core i7-9700K)",
            "published s / keypeg 1 thread CPU s",
        ],
        rows,
        save=not args.no_save,
        section=True,
    )


def whole(args: argparse.Namespace, mmstrat: str | None, one: dict[str, str]) -> None:
    """Whole processes, one thread each, in turn: ``keypeg optimal`` and mmstrat."""
    if not mmstrat:
        raise SystemExit("mmstrat is needed for --whole")
    rows = []
    for name, rules, theirs in games(args.big, args.bulls_and_cows):
        if theirs is None or name not in ("4x6", "4x7", "bulls-and-cows"):
            continue
        ours = [*keypeg(), "optimal", "-p", str(rules.pegs), "-c", str(rules.colors), "--no-save", "--restart"]
        if not rules.repeats:
            ours.append("--no-repeats")
        runs = 1 if name != "4x6" else args.runs
        k, m = [], []
        for _ in range(runs):
            seconds, out, _ = run([*ours, "--json"], one)
            k.append(seconds)
            total = keypeg_total(out)
            seconds, out, _ = run([mmstrat, *theirs, "-s", "optimal", "-S", "-q", "-mt", "1"], one)
            m.append(seconds)
            if mmstrat_total(out) != total:
                raise SystemExit(f"{name}: mmstrat's total {mmstrat_total(out)} differs from keypeg's {total}")
        ks, ms = statistics.median(k), statistics.median(m)
        rows.append([name, f"{total:,}", f"{ks:.3f}", f"{ms:.3f}", f"{ks / ms:.2f}"])
        print(" | ".join(rows[-1]), flush=True)
    report(
        "optimal",
        "Optimal search, whole processes, one thread each: keypeg optimal beside mmstrat",
        " ".join([".venv/bin/python benchmarks/optimal.py", *sys.argv[1:]]),
        [
            f"Medians of {args.runs} interleaved runs for 4x6, one for the others; keypeg's figure includes "
            "Python's start-up, its imports and loading numba's cached kernels.",
            f"Load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}.",
        ],
        ["game", "total", "keypeg s", "mmstrat s", "keypeg / mmstrat"],
        rows,
        save=not args.no_save,
        section=True,
    )


if __name__ == "__main__":
    main()
