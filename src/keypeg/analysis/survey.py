"""The survey: every codebreaker over a grid of games, one cell per (game, strategy, convention).

A cell is a strategy's whole tree on one game (:func:`keypeg.analysis.tree.build_tree`, as
``keypeg analyze`` builds it), or the exact optimum (:class:`keypeg.strategies.optimal.OptimalSolver`,
as ``keypeg optimal`` finds it) with one of two objectives: the least total, or the fewest guesses
that always suffice and then the least total within them. :func:`run_cell` is the task (picklable:
a small :class:`Cell` in, a small :class:`CellOutcome` out), so cells run in this process or on a Dask
cluster (:mod:`keypeg.cluster`); :class:`Results` keeps the finished cells in a file, written
atomically, so an interrupted survey goes on where it stopped.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keypeg.analysis.compare import SEED, SEEDED
from keypeg.analysis.cost import Estimate, analyze_cost, optimal_cost
from keypeg.errors import InvalidRulesError, KeypegError
from keypeg.rules import FEEDBACKS, Rules
from keypeg.strategies import NAMES

if TYPE_CHECKING:
    from keypeg.strategy_tree import StrategyTree

__all__ = [
    "OBJECTIVES",
    "POOLED",
    "CONVENTIONS",
    "Cell",
    "CellOutcome",
    "Results",
    "games",
    "cells",
    "cell_cost",
    "run_cell",
    "tree_file",
    "COLUMNS",
    "row",
    "to_csv",
    "to_markdown",
]

OBJECTIVES = ("total", "worst-case")
"""The optimal row's objectives: the least total, or the fewest guesses that always suffice (then the least total)."""
POOLED = frozenset({"worst-case", "expected-size", "entropy", "most-parts", "two-step", "optimal"})
"""The strategies whose guess pool (all codes, or only those that fit) changes their totals; the others
guess only codes that fit."""
CONSISTENT_ONLY = {name: "consistent" for name in NAMES if name not in POOLED}
FORMAT = 1
"""The version of the results file's layout."""
MAX_RESULTS_FILE = 64 << 20
"""A larger results file is not one the survey wrote (a survey of every game keypeg enumerates is far smaller)."""
CONVENTIONS = (
    "Every secret of each game once (the whole strategy tree). Ties go to a code that could be the secret, "
    "then to the first in code order (Knuth's and Kooi's convention); each strategy chooses its own first "
    f"guess; random, careless and genetic are seeded with {SEED}. Pool all: any code may be guessed; "
    "consistent: only codes that fit every score so far. Optimal, least total: the fewest guesses in all "
    "(within the rules' 12 rows); optimal, worst case: the fewest guesses that always suffice, then the "
    "least total within them."
)
"""The conventions every survey result follows, named in its output."""


@dataclass(frozen=True)
class Cell:
    """One strategy with one convention on one game."""

    pegs: int
    colors: int
    repeats: bool
    strategy: str
    pool: str
    objective: str = ""
    """The optimal row's objective (:data:`OBJECTIVES`); empty for the other strategies."""
    feedback: str = "standard"
    """What a guess is told (:data:`keypeg.rules.FEEDBACKS`)."""

    @property
    def rules(self) -> Rules:
        return Rules(self.pegs, self.colors, repeats=self.repeats, feedback=self.feedback)

    @property
    def seed(self) -> int | None:
        """The seed of a strategy that draws at random."""
        return SEED if self.strategy in SEEDED else None

    @property
    def order(self) -> tuple[int, int, int, bool, int, bool, str]:
        """Where the cell goes in a table: by game (standard feedback first, then repeats first), then
        strategy as registered, pool all first."""
        return (
            self.pegs,
            self.colors,
            FEEDBACKS.index(self.feedback),
            not self.repeats,
            NAMES.index(self.strategy),
            self.pool != "all",
            self.objective,
        )

    @property
    def key(self) -> str:
        """The cell's name in a results file: ``4x6 worst-case all``, ``4x6 optimal all worst-case``."""
        return " ".join(filter(None, (self.rules.slug, self.strategy, self.pool, self.objective)))

    def label(self) -> str:
        """For people: ``4x6 worst-case (pool all)``."""
        objective = f", {'least total' if self.objective == 'total' else 'worst case first'}" if self.objective else ""
        return f"{self.rules.slug} {self.strategy} (pool {self.pool}{objective})"


