"""How strong the computer's levels are on several presets: guesses to break a code and games lost within the rows.

Run: .venv/bin/python benchmarks/levels.py [--presets classic,bulls-and-cows,classic-black,mini]
     [--games 300] [--seeds 3] [--levels 1,2,3] [--forget 0.3333,0.5] [--no-save]

Each preset's ``--games`` secrets (``random_code(rules, random.Random(30 + n))``, as
``benchmarks/level_ratings.py`` draws them) are broken by each level, played past the row limit until
broken so the average is the true one. A level that draws at random (level 1, careless) plays every secret
``--seeds`` times, the n-th secret of round r seeded ``r * games + n`` (a seed a game, as players meet it:
one seed for every game would measure that seed's first draws); the others play each secret once.
``--forget`` adds rows for level 1 with other forget probabilities (careless's rule otherwise unchanged),
to show how the probability was chosen. Prints the table (average guesses, share of games not broken within
the preset's rows, the most guesses, CPU seconds) and saves it to ``results/levels.md``. Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys

from report import report
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from keypeg import find_variant, score
from keypeg.analysis.compare import SEEDED
from keypeg.errors import KeypegError
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
from keypeg.play.levels import LEVELS, level_strategy
from keypeg.rules import Rules
from keypeg.strategies import Strategy
from keypeg.strategies.careless import Careless

CAP = 100
"""Guesses after which a game is given up (none comes near it)."""


def cpu() -> float:
    """CPU seconds of this process and its children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def guesses(strategy: Strategy, rules: Rules, secret: str) -> int:
    """The guesses ``strategy`` needs to break ``secret``, past the row limit (up to :data:`CAP`)."""
    code, knowledge = rules.parse(secret), Knowledge(rules)
    while not knowledge.solved and len(knowledge.history) < CAP:
        guess = strategy.next_guess(knowledge)
        knowledge = knowledge.add(guess, score(code, guess))
    return len(knowledge.history)


def careless_forgetting(probability: float, seed: int) -> Strategy:
    """Level 1's strategy with another forget probability."""

    class Forgetting(Careless):
        forget = probability

    return Forgetting(seed=seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--presets", default="classic,bulls-and-cows,classic-black,mini", help="variants, comma-separated"
    )
    parser.add_argument("--games", type=int, default=300, help="secrets per preset (default 300)")
    parser.add_argument("--seeds", type=int, default=3, help="rounds of the levels that draw at random (default 3)")
    parser.add_argument("--levels", default="1,2,3", help="levels, comma-separated (default 1,2,3)")
    parser.add_argument("--forget", default="", help="other forget probabilities for level 1, comma-separated")
    parser.add_argument("--no-save", action="store_true", help="print the table without saving it")
    args = parser.parse_args()
    try:
        presets = [(name, find_variant(name).rules) for name in args.presets.split(",")]
        levels = [int(n) for n in args.levels.split(",")]
        forgets = [float(p) for p in args.forget.split(",") if p]
    except (KeypegError, ValueError) as error:
        parser.error(str(error))
    if (
        any(n not in LEVELS for n in levels)
        or any(not 0 <= p <= 1 for p in forgets)
        or args.games < 1
        or args.seeds < 1
    ):
        parser.error("levels are 1 to 4, forget probabilities 0 to 1, games and seeds 1 or more")
    players: list[tuple[str, int, float | None]] = [(f"{n} {LEVELS[n].strategy}", n, None) for n in levels]
    players += [(f"1 careless, forget {p:g}", 1, p) for p in forgets]

    def seeds_of(level: int) -> range:
        return range(args.seeds) if LEVELS[level].strategy in SEEDED else range(1)

    total = sum(len(seeds_of(n)) for _, n, _ in players) * args.games * len(presets)
    rows: list[list[str]] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with Progress(*columns, TimeRemainingColumn()) as progress:
            bar = progress.add_task("games", total=total)
            for preset, rules in presets:
                secrets = [str(random_code(rules, random.Random(30 + n))) for n in range(args.games)]
                for label, level, forget in players:
                    progress.update(bar, description=f"{preset}: level {label}")
                    started, played = cpu(), []
                    for round_ in seeds_of(level):
                        for n, secret in enumerate(secrets):
                            seed = round_ * args.games + n
                            strategy = (
                                careless_forgetting(forget, seed)
                                if forget is not None
                                else level_strategy(level, rules, seed=seed)
                            )
                            played.append(guesses(strategy, rules, secret))
                            progress.advance(bar)
                    rows.append(
                        [
                            preset,
                            str(rules.rows),
                            label,
                            str(len(played)),
                            f"{statistics.fmean(played):.3f}",
                            f"{sum(n > rules.rows for n in played) / len(played):.1%}",
                            str(max(played)),
                            f"{cpu() - started:.1f}",
                        ]
                    )
    except KeyboardInterrupt:
        print("interrupted: nothing saved", file=sys.stderr)
        sys.exit(130)
    command = " ".join(["benchmarks/levels.py", *sys.argv[1:]])
    report(
        "levels",
        "The computer's levels on several presets",
        f".venv/bin/python {command}",
        [
            "",
            f"Secrets: `random_code(rules, random.Random(30 + n))` for n in 0..{args.games - 1}, each broken by each",
            "level past the row limit (average: the true one); level 1 (careless, random) "
            f"{args.seeds} times, the n-th secret of round r seeded r * games + n, the others once. Lost: the share",
            "of games not broken within the preset's rows. Most: the most guesses a game took. CPU: seconds of this",
            "process, run `nice -n 10` beside other work.",
        ],
        ["preset", "rows", "level", "games", "avg guesses", "lost", "most", "CPU s"],
        rows,
        left=3,
        save=not args.no_save,
    )


if __name__ == "__main__":
    main()
