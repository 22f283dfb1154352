"""The genetic codebreaker measured against most parts, on the same seeded secrets.

Run: .venv/bin/python benchmarks/genetic.py [--games 500] [--sizes 4x6,5x8,6x9,8x12] [--workers N | --scheduler ADDRESS]

For each size, ``--games`` secrets (``random_code(rules, random.Random(seed))``, seeds 0, 1, ...) are
broken by the genetic codebreaker (seeded with the same seed) and by most parts (Kooi's strategy, the
best one-step heuristic here): its whole tree where it is small enough to build (the secrets' guesses
read from the tree, and the whole tree's average), else played game by game where the codes can be
enumerated. Mean guesses with a two-sided 95% Student-t interval (:func:`keypeg.analysis.statistics.mean_interval`),
the paired difference, the worst case and the time per game; games run as tasks through
:func:`keypeg.cluster.workers`. Writes the table to benchmarks/results/genetic.md.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from report import report
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from keypeg import Rules, score
from keypeg.analysis.cost import format_seconds
from keypeg.analysis.statistics import mean_interval
from keypeg.cluster import workers
from keypeg.code import Code
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
from keypeg.storage import atomic_write
from keypeg.strategies import make_strategy

SIZES = "4x6,5x8,6x9,8x12"
ROWS = 50
"""Rows enough that no game is lost."""
TREE_LIMIT = 40_000
"""Most parts' whole tree is built up to this many codes."""
PLAY_LIMIT = 1_000_000
"""Above the tree limit and up to this many codes, most parts is played game by game (it enumerates the codes)."""

Job = tuple[str, int, int, int]
"""(what, pegs, colours, seed or games): a game of ``genetic`` or ``most-parts``, or most parts' ``tree``."""


def measure(job: Job) -> tuple[list[int], float, float]:
    """The task: a game's guesses and seconds, or the tree's guesses for secrets 0..games-1, its seconds
    per secret and its whole average."""
    what, pegs, colors, number = job
    rules = Rules(pegs, colors, rows=ROWS)
    if what == "tree":
        from keypeg.analysis.tree import build_tree

        tree = build_tree(make_strategy("most-parts"), rules)
        guesses = [len(tree.replay(secret(rules, seed))) for seed in range(number)]
        return guesses, tree.seconds / rules.size, tree.stats.average
    strategy = make_strategy(what, seed=number) if what == "genetic" else make_strategy(what)
    hidden = secret(rules, number)
    knowledge = Knowledge(rules)
    start = time.perf_counter()
    while not knowledge.solved:
        guess = strategy.next_guess(knowledge)
        knowledge = knowledge.add(guess, score(hidden, guess))
    return [len(knowledge.history)], time.perf_counter() - start, 0.0


def secret(rules: Rules, seed: int) -> Code:
    """The secret of game ``seed``."""
    return random_code(rules, random.Random(seed))


def jobs(sizes: list[Rules], games: int) -> list[Job]:
    """Every task: most parts' trees first (a long one each), then the games seed by seed, so that every
    size has as many games done when the run stops."""
    found: list[Job] = [("tree", r.pegs, r.colors, games) for r in sizes if r.size <= TREE_LIMIT]
    for seed in range(games):
        for rules in sorted(sizes, key=lambda r: -r.size):
            found.append(("genetic", rules.pegs, rules.colors, seed))
            if TREE_LIMIT < rules.size <= PLAY_LIMIT:
                found.append(("most-parts", rules.pegs, rules.colors, seed))
    return found


def load(path: Path) -> dict[str, list[Any]]:
    """The results kept by an earlier run, by job."""
    if not path.exists():
        return {}
    kept: dict[str, list[Any]] = json.loads(path.read_text(encoding="utf-8"))
    return kept


