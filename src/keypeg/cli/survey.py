"""``keypeg survey``: every codebreaker over a grid of games, resumable, as a table, Markdown, CSV and JSON."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from keypeg import __version__
from keypeg.cli.analysis import announce_compiling, progress_bar, say
from keypeg.cli.cluster import cluster_options
from keypeg.cli.common import FEEDBACK_CHOICES, FILE, FOLDER, cli, err, json_option, out, print_json
from keypeg.cli.options import force_option, pool_option, strategy_option
from keypeg.rules import MAX_COLORS, MAX_PEGS
from keypeg.text import plural, quoted, visible

if TYPE_CHECKING:
    from rich.table import Table

    from keypeg.analysis.survey import Cell, CellOutcome, Results
    from keypeg.cluster import Cluster

OBJECTIVES = ("total", "worst-case")  # keypeg.analysis.survey.OBJECTIVES, named here without loading it
REPEATS = {"both": "with and without repeats", "repeats": "with repeats", "no-repeats": "without repeats"}
INTERRUPTED = "not worked out: the survey was interrupted (the same command goes on with it)"
MISSING = "not worked out yet: the same command without --tables-only works it out"


class Numbers(click.ParamType[tuple[int, ...]]):
    """Whole numbers from ``low`` to ``high``: one (``4``), a range (``2-5``) or a list of both (``2,4-6``)."""

    name = "numbers"

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        found: set[int] = set()
        for part in str(value).split(","):
            ends = part.strip().split("-")
            if len(ends) > 2 or not all(e.strip().isascii() and e.strip().isdigit() for e in ends):
                self.fail(
                    f"{visible(str(value), 40)!r} is not a number, a range like 2-5 or a list like 2,4-6", param, ctx
                )
            low, high = (int(e) if len(e.strip()) <= 3 else -1 for e in (ends[0], ends[-1]))  # -1: far too many
            if not self.low <= low <= high <= self.high:
                shown = visible(part.strip(), 20)
                self.fail(f"{shown} is not within {self.low}-{self.high} (a range goes upward)", param, ctx)
            found.update(range(low, high + 1))
        return tuple(sorted(found))


@cli.command()
@click.option(
    "--pegs", "-p", type=Numbers(1, MAX_PEGS), default="2-5", show_default=True, help="Pegs: 4, 2-5 or 2,4-5."
)
@click.option(
    "--colors",
    "--colours",
    "-c",
    type=Numbers(2, MAX_COLORS),
    default="2-10",
    show_default=True,
    help="Colours: as pegs.",
)
@click.option("--repeats", "repeats", flag_value="repeats", help="Only games where a colour may repeat.")
@click.option("--no-repeats", "repeats", flag_value="no-repeats", help="Only games where no colour repeats.")
@click.option(
    "--both", "repeats", flag_value="both", default=True, help="Games with and without repeats (the default)."
)
@click.option(
    "--feedback",
    "feedbacks",
    type=click.Choice(FEEDBACK_CHOICES, case_sensitive=False),
    multiple=True,
    help="What a guess is told: standard, colours or black; repeat it for several (standard by default).",
)
@click.option(
    "--max-codes",
    type=click.IntRange(1),
    default=5040,
    show_default=True,
    help="Leave out the games with more codes (5,040: bulls and cows).",
)
@strategy_option
@pool_option("both", both=True)
@click.option(
    "--objective",
    type=click.Choice([*OBJECTIVES, "both"]),
    default="total",
    show_default=True,
    help="The optimal row: the least total, the fewest guesses that always suffice (then the least total), or both.",
)
@click.option(
    "--results",
    type=FILE,
    default=Path("keypeg-survey.json"),
    show_default=True,
    help="The finished cells are kept here; a rerun works out only the missing ones.",
)
@click.option(
    "--trees",
    type=FOLDER,
    help="Save the optimal row's least-total strategies in this folder, as trees 'keypeg verify' checks.",
)
@click.option("--markdown", type=FILE, help="Also save the survey as a Markdown table.")
@click.option("--csv", "csv_file", type=FILE, help="Also save it as CSV, one row a cell.")
@click.option("--output", "-o", type=FILE, help="Also save the JSON that --json prints in this file.")
@click.option(
    "--tables-only",
    is_flag=True,
    help="Work nothing out: the tables of the cells kept in --results, each missing cell listed with its estimate.",
)
@cluster_options
@force_option
@json_option
def survey(
    pegs: tuple[int, ...],
    colors: tuple[int, ...],
    repeats: str,
    feedbacks: tuple[str, ...],
    max_codes: int,
    strategies: tuple[str, ...],
    pool: str,
    objective: str,
    results: Path,
    trees: Path | None,
    markdown: Path | None,
    csv_file: Path | None,
    output: Path | None,
    tables_only: bool,
    cluster: Cluster,
    force: bool,
    as_json: bool,
) -> None:
    """Every strategy on every game of a grid: one cell per game, strategy and convention (pool, the
    optimal row's objective), with its total, average, worst case and seconds.

    A cell estimated to need more time or memory than keypeg allows itself is skipped and listed
    (--force works it out). Ctrl-C stops the survey, keeping the finished cells: the same command
    goes on from there.
    """
    from keypeg import storage
    from keypeg.analysis import survey as engine
    from keypeg.analysis.cost import TooCostlyError
    from keypeg.cli.options import guard
    from keypeg.errors import KeypegError, NotFoundError
    from keypeg.strategies import NAMES, canonical_name

    names = [canonical_name(n) for n in strategies] or list(NAMES)
    told = tuple(dict.fromkeys("colours" if f.lower() == "colors" else f.lower() for f in feedbacks)) or ("standard",)
    grid = engine.games(
        pegs, colors, {"both": (True, False), "repeats": (True,), "no-repeats": (False,)}[repeats], max_codes, told
    )
    if not grid:
        raise KeypegError(f"no game of the grid exists with at most {max_codes:,} codes")
    pools = ("all", "consistent") if pool == "both" else (pool,)
    wanted = engine.cells(grid, names, pools, OBJECTIVES if objective == "both" else (objective,))
    for path in (results, markdown, csv_file, output):
        if path is not None:
            storage.check_writable(path)
    if trees is not None:  # made if its parent folder is there, and checked before any work
        with contextlib.suppress(OSError):
            if trees.parent.is_dir():
                trees.mkdir(exist_ok=True)
        if not trees.is_dir():
            raise NotFoundError(f"cannot save trees in {quoted(str(trees))}: no such folder, nor one to make it in")
        storage.check_writable(trees / "optimal-tree.json")
    kept = engine.Results(results)
    reused = sum(cell in kept for cell in wanted)
    if reused:
        say(f"reusing {plural(reused, 'finished cell')} of {visible(str(results))}", console=err)
    todo, skipped = [], []
    for cell in wanted:
        if cell in kept:
            continue
        estimate = engine.cell_cost(cell)
        if tables_only:
            skipped.append((cell, f"{MISSING} ({_took(estimate.seconds, estimate.rough)})"))
            continue
        try:
            guard(estimate, force)
        except TooCostlyError as refused:
            skipped.append((cell, str(refused)))
            continue
        todo.append((estimate.seconds, cell))
    todo.sort(key=lambda item: item[0])  # the quick cells first: an interrupted survey keeps the most
    if any(cell.strategy == "optimal" for _, cell in todo):
        from keypeg.analysis.cost import EVERYDAY_KERNELS, OPTIMAL_SEARCH

        announce_compiling((*EVERYDAY_KERNELS, OPTIMAL_SEARCH))
    started = time.perf_counter()
    label = f"survey of {plural(len(grid), 'game')}"
    computed, failed, where = _work_out([cell for _, cell in todo], kept, cluster, label, trees)
    skipped += failed
    wall = time.perf_counter() - started
    outcomes = sorted((o for o in map(kept.get, wanted) if o is not None), key=lambda o: o.cell.order)
    skipped.sort(key=lambda item: item[0].order)
    heading = [
        "# Survey: every codebreaker on every game of the grid",
        "",
        f"`keypeg survey` (keypeg {__version__}, {time.strftime('%Y-%m-%d')}): pegs {_listed(pegs)}, "
        f"colours {_listed(colors)}, {REPEATS[repeats]}, {'/'.join(told)} feedback, "
        f"games of at most {max_codes:,} codes; {plural(len(outcomes), 'cell')}, their own seconds adding up "
        f"to {sum(o.seconds for o in outcomes):,.0f} s ({_cpu(outcomes)}); this run {wall:,.0f} s on {where}.",
    ]
    if markdown is not None:
        storage.atomic_write(markdown, engine.to_markdown(outcomes, skipped, heading))
    if csv_file is not None:
        storage.atomic_write(csv_file, engine.to_csv(outcomes, skipped))
    report = _report(outcomes, skipped)
    if output is not None:
        storage.atomic_write(output, json.dumps(report, indent=2) + "\n")
    if as_json:
        print_json(report)
    else:
        for table in _tables(outcomes):
            out.print(table)
        say(engine.CONVENTIONS)
        for cell, reason in skipped:
            say(f"skipped {cell.label()}: {reason}")
    say(
        f"{plural(len(outcomes), 'cell')}: {computed} worked out now in {wall:.1f} s on {where}, {reused} reused; "
        f"{len(skipped)} skipped",
        console=err,
    )
    if any(reason == INTERRUPTED for _, reason in skipped):
        say(
            f"interrupted: the finished cells are kept in {visible(str(results))}; run the same command to go on",
            console=err,
        )
        sys.exit(130)


def _took(seconds: float, rough: bool) -> str:
    """An estimate of time in words: ``about 3 hours by keypeg's rough cost model``."""
    from keypeg.analysis.cost import format_seconds

    return f"about {format_seconds(seconds)} by keypeg's {'rough ' if rough else ''}cost model"


def _cpu(outcomes: list[CellOutcome]) -> str:
    """The CPU seconds of the cells that kept them, for the heading."""
    timed = [o.cpu_seconds for o in outcomes if o.cpu_seconds is not None]
    return f"CPU seconds {sum(timed):,.0f} s over the {plural(len(timed), 'cell')} that kept them"


def _work_out(
    cells: list[Cell], kept: Results, cluster: Cluster, label: str, trees: Path | None = None
) -> tuple[int, list[tuple[Cell, str]], str]:
    """Work out ``cells`` where ``cluster`` says, keeping each outcome as it arrives (and the optimal
    trees in ``trees``); how many were worked out, the cells that failed or were left unfinished by
    Ctrl-C with why, and where they ran."""
    from functools import partial

    from keypeg.analysis.survey import run_cell

    if not cells:
        return 0, [], "no workers (nothing to work out)"
    failed: list[tuple[Cell, str]] = []
    finished: set[int] = set()
    computed, where = 0, "this process"
    try:
        with cluster.workers() as workers, progress_bar(label, len(cells)) as advance:
            where = workers.description
            task = run_cell if trees is None else partial(run_cell, trees=str(trees.resolve()))
            for position, done in workers.run(task, cells):
                finished.add(position)
                if isinstance(done, str):
                    failed.append((cells[position], done))
                else:
                    kept.add(done)
                    computed += 1
                    if not err.is_terminal:
                        searched = "" if done.nodes is None else f", {plural(done.nodes, 'set')} searched"
                        cpu = f"{done.cpu_seconds or 0:.2f} CPU s"
                        took = f"{done.total:,} in {done.seconds:.2f} s ({cpu}{searched})"
                        say(f"{done.cell.label()}: {took}", console=err)
                advance(1)
    except KeyboardInterrupt:
        failed += [(cell, INTERRUPTED) for k, cell in enumerate(cells) if k not in finished]
    return computed, failed, where


def _listed(numbers: tuple[int, ...]) -> str:
    """``2-5`` for a run, ``2, 4, 6`` otherwise."""
    if len(numbers) > 2 and numbers == tuple(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))


