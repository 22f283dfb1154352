"""Build keypeg's best Super Mastermind (5x8) strategy and record it.

Run: nice -n 10 .venv/bin/python benchmarks/super.py [--depth 3] [--width 4] [--exact-below 0] [--threads 2]

The rollout of :mod:`keypeg.analysis.rollout` over the four one-step heuristics: the first ``--depth``
levels choose each node's guess among the ``--width`` best guesses of each heuristic (and each
heuristic's own) by the total of the best heuristic subtrees that follow; deeper nodes follow the best
heuristic subtree. Decisions are checkpointed (``--checkpoint``, by default in the cache folder), so an
interrupted run resumes. Writes the tree, gzipped, to ``src/keypeg/data/super-5x8-rollout.json.gz``
(``--out``), verifies it against all 32,768 secrets, and writes benchmarks/results/super.md with the
totals, the best single heuristic of the same run as the baseline, CPU seconds, and the machine's load.
``--quick`` runs the same on 4x6 (a check of the method: the optimum there is 5,625).
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import resource
import sys
import time
from pathlib import Path

from keypeg import Rules
from keypeg.analysis.bounds import lower_bound
from keypeg.analysis.rollout import RolloutPlan, rollout_tree
from keypeg.storage import atomic_write, cache_dir
from keypeg.strategy_tree import tree_to_json, verify_tree

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "keypeg" / "data" / "super-5x8-rollout.json.gz"
RESULTS = ROOT / "benchmarks" / "results" / "super.md"
PUBLISHED = 179_751
"""The lowest published 5x8 total found: entropy from 11223 (AABBC), mikemag/Mastermind's GPU solver,
results/README.md (5.4856 on average) and its raw figures (Total Turns 179751, Max Turns 7)."""


def cpu_seconds() -> float:
    """CPU seconds of this process and its children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--width", type=int, default=4)
    parser.add_argument("--smallest", type=int, default=8)
    parser.add_argument("--exact-below", type=int, default=0)
    parser.add_argument("--exact-seconds", type=float, default=None, help="CPU seconds for the exact searches")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--checkpoint", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=DATA)
    parser.add_argument("--quick", action="store_true", help="4x6 instead of 5x8, nothing written")
    args = parser.parse_args()
    rules = Rules(4, 6) if args.quick else Rules(5, 8, rows=12)
    plan = RolloutPlan(depth=args.depth, width=args.width, smallest=args.smallest, exact_below=args.exact_below)
    checkpoint = args.checkpoint or cache_dir() / f"rollout-{rules.slug}-d{plan.depth}-w{plan.width}.json"
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    started, wall = cpu_seconds(), time.perf_counter()
    result = rollout_tree(
        rules,
        plan,
        checkpoint=checkpoint,
        threads=args.threads,
        progress=lambda s: print(s, flush=True),
        exact_seconds=args.exact_seconds,
    )
    cpu = cpu_seconds() - started
    seconds = time.perf_counter() - wall
    stats = result.tree.stats
    verified = verify_tree(result.tree)
    print(f"total {stats.total:,}, worst {stats.max}, verified {verified.ok}, {cpu:,.0f} CPU s, {seconds:,.0f} s")
    if not verified.ok:
        sys.exit(f"not verified: {verified.problems[:3]}")
    if args.quick:
        return
    bound_started = cpu_seconds()
    bound = lower_bound(rules, levels=2)
    bound_cpu = cpu_seconds() - bound_started
    atomic_write(args.out, gzip.compress(tree_to_json(result.tree).encode(), mtime=0))
    best_name = min(result.baseline, key=lambda n: result.baseline[n])
    lines = [
        "# Super Mastermind (5x8): keypeg's best strategy and its proven lower bound",
        "",
        f"`nice -n 10 .venv/bin/python benchmarks/super.py --depth {plan.depth} --width {plan.width} "
        f"--smallest {plan.smallest} --exact-below {plan.exact_below} --threads {args.threads}` on "
        f"{platform.machine()}, {os.cpu_count()} cores shared with other work (load average "
        f"{load[0]:.1f} at the start), Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}.",
        "",
        "| strategy | total | average | worst | CPU s |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, total in result.baseline.items():
        lines.append(f"| {name} (its own first guess) | {total:,} | {total / rules.size:.4f} | | |")
    lines += [
        f"| lowest published (GPU solver, entropy from AABBC) | {PUBLISHED:,} | {PUBLISHED / rules.size:.4f} | 7 | |",
        f"| **rollout** (depth {plan.depth}, width {plan.width}) | **{stats.total:,}** | {stats.average:.4f} | "
        f"{stats.max} | {cpu:,.0f} |",
        f"| lower bound (`keypeg bound --variant super`) | {bound.total:,} | {bound.total / rules.size:.4f} | | "
        f"{bound_cpu:,.0f} |",
        "",
        f"Against the best single heuristic of this run ({best_name}, {result.baseline[best_name]:,}): "
        f"{result.baseline[best_name] - stats.total:,} guesses fewer; against the lowest published total: "
        f"{PUBLISHED - stats.total:,} fewer. Gap to the proven lower bound: {stats.total - bound.total:,} "
        f"({(stats.total - bound.total) / bound.total:.2%}).",
        f"Secrets per round: {', '.join(f'{d}: {n:,}' for d, n in stats.distribution.items())}.",
        f"{result.subtrees:,} heuristic subtrees grown; {len(result.decisions)} nodes decided by rollout; "
        f"wall {seconds:,.0f} s on {args.threads} threads.",
        f"The tree: `{args.out.relative_to(ROOT)}` ({args.out.stat().st_size / 1024:,.0f} KiB); "
        f"`keypeg verify {args.out.relative_to(ROOT)}` replays it against every secret.",
        "",
    ]
    atomic_write(RESULTS, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