def size(text: str) -> Rules:
    pegs, _, colors = text.partition("x")
    return Rules(int(pegs), int(colors), rows=ROWS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=500, help="seeded secrets per size (default 500)")
    parser.add_argument("--sizes", default=SIZES, help=f"pegs x colours, comma-separated (default {SIZES})")
    parser.add_argument("--workers", type=int, help="a local Dask cluster of this many worker processes")
    parser.add_argument("--scheduler", help="an existing Dask cluster's scheduler address")
    parser.add_argument("--no-save", action="store_true", help="print the table without saving it")
    parser.add_argument(
        "--keep",
        type=Path,
        default=Path("genetic-games.json"),
        help="every game's result is kept here as it comes; a rerun plays only the missing ones",
    )
    args = parser.parse_args()
    try:
        sizes = [size(s) for s in args.sizes.split(",")]
    except ValueError as error:
        parser.error(f"--sizes: {error}")
    if args.games < 2:
        parser.error("--games: 2 or more (an interval needs two values)")
    kept = load(args.keep)
    todo = [job for job in jobs(sizes, args.games) if " ".join(map(str, job)) not in kept]
    if len(todo) < len(jobs(sizes, args.games)):
        print(f"reusing {len(jobs(sizes, args.games)) - len(todo)} results kept in {args.keep}", file=sys.stderr)
    started = time.perf_counter()
    where = "this process"
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with workers(args.workers, args.scheduler) as pool, Progress(*columns, TimeRemainingColumn()) as progress:
            where = pool.description
            bar = progress.add_task(f"games on {where}", total=len(todo))
            for position, result in pool.run(measure, todo):
                kept[" ".join(map(str, todo[position]))] = list(result)
                atomic_write(args.keep, json.dumps(kept))
                progress.advance(bar)
    except KeyboardInterrupt:
        print(
            f"interrupted: the results so far are kept in {args.keep}; run the same command to go on", file=sys.stderr
        )
        sys.exit(130)
    wall = time.perf_counter() - started
    rows = [row(r, args.games, kept) for r in sizes]
    report(
        "genetic",
        f"Genetic codebreaker beside most parts, {args.games} seeded secrets per size",
        f".venv/bin/python benchmarks/genetic.py --games {args.games} --sizes {args.sizes}"
        + (f" --workers {args.workers}" if args.workers else ""),
        [
            f"Secrets: `random_code(rules, random.Random(seed))` for seeds 0..{args.games - 1}; the genetic",
            "codebreaker is seeded with the same seed (paper defaults: population 150, 100 generations,",
            "eligible set 60).",
            "Most parts: its whole tree up to 40,000 codes (the same secrets read from it; seconds a game: the tree's",
            "time over its codes), played game by game up to 1,000,000 codes, not at all above.",
            "Means with a two-sided 95% Student-t interval (`keypeg.analysis.statistics.mean_interval`); the",
            "difference is paired (genetic minus most parts, secret by secret). Seconds a game: the median.",
            "Every game's result is kept as it comes (`--keep FILE`): a rerun plays only the missing ones.",
            f"The games' own seconds add up to {format_seconds(sum(r[1] for r in kept.values()))}; the last run took "
            f"{wall / 60:.1f} minutes on {where}, beside other work on the machine.",
        ],
        [
            "game",
            "genetic: mean (95% CI)",
            "worst",
            "s/game",
            "most parts: mean (95% CI)",
            "worst",
            "s/game",
            "most parts, whole tree",
            "genetic - most parts (95% CI)",
        ],
        rows,
        save=not args.no_save,
    )


def row(rules: Rules, games: int, kept: dict[str, list[Any]]) -> list[str]:
    """The table's row of ``rules``: the genetic codebreaker's figures, then most parts' where it ran."""
    pegs, colors = rules.pegs, rules.colors
    genetic = [kept[f"genetic {pegs} {colors} {seed}"] for seed in range(games)]
    guesses = [played[0] for played, _, _ in genetic]
    cells = [f"{pegs}x{colors}", interval(guesses), str(max(guesses))]
    cells.append(f"{statistics.median(taken for _, taken, _ in genetic):.2f}")
    if f"tree {pegs} {colors} {games}" in kept:
        parts, taken, average = kept[f"tree {pegs} {colors} {games}"]
        whole = f"{average:.4f}"
    elif f"most-parts {pegs} {colors} 0" in kept:
        played = [kept[f"most-parts {pegs} {colors} {seed}"] for seed in range(games)]
        parts, taken, whole = [p[0][0] for p in played], statistics.median(p[1] for p in played), ""
    else:
        return [*cells, "", "", "", "", ""]
    cells += [interval(parts), str(max(parts)), f"{taken:.3f}", whole]
    cells.append(interval([g - m for g, m in zip(guesses, parts, strict=True)], signed=True))
    return cells


def interval(sample: list[int], signed: bool = False) -> str:
    found = mean_interval(sample)
    sign = "+" if signed else ""
    return f"{found.mean:{sign}.3f} ({found.low:{sign}.3f} to {found.high:{sign}.3f})"


if __name__ == "__main__":
    main()