def _report(outcomes: list[CellOutcome], skipped: list[tuple[Cell, str]]) -> dict[str, Any]:
    from keypeg.analysis.survey import CONVENTIONS

    return {
        "conventions": CONVENTIONS,
        "cells": [o.as_dict() for o in outcomes],
        "skipped": [
            {"game": c.rules.slug, "strategy": c.strategy, "pool": c.pool, "objective": c.objective, "reason": r}
            for c, r in skipped
        ],
    }


HEADS = ("strategy", "pool", "first", "total", "average", "worst", "seconds")
"""The columns of the survey's tables on screen, one table a game (the game in its title)."""


def _tables(outcomes: list[CellOutcome]) -> list[Table]:
    """One table a game, under 80 columns: each cell's strategy (with the optimal row's objective),
    pool, first guess, total, average, worst case and seconds."""
    from itertools import groupby

    from keypeg.cli.render import new_table

    tables = []
    for slug, cells in groupby(outcomes, key=lambda o: o.cell.rules.slug):
        shown = list(cells)
        table = new_table(title=f"{slug}: {plural(shown[0].codes, 'code')}", title_justify="left", show_edge=False)
        for k, head in enumerate(HEADS):
            table.add_column(head, justify="right" if k >= 3 else "left", no_wrap=k >= 2)  # names wrap, not figures
        for o in shown:
            name = f"{o.cell.strategy}, {o.cell.objective}" if o.cell.objective else o.cell.strategy
            table.add_row(
                name, o.cell.pool, o.first, f"{o.total:,}", f"{o.average:.4f}", str(o.worst), f"{o.seconds:.2f}"
            )
        tables.append(table)
    return tables


__all__ = ["survey"]
