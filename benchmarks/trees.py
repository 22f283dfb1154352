"""Time each heuristic's whole strategy tree, as `keypeg analyze` builds it.

Run: .venv/bin/python benchmarks/trees.py [--big] [--quick]

For each game and heuristic: the tree's total and worst case, the time on one
core and on all cores (the tree kernel, subtrees side by side), and, as the
baseline measured in the same run, the time of the Python path on one core
(``build_tree(..., compiled=False)``: one decision per node through
``Strategy.rank``, the reference the kernel is tested against), which must give
the same total. ``--big`` adds 6x9 most parts (kernel only) with its peak memory.
Writes the table to benchmarks/results/trees.md.

``--gpu [GAME ...]``: the games of the GPU solver's published table (6x9, 7x7, 8x6; most parts and
Knuth's worst case) as ``keypeg analyze --first <its opening>`` grows them, each tree's CPU seconds (this
process, every thread: what load does not distort) and cores, beside the published total, worst case,
opening and seconds; a section of trees.md.

``--wide GAME --first CODE [--strategy S] [--seconds N] [--workers 2]``: a tree past one word (7x10,
8x7) grown on a local Dask cluster for at most N seconds, its figures only kept (``distributed_totals``):
the secrets solved over time, the rate, an estimate to finish, the workers' CPU seconds and peak memory;
a section of trees.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numba
from report import report

from keypeg import Rules
from keypeg.analysis.tree import build_tree
from keypeg.strategies import make_strategy

HEURISTICS = ("worst-case", "expected-size", "entropy", "most-parts")
GPU_SOURCE = (
    "the GPU solver (Michael Magruder, github.com/mikemag/Mastermind, results/README.md and the runs in "
    "results/2023_4090/mastermind_run_stats_20231014_*_aa_{6p_2-15c,7p_2-11c,8p_2-8c}.json: Total Turns, "
    "Max Turns, Initial Guess, Elapsed; RTX 4090 with an i9-13900K); its Knuth is keypeg's worst-case"
)
GPU: dict[tuple[str, str], tuple[str, int, int, float]] = {
    # (game, strategy): (opening, total, worst case, seconds), as published
    ("6x9", "most-parts"): ("AABBCD", 3_396_961, 9, 1.367),
    ("6x9", "worst-case"): ("AABBCD", 3_416_564, 9, 1.385),
    ("7x7", "most-parts"): ("AAABBCC", 5_073_674, 10, 2.302),
    ("7x7", "worst-case"): ("AABBCCD", 5_124_234, 8, 2.786),
    ("8x6", "most-parts"): ("AAABBBCC", 10_540_468, 10, 12.379),
    ("8x6", "worst-case"): ("AAABBCCD", 10_658_126, 9, 14.887),
    ("7x10", "most-parts"): ("AABBCCD", 72_910_123, 11, 253.8),
    ("7x10", "worst-case"): ("AABBCDE", 72_907_957, 10, 372.3),
    ("8x7", "most-parts"): ("AAABBCCD", 38_827_800, 11, 127.7),
    ("8x7", "worst-case"): ("AABBCCDD", 39_086_516, 9, 141.5),
}
"""The GPU solver's figures; 7x10 and 8x7 (codes past one word, or ten million of them) go with ``--wide``."""
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


def game_rules(game: str) -> Rules:
    """``6x9`` as rules."""
    pegs, colors = game.split("x")
    return Rules(int(pegs), int(colors))


def cpu_seconds() -> float:
    """This process's CPU seconds so far, every thread, and those of its children that ended."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def load() -> str:
    """The machine's load averages over 1, 5 and 15 minutes."""
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def gpu_rows(games: list[str]) -> None:
    """The GPU solver's games as ``keypeg analyze --first <its opening>`` grows them, beside its figures."""
    cores = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    build_tree(make_strategy("most-parts"), Rules(4, 6))  # compile (or load) the kernel first
    rows = []
    for (game, name), (opening, total, worst, seconds) in GPU.items():
        if game not in games:
            continue
        rules = game_rules(game)
        strategy = make_strategy(name, first=rules.parse(opening))
        before, cpu, wall = load(), cpu_seconds(), time.perf_counter()
        tree = build_tree(strategy, rules)
        cpu, wall = cpu_seconds() - cpu, time.perf_counter() - wall
        same = "yes" if (tree.stats.total, tree.stats.max) == (total, worst) else "**no**"
        rows.append(
            [
                game,
                name,
                opening,
                f"{tree.stats.total:,}",
                str(tree.stats.max),
                f"{total:,}",
                str(worst),
                same,
                f"{cpu:,.1f}",
                str(cores),
                f"{cpu / cores:,.1f}",
                f"{wall:,.1f}",
                f"{seconds:,.3f}",
                f"{before} / {load()}",
            ]
        )
        print(" | ".join(rows[-1]), flush=True)
    report(
        "trees",
        "The GPU solver's games",
        f".venv/bin/python benchmarks/trees.py --gpu {' '.join(games)}",
        [
            f"Published: {GPU_SOURCE}.",
            "keypeg: `keypeg analyze -s STRATEGY --first OPENING` (build_tree on every core of this process); CPU s: "
            "this process's processor seconds, every thread (load does not distort them); per core: CPU s over the "
            "cores; wall: elapsed here, under the load shown (1-minute averages before / after, 2-core machine "
            "shared by other work).",
        ],
        [
            "game",
            "strategy",
            "opening",
            "total",
            "worst",
            "GPU total",
            "GPU worst",
            "same",
            "CPU s",
            "cores",
            "CPU s per core",
            "wall s",
            "GPU s",
            "load",
        ],
        rows,
        left=3,
        section=True,
    )


