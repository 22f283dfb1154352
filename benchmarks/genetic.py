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
import random
import statistics
import sys
import time
from collections import defaultdict

from report import report
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from keypeg import Rules, score
from keypeg.analysis.statistics import mean_interval
from keypeg.cluster import workers
from keypeg.code import Code
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
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
    strategy.reset(rules)
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
    """Every task: most parts' trees first (a long one each), then the games, largest game first."""
    found: list[Job] = [("tree", r.pegs, r.colors, games) for r in sizes if r.size <= TREE_LIMIT]
    for rules in sorted(sizes, key=lambda r: -r.size):
        for seed in range(games):
            found.append(("genetic", rules.pegs, rules.colors, seed))
            if TREE_LIMIT < rules.size <= PLAY_LIMIT:
                found.append(("most-parts", rules.pegs, rules.colors, seed))
    return found


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
    args = parser.parse_args()
    try:
        sizes = [size(s) for s in args.sizes.split(",")]
    except ValueError as error:
        parser.error(f"--sizes: {error}")
    if args.games < 2:
        parser.error("--games: 2 or more (an interval needs two values)")
    todo = jobs(sizes, args.games)
    guesses: dict[tuple[str, int, int], dict[int, int]] = defaultdict(dict)
    seconds: dict[tuple[str, int, int], list[float]] = defaultdict(list)
    whole: dict[tuple[int, int], float] = {}
    started = time.perf_counter()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with workers(args.workers, args.scheduler) as pool, Progress(*columns, TimeRemainingColumn()) as progress:
            where = pool.description
            bar = progress.add_task(f"games on {where}", total=len(todo))
            for position, (played, taken, average) in pool.run(measure, todo):
                what, pegs, colors, number = todo[position]
                if what == "tree":
                    guesses["most-parts", pegs, colors] = dict(enumerate(played))
                    seconds["most-parts", pegs, colors].append(taken)
                    whole[pegs, colors] = average
                else:
                    guesses[what, pegs, colors][number] = played[0]
                    seconds[what, pegs, colors].append(taken)
                progress.advance(bar)
    except KeyboardInterrupt:
        print("interrupted: nothing was saved", file=sys.stderr)
        sys.exit(130)
    wall = time.perf_counter() - started
    rows = [row(r, args.games, guesses, seconds, whole) for r in sizes]
    report(
        "genetic",
        f"Genetic codebreaker beside most parts, {args.games} seeded secrets per size",
        f".venv/bin/python benchmarks/genetic.py --games {args.games} --sizes {args.sizes}"
        + (f" --workers {args.workers}" if args.workers else ""),
        [
            f"Secrets: `random_code(rules, random.Random(seed))` for seeds 0..{args.games - 1}; the genetic "
            "codebreaker is seeded with the same seed (paper defaults: population 150, 100 generations, eligible",
            "set 60). Most parts: its whole tree up to 40,000 codes (the same secrets read from it; seconds a game: "
            "the tree's time over its codes), played game by game up to 1,000,000 codes, not at all above.",
            "Means with a two-sided 95% Student-t interval (`keypeg.analysis.statistics.mean_interval`); the "
            "difference is paired (genetic minus most parts, secret by secret). Seconds a game: the median.",
            f"Ran in {wall / 60:.1f} minutes on {where}, beside other work on the machine.",
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


def row(
    rules: Rules,
    games: int,
    guesses: dict[tuple[str, int, int], dict[int, int]],
    seconds: dict[tuple[str, int, int], list[float]],
    whole: dict[tuple[int, int], float],
) -> list[str]:
    key = (rules.pegs, rules.colors)
    genetic = [guesses["genetic", *key][seed] for seed in range(games)]
    cells = [f"{rules.pegs}x{rules.colors}", interval(genetic), str(max(genetic))]
    cells.append(f"{statistics.median(seconds['genetic', *key]):.2f}")
    if ("most-parts", *key) not in guesses:
        return [*cells, "", "", "", "", ""]
    parts = [guesses["most-parts", *key][seed] for seed in range(games)]
    cells += [interval(parts), str(max(parts)), f"{statistics.median(seconds['most-parts', *key]):.3f}"]
    cells.append(f"{whole[key]:.4f}" if key in whole else "")
    cells.append(interval([g - m for g, m in zip(genetic, parts, strict=True)], signed=True))
    return cells


def interval(sample: list[int], signed: bool = False) -> str:
    found = mean_interval(sample)
    sign = "+" if signed else ""
    return f"{found.mean:{sign}.3f} ({found.low:{sign}.3f} to {found.high:{sign}.3f})"


if __name__ == "__main__":
    main()
