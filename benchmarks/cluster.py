"""Whole trees on a local Dask cluster beside the same tree in one process: time, tasks, bytes, memory.

For each game, the strategy's tree is built in this process (every core) and by ``--workers N``
local worker processes (one kernel thread each, the cluster started and warmed up before timing),
and the two trees must be equal. Printed per game: both times and their ratio; the tasks (decisions
and subtrees), their seconds in all and the longest of each kind, the most codes in a task; the bytes
sent and received (pickled); the span, the longest chain of tasks (the longest decision of each
depth, then the longest subtree task), below which no number of workers brings the time; and each
worker's peak memory (its largest resident size so far: the games run smallest first).
``--no-baseline`` skips the in-process tree (6x9 with today's Python tree builder takes hours).
``--log FILE`` keeps every task's kind, depth, codes and seconds (JSON) for the scaling note.

    python benchmarks/cluster.py [--games 5x8,5x9,6x7] [-s most-parts] [--workers 2] [--no-baseline] [--log FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from report import report

from keypeg import Rules
from keypeg.analysis.cost import format_bytes
from keypeg.analysis.distributed import Traffic, distributed_tree
from keypeg.analysis.tree import build_tree
from keypeg.cluster import Workers, workers
from keypeg.strategies import make_strategy
from keypeg.strategy_tree import tree_to_json


def span(traffic: Traffic) -> float:
    """The longest chain of tasks: the longest decision at each depth, then the longest subtree task."""
    decisions: dict[int, float] = {}
    for kind, depth, _, seconds in traffic.log:
        if kind == "decide":
            decisions[depth] = max(decisions.get(depth, 0.0), seconds)
    return sum(decisions.values()) + traffic.longest.get("grow", 0.0)


def nothing(n: int) -> int:
    """A task that does nothing: its round trip is the scheduler's and the transport's cost."""
    return n


def overhead(place: Workers, tasks: int = 2000) -> float:
    """Seconds a task costs beyond its work: ``tasks`` empty tasks through ``place``, over their number."""
    started = time.perf_counter()
    for _ in place.run(nothing, range(tasks)):
        pass
    return (time.perf_counter() - started) / tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="5x8,5x9,6x7", help="games as PEGSxCOLORS, smallest first")
    parser.add_argument("-s", "--strategy", default="most-parts")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-baseline", action="store_true", help="skip the tree in this process")
    parser.add_argument("--log", type=Path, help="save every task's figures here (JSON)")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    games = [Rules(*map(int, game.split("x"))) for game in args.games.split(",")]
    rows, logs = [], {}
    with workers(args.workers) as place:
        distributed_tree(make_strategy(args.strategy), Rules(4, 4), place)  # the workers load the kernels
        per_task = overhead(place)
        for rules in games:
            alone = None
            if not args.no_baseline:
                started = time.perf_counter()
                alone = build_tree(make_strategy(args.strategy), rules)
                here = time.perf_counter() - started
            started = time.perf_counter()
            tree, traffic = distributed_tree(make_strategy(args.strategy), rules, place)
            there = time.perf_counter() - started
            if alone is not None:
                assert tree_to_json(tree) == tree_to_json(alone), f"{rules.slug}: the trees differ"
            peaks = place.peak_memory().values()
            logs[rules.slug] = traffic.log
            rows.append(
                [
                    rules.slug,
                    f"{tree.stats.total:,}",
                    "" if alone is None else f"{here:.1f}",
                    f"{there:.1f}",
                    "" if alone is None else f"{here / there:.2f}",
                    f"{traffic.tasks.get('decide', 0)} + {traffic.tasks.get('grow', 0)}",
                    f"{sum(traffic.seconds.values()):.1f}",
                    f"{traffic.longest.get('decide', 0.0):.2f} / {traffic.longest.get('grow', 0.0):.2f}",
                    f"{span(traffic):.1f}",
                    f"{traffic.largest:,}",
                    f"{format_bytes(traffic.sent)} / {format_bytes(traffic.received)}",
                    " ".join(format_bytes(peak) for peak in peaks),
                ]
            )
    if args.log is not None:
        args.log.write_text(json.dumps(logs))
    report(
        "cluster",
        f"Whole {args.strategy} trees on {args.workers} local Dask workers",
        "python benchmarks/cluster.py " + " ".join(f"--games {args.games} -s {args.strategy}".split()),
        [
            "In process: build_tree on every core. Cluster: distributed_tree on local worker processes, one kernel "
            "thread each, cluster started and warm before timing. Ratio: in process over cluster, same run; the "
            "trees are checked equal node for node.",
            "Tasks: decisions + subtree tasks; task seconds: their processor seconds in all (the work, however "
            "busy the machine); longest: the longest decision / subtree task (processor seconds); span: the "
            "longest decision at each depth plus the longest subtree task; bytes: pickled, sent / received; "
            "memory: each worker's peak resident size so far.",
            f"An empty task's round trip on this cluster: {per_task * 1000:.2f} ms (2,000 tasks, same run).",
        ],
        [
            "game",
            "total",
            "in process (s)",
            "cluster (s)",
            "ratio",
            "tasks",
            "task seconds",
            "longest (s)",
            "span (s)",
            "most codes in a task",
            "bytes",
            "peak memory per worker",
        ],
        rows,
        save=not args.no_save,
    )


if __name__ == "__main__":
    main()