def wide_run(game: str, opening: str, name: str, seconds: float, count: int) -> None:
    """A tree grown on ``count`` local workers for at most ``seconds``, its figures only kept: the rate."""
    from keypeg.analysis.distributed import distributed_totals
    from keypeg.cluster import workers

    rules = game_rules(game)
    strategy = make_strategy(name, first=rules.parse(opening))
    solved, marks = 0, []
    started = cpu = 0.0

    class Enough(Exception):
        """The time given is up."""

    def progress(count: int) -> None:
        nonlocal solved
        solved += count
        now = time.perf_counter() - started
        marks.append((now, solved))
        if now > seconds:
            raise Enough

    with workers(count) as place:
        client = getattr(place, "client", None)  # each worker enumerates the codes and loads the kernel first
        if client is not None:
            client.run(_warm, rules)
        else:
            _warm(rules)
        peaks_before = place.peak_memory()
        cpu, started, before = _workers_cpu(place), time.perf_counter(), load()
        finished = True
        try:
            stats, _ = distributed_totals(strategy, rules, place, progress=progress)
        except Enough:
            finished = False
        wall = time.perf_counter() - started
        cpu = _workers_cpu(place) - cpu
        peaks = place.peak_memory()
    half = [m for m in marks if m[0] >= wall / 2]
    rate = (solved - half[0][1]) / (wall - half[0][0]) if len(half) > 1 and wall > half[0][0] else 0.0
    left = rules.size - solved
    eta = f"{left / rate / 3600:,.1f} h" if rate > 0 and not finished else "done" if finished else "unknown"
    row = [
        game,
        name,
        opening,
        str(count),
        f"{wall:,.0f}",
        f"{cpu:,.0f}",
        f"{solved:,}",
        f"{solved / rules.size:.2%}",
        f"{rate:,.0f}",
        eta,
        ", ".join(f"{p / 2**20:,.0f}" for p in peaks.values()),
        ", ".join(f"{p / 2**20:,.0f}" for p in peaks_before.values()),
        f"{before} / {load()}",
    ]
    if finished:
        row[6] += f" (total {stats.total:,}, worst {stats.max})"
    print(" | ".join(row), flush=True)
    report(
        "trees",
        "Trees past one word: a bounded run on a local cluster",
        f"nice -n 10 .venv/bin/python benchmarks/trees.py --wide {game} --first {opening} --strategy {name} "
        f"--seconds {seconds:.0f} --workers {count}",
        [
            "keypeg's distributed_totals on a local Dask cluster (each task sends back its subtrees' figures only). "
            "Solved: secrets whose path is complete when the run stopped; rate: secrets solved per second over the "
            "second half of the run (the first decisions, on the largest parts, solve none: the rate grows); "
            "to finish: the secrets left at that rate, a rough upper bound. CPU s: the workers' processor seconds. "
            "Peak MiB: each worker's resident peak (after loading: before the tree).",
        ],
        [
            "game",
            "strategy",
            "opening",
            "workers",
            "wall s",
            "CPU s",
            "solved",
            "share",
            "secrets/s",
            "to finish",
            "peak MiB",
            "loaded MiB",
            "load",
        ],
        [row],
        left=3,
        section=True,
    )


def _warm(rules: Rules) -> float:
    """On a worker: the code space and the tree kernel, ready (kept by the worker's process)."""
    from keypeg.kernels import CodeSpace, compile_tree_kernel

    CodeSpace.of(rules)._words  # noqa: B018 - the property builds the arrays the kernel reads
    compile_tree_kernel()
    build_tree(make_strategy("most-parts"), Rules(4, 6))
    return time.process_time()


def _workers_cpu(place: object) -> float:
    """The processor seconds of every worker process so far."""
    client = getattr(place, "client", None)
    if client is None:
        return time.process_time()
    return float(sum(client.run(time.process_time).values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--big", action="store_true", help="also 6x9 most parts")
    parser.add_argument("--quick", action="store_true", help="only 4x6 and 4x7")
    parser.add_argument("--gpu", nargs="*", metavar="GAME", help="the GPU solver's games (6x9 7x7 8x6 by default)")
    parser.add_argument("--wide", metavar="GAME", help="a tree past one word on a local cluster (7x10, 8x7)")
    parser.add_argument("--first", metavar="CODE", help="its opening (default: the GPU solver's)")
    parser.add_argument("--strategy", default="most-parts")
    parser.add_argument("--seconds", type=float, default=600.0, help="stop after this long")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.gpu is not None:
        gpu_rows(args.gpu or ["6x9", "7x7", "8x6"])
        return
    if args.wide:
        opening = args.first or GPU[(args.wide, args.strategy)][0]
        wide_run(args.wide, opening, args.strategy, args.seconds, args.workers)
        return
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
        section=True,
    )


if __name__ == "__main__":
    main()
