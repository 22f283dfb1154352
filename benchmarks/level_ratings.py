"""The computer's levels' fixed ratings, measured by matches of the levels against each other.

Run: .venv/bin/python benchmarks/level_ratings.py [--games 400] [--seed 30] [--out src/keypeg/data/level-ratings.json]

Each of ``--games`` secrets of classic Mastermind (4 pegs, 6 colours, 12 rows; drawn by
``random_code(rules, random.Random(seed + n))``) is broken by the four levels exactly as
:func:`keypeg.services.ratings.level_guesses` plays them when it seeds a person's rating (level 1, which
draws at random, seeded from the secret: a different game for each secret, the same for one). One
secret is one Glicko-2 rating period (:func:`keypeg.play.ratings.rate_result`) where the levels are placed
by the guesses they needed (fewer wins, equal draws); all four start as new players (1500, RD 350) and are
rated in the secrets' order. Prints the table (average guesses, pairwise wins/draws/losses, rating, RD,
volatility) and writes the ratings to ``--out``, the data file keypeg ships and seeds new players from. The
same arguments give the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from keypeg.game import random_code
from keypeg.play.levels import LEVELS
from keypeg.play.ratings import Rated, rate_result
from keypeg.services.ratings import LEVEL_RATINGS, SEED_RULES, level_guesses, places_by_score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="secrets the levels break (default 400)")
    parser.add_argument("--seed", type=int, default=30, help="the first secret's seed (default 30)")
    parser.add_argument("--out", type=Path, default=LEVEL_RATINGS, help="the ratings' data file")
    args = parser.parse_args()
    rules = SEED_RULES
    labels = [f"level {n}" for n in LEVELS]
    players: dict[str, Rated] = {}
    guesses: dict[str, list[int]] = {label: [] for label in labels}
    tally = {(a, b): [0, 0, 0] for a in labels for b in labels if a != b}
    start = datetime(2026, 1, 1, tzinfo=UTC)  # every period the same day: no idleness between them
    console = Console()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("secrets", total=args.games)
        for n in range(args.games):
            secret = str(random_code(rules, random.Random(args.seed + n)))
            scores = {
                label: float(level_guesses(level, rules, secret)) for level, label in zip(LEVELS, labels, strict=True)
            }
            for label in labels:
                guesses[label].append(int(scores[label]))
            for (a, b), counts in tally.items():
                counts[0 if scores[a] < scores[b] else 1 if scores[a] == scores[b] else 2] += 1
            changes = rate_result(players, places_by_score(scores, higher_better=False), start + timedelta(seconds=n))
            players.update({name: after for name, (_, after) in changes.items()})
            progress.advance(task)
    table = Table(title=f"The levels on {args.games} classic secrets (seed {args.seed}), Glicko-2")
    for column in ("level", "name", "avg guesses", *[f"vs {label}" for label in labels], "rating", "RD", "volatility"):
        table.add_column(column, justify="right" if column != "name" else "left")
    for level, label in zip(LEVELS, labels, strict=True):
        rating = players[label].rating
        versus = ["-" if a == label else "{}/{}/{}".format(*tally[(label, a)]) for a in labels]
        table.add_row(
            str(level),
            LEVELS[level].name,
            f"{statistics.fmean(guesses[label]):.3f}",
            *versus,
            f"{rating.rating:.1f}",
            f"{rating.rd:.1f}",
            f"{rating.volatility:.5f}",
        )
    console.print(table)
    data = {
        "about": "The computer's levels' Glicko-2 ratings, measured by benchmarks/level_ratings.py",
        "rules": rules.slug,
        "rows": rules.rows,
        "games": args.games,
        "seed": args.seed,
        "levels": {
            str(level): {
                "name": LEVELS[level].name,
                "average_guesses": round(statistics.fmean(guesses[label]), 4),
                "rating": round(players[label].rating.rating, 2),
                "rd": round(players[label].rating.rd, 2),
                "volatility": round(players[label].rating.volatility, 6),
            }
            for level, label in zip(LEVELS, labels, strict=True)
        },
    }
    args.out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