@dataclass(frozen=True)
class CellOutcome:
    """A finished cell's figures."""

    cell: Cell
    codes: int
    first: str
    """The first guess, in the game's own symbols."""
    total: int
    worst: int
    seconds: float
    distribution: dict[int, int] | None = field(default=None, compare=False)
    """Secrets solved in each round (not for the optimal worst-case row, which proves its figures without a tree)."""
    cpu_seconds: float | None = field(default=None, compare=False)
    """The CPU seconds of the worker's process while it worked the cell out (every thread), which the
    machine's load does not inflate as it does :attr:`seconds`; ``None`` in results written before it was kept."""
    nodes: int | None = field(default=None, compare=False)
    """The sets the exact search searched (the optimal row only)."""

    @property
    def average(self) -> float:
        return self.total / self.codes

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready figures with the cell's fields."""
        data: dict[str, Any] = {"game": self.cell.rules.slug, **asdict(self.cell)}
        if self.cell.feedback == "standard":
            del data["feedback"]  # as results files had it before the feedbacks
        data["seed"] = self.cell.seed
        data.update(codes=self.codes, first=self.first, total=self.total, average=round(self.average, 6))
        data.update(worst=self.worst, seconds=round(self.seconds, 3))
        if self.cpu_seconds is not None:
            data["cpu_seconds"] = round(self.cpu_seconds, 3)
        if self.nodes is not None:
            data["nodes"] = self.nodes
        if self.distribution is not None:
            data["distribution"] = {str(d): n for d, n in self.distribution.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CellOutcome:
        """The outcome :meth:`as_dict` wrote (``KeyError``, ``TypeError``, ``ValueError`` if it is not one)."""
        cell = Cell(
            int(data["pegs"]),
            int(data["colors"]),
            bool(data["repeats"]),
            str(data["strategy"]),
            str(data["pool"]),
            str(data["objective"]),
            str(data.get("feedback", "standard")),
        )
        spread = data.get("distribution")
        distribution = {int(d): int(n) for d, n in spread.items()} if isinstance(spread, dict) else None
        cpu, nodes = data.get("cpu_seconds"), data.get("nodes")
        outcome = cls(
            cell,
            int(data["codes"]),
            str(data["first"]),
            int(data["total"]),
            int(data["worst"]),
            float(data["seconds"]),
            distribution,
            None if cpu is None else float(cpu),
            None if nodes is None else int(nodes),
        )
        if (
            cell.strategy not in NAMES
            or cell.pool not in ("all", "consistent")
            or cell.objective not in ("", *OBJECTIVES)
            or cell.feedback not in FEEDBACKS
        ):
            raise ValueError(f"{cell.key}: not a cell of the survey")
        if outcome.codes != cell.rules.size or not 0 < outcome.codes <= outcome.total:
            raise ValueError(f"{cell.key}: figures that do not fit the game")
        return outcome


def games(
    pegs: Iterable[int],
    colors: Iterable[int],
    repeats: Iterable[bool],
    max_codes: int | None,
    feedbacks: Iterable[str] = ("standard",),
) -> list[Rules]:
    """The games of the grid that exist (no repeats needs as many colours as pegs) and have at most
    ``max_codes`` codes, smallest pegs, then colours, then feedback (:data:`keypeg.rules.FEEDBACKS`
    order), repeats first."""
    found = []
    for p in sorted(set(pegs)):
        for c in sorted(set(colors)):
            for f in sorted(set(feedbacks), key=FEEDBACKS.index):
                for r in sorted(set(repeats), reverse=True):
                    if not r and c < p:
                        continue
                    rules = Rules(p, c, repeats=r, feedback=f)
                    if max_codes is None or rules.size <= max_codes:
                        found.append(rules)
    return found


def cells(
    grid: Sequence[Rules], strategies: Sequence[str], pools: Sequence[str], objectives: Sequence[str]
) -> list[Cell]:
    """Every cell of ``strategies`` on the ``grid``: a strategy whose pool matters once per pool of
    ``pools``, the others with their own pool (codes that fit), the optimal row once per objective."""
    found = []
    for rules in grid:
        for name in dict.fromkeys(strategies):
            for pool in [CONSISTENT_ONLY[name]] if name in CONSISTENT_ONLY else dict.fromkeys(pools):
                for objective in dict.fromkeys(objectives) if name == "optimal" else [""]:
                    cell = Cell(rules.pegs, rules.colors, rules.repeats, name, pool, objective, rules.feedback)
                    found.append(cell)
    return found


def cell_cost(cell: Cell) -> Estimate:
    """What the cell will take (:mod:`keypeg.analysis.cost`): the exact search for the optimal row, the
    whole tree for the others."""
    if cell.strategy == "optimal":
        return optimal_cost(cell.rules)
    return analyze_cost(cell.rules, cell.strategy)


def run_cell(cell: Cell, trees: str | None = None) -> CellOutcome | str:
    """Work out one cell (the task the survey hands to its workers): its outcome, or why it failed.
    With ``trees`` (a folder), the optimal row's least-total strategy is also saved there as a tree
    file ``keypeg verify`` checks (see :func:`tree_file`), its CPU seconds and sets searched in its
    conventions."""
    try:
        return _work_out(cell, None if trees is None else Path(trees))
    except KeypegError as error:
        return str(error)


def tree_file(rules: Rules, pool: str) -> str:
    """The name of the optimal tree of ``rules`` and ``pool`` (every secret) the survey saves: the name
    ``keypeg optimal`` saves it under and keypeg looks for shipped trees by."""
    return f"optimal-{rules.slug}-{pool}-all-rows{rules.rows}.json"


def _save_tree(tree: StrategyTree, outcome: CellOutcome, folder: Path) -> None:
    from keypeg.storage import atomic_write
    from keypeg.strategy_tree import tree_to_json

    tree.conventions.update(cpu_seconds=round(outcome.cpu_seconds or 0.0, 1), nodes=outcome.nodes)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(folder / tree_file(tree.rules, outcome.cell.pool), tree_to_json(tree))


def _work_out(cell: Cell, trees: Path | None) -> CellOutcome:
    started, cpu = time.perf_counter(), time.process_time()
    rules = cell.rules
    nodes: int | None = None
    if cell.strategy == "optimal" and cell.objective == "worst-case":
        first, total, worst, nodes = _fewest_rounds(rules, cell.pool)
        return CellOutcome(
            cell, rules.size, first, total, worst, time.perf_counter() - started, None, time.process_time() - cpu, nodes
        )
    if cell.strategy == "optimal":
        from keypeg.strategies.optimal import OptimalSolver

        solver = OptimalSolver(rules, pool=cell.pool)  # type: ignore[arg-type]
        tree = solver.tree()
        nodes = solver.nodes
    else:
        from keypeg.analysis.tree import build_tree
        from keypeg.strategies import make_strategy

        tree = build_tree(make_strategy(cell.strategy, pool=cell.pool, seed=cell.seed), rules)
    stats = tree.stats
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    outcome = CellOutcome(
        cell, rules.size, str(tree.root.guess), stats.total, stats.max, seconds, stats.distribution, cpu_seconds, nodes
    )
    if cell.strategy == "optimal" and trees is not None:
        _save_tree(tree, outcome, trees)
    return outcome


def _fewest_rounds(rules: Rules, pool: str) -> tuple[str, int, int, int]:
    """The optimal strategy with the fewest rounds that always suffice: its first guess, its total (the
    least within those rounds), the rounds and the sets searched, found by asking the solver for 1, 2,
    ... rounds."""
    from keypeg.strategies.optimal import BIG, OptimalSolver

    solver = OptimalSolver(rules, pool=pool)  # type: ignore[arg-type]
    root = solver.root()
    for rounds in range(1, rules.rows + 1):
        total, guess = solver.value(root, (), rounds)
        if total < BIG:
            return str(solver.space.code(guess)), int(total), rounds, solver.nodes
    raise InvalidRulesError(f"no strategy solves every secret of {rules.slug} within {rules.rows} guesses")


class Results:
    """The finished cells of a survey, kept in a JSON file (written whole, atomically, after each cell)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.outcomes: dict[str, CellOutcome] = {}
        if path.exists():
            self._load()

    def _load(self) -> None:
        from keypeg.text import visible

        problem = f"{visible(str(self.path))} is not a keypeg survey results file"
        try:
            if self.path.stat().st_size > MAX_RESULTS_FILE:
                raise KeypegError(problem)
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("keypeg_survey") != FORMAT:
                raise KeypegError(problem)
            for item in data["cells"]:
                outcome = CellOutcome.from_dict(item)
                self.outcomes[outcome.cell.key] = outcome
        except (UnicodeError, ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
            raise KeypegError(f"{problem} ({type(error).__name__})") from None

    def __contains__(self, cell: Cell) -> bool:
        return cell.key in self.outcomes

    def get(self, cell: Cell) -> CellOutcome | None:
        return self.outcomes.get(cell.key)

    def add(self, outcome: CellOutcome) -> None:
        """Keep ``outcome`` and write the file."""
        from keypeg.storage import atomic_write

        self.outcomes[outcome.cell.key] = outcome
        cells = [o.as_dict() for o in sorted(self.outcomes.values(), key=lambda o: o.cell.order)]
        atomic_write(self.path, json.dumps({"keypeg_survey": FORMAT, "cells": cells}, indent=1))


COLUMNS = (
    "game",
    "codes",
    "strategy",
    "pool",
    "objective",
    "first",
    "total",
    "average",
    "worst",
    "seconds",
    "cpu seconds",
    "nodes",
)
"""The columns of the CSV and Markdown tables: ``seconds`` is the worker's wall time, ``cpu seconds`` its
CPU time (blank in results kept before it was), ``nodes`` the sets the exact search searched."""
NUMERIC = frozenset({"codes", "total", "average", "worst", "seconds", "cpu seconds", "nodes"})


def row(outcome: CellOutcome) -> list[str]:
    """The cell's figures as the tables show them (:data:`COLUMNS`)."""
    cell = outcome.cell
    return [
        cell.rules.slug,
        str(outcome.codes),
        cell.strategy,
        cell.pool,
        cell.objective,
        outcome.first,
        str(outcome.total),
        f"{outcome.average:.4f}",
        str(outcome.worst),
        f"{outcome.seconds:.2f}",
        "" if outcome.cpu_seconds is None else f"{outcome.cpu_seconds:.2f}",
        "" if outcome.nodes is None else str(outcome.nodes),
    ]


def to_csv(outcomes: Sequence[CellOutcome], skipped: Sequence[tuple[Cell, str]]) -> str:
    """One row a cell (the columns of :data:`COLUMNS`, then ``skipped``: the reason a cell was not worked out)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*COLUMNS, "skipped"])
    for outcome in outcomes:
        writer.writerow([*row(outcome), ""])
    for cell, reason in skipped:
        c = cell
        blanks = [""] * (len(COLUMNS) - 5)
        writer.writerow([c.rules.slug, str(c.rules.size), c.strategy, c.pool, c.objective, *blanks, reason])
    return buffer.getvalue()


def to_markdown(outcomes: Sequence[CellOutcome], skipped: Sequence[tuple[Cell, str]], heading: Sequence[str]) -> str:
    """The survey as Markdown: ``heading`` lines, the conventions, one table of the finished cells, the
    cells skipped and why."""
    lines = [*heading, "", CONVENTIONS, ""]
    lines.append(f"| {' | '.join(COLUMNS)} |")
    lines.append("|" + "|".join("---:" if name in NUMERIC else "---" for name in COLUMNS) + "|")
    lines += [f"| {' | '.join(row(o))} |" for o in outcomes]
    if skipped:
        lines += ["", f"Skipped ({len(skipped)} cells):", ""]
        lines += [f"- {cell.label()}: {reason}" for cell, reason in skipped]
    return "\n".join(lines) + "\n"
