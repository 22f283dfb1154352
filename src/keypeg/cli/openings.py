"""``keypeg openings``: a strategy's tree from every distinct first guess, and ``--first best``'s choice.

The work is :mod:`keypeg.analysis.openings`'; this module guards it, shows its progress, and renders.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from keypeg.cli.analysis import announce_compiling, figure, interruptible, print_fitted, progress_bar, refuse_empty, say
from keypeg.cli.common import SEED, err, json_option, out, print_json, rules_options, threads_option
from keypeg.cli.common import cli as app
from keypeg.cli.options import force_option, pool_option, scoring_option, strategy_option, tie_option
from keypeg.cli.render import new_table
from keypeg.code import Code
from keypeg.rules import Rules
from keypeg.text import plural

if TYPE_CHECKING:
    from rich.table import Table

    from keypeg.analysis.openings import Opening
    from keypeg.strategies import Strategy

__all__ = ["openings", "best_first_guess", "BEST"]

BEST = "best"
"""What ``--first`` takes for the best opening."""


@app.command()
@strategy_option
@rules_options
@threads_option
@pool_option()
@tie_option
@click.option("--seed", type=SEED, help="Seed for random choices.")
@scoring_option
@click.option(
    "--cache/--no-cache",
    default=True,
    show_default=True,
    help="Read the openings an earlier run worked out (kept per game and conventions); --no-cache works them "
    "all out again and keeps the new figures.",
)
@force_option
@json_option
def openings(
    strategies: tuple[str, ...],
    rules: Rules,
    pool: str | None,
    tie: str,
    seed: int | None,
    convention: str,
    cache: bool,
    force: bool,
    as_json: bool,
) -> None:
    """Play a strategy from every distinct first guess (one per pattern of repeated colours): each opening's
    total, average and worst case, and the best (least total, then worst case, then code order)."""
    from keypeg.strategies import canonical_name, make_strategy

    refuse_empty("variant")
    names = list(dict.fromkeys(canonical_name(n) for n in strategies)) or ["worst-case"]
    chosen = [make_strategy(n, pool=pool, tie=tie, seed=seed, scoring=convention) for n in names]
    guard_openings(rules, chosen, force, use_cache=cache)
    found = []
    with kept_on_interrupt():
        for strategy in chosen:
            found.append((strategy, run_openings(rules, strategy, use_cache=cache)))
    if as_json:
        results = [_result_dict(strategy, table) for strategy, table in found]
        print_json(results[0] if len(results) == 1 else {"rules": rules.describe(), "results": results})
        return
    out.print(Text.assemble((rules.describe(), "bold"), f": {plural(rules.size, 'secret')}"))
    for strategy, table in found:
        print_fitted(openings_table(strategy, table))
        chosen_opening = _best(table)
        say(
            f"best opening for {strategy.name}: {chosen_opening.guess} "
            f"(total {chosen_opening.total:,}, worst case {chosen_opening.worst})"
        )
    if any(o.cached for _, table in found for o in table):
        say("figures marked * were worked out by an earlier run (--no-cache works them out again)")


def guard_openings(rules: Rules, chosen: list[Strategy], force: bool, *, use_cache: bool) -> None:
    """Refuse the whole job (every opening's tree of every strategy, less what is kept) above the budgets,
    unless ``force``."""
    from keypeg.analysis.cost import Estimate
    from keypeg.analysis.openings import openings_cost
    from keypeg.cli.options import guard

    costs = [openings_cost(rules, strategy, use_cache=use_cache) for strategy in chosen]
    work = costs[0].work if len(costs) == 1 else f"the trees of every opening of {len(costs)} strategies"
    whole = Estimate(
        work,
        max(c.memory for c in costs),  # one tree at a time
        sum(c.seconds for c in costs),
        max((c.parts for c in costs), key=lambda parts: max((size for _, size in parts), default=0)),
        any(c.rough for c in costs),
    )
    guard(whole, force)


def run_openings(rules: Rules, strategy: Strategy, *, use_cache: bool) -> tuple[Opening, ...]:
    """Every opening's tree of ``strategy`` under a progress bar (every secret once per opening)."""
    from keypeg.analysis.cost import EVERYDAY_KERNELS, TREES
    from keypeg.analysis.openings import opening_count
    from keypeg.analysis.openings import openings as grow_openings
    from keypeg.analysis.tree import compiled

    announce_compiling((TREES,) if compiled(strategy, rules) else EVERYDAY_KERNELS)
    count = opening_count(rules)
    label = f"{strategy.name}: {plural(count, 'opening')} of {rules.pegs}x{rules.colors}"
    with progress_bar(label, count * rules.size) as advance:
        return grow_openings(rules, strategy, progress=advance, use_cache=use_cache)


@contextmanager
def kept_on_interrupt() -> Iterator[None]:
    """Ctrl-C stops the work cleanly (exit code 130), saying that the openings finished are kept."""
    with interruptible():
        try:
            yield
        except KeyboardInterrupt:
            err.print("interrupted: the openings worked out so far are kept; the same command goes on from there")
            sys.exit(130)


def best_first_guess(name: str, rules: Rules, strategy: Strategy) -> Code:
    """``--first best``: the best opening of ``strategy`` (named ``name``), guarded by ``--force`` as the
    command's other work, worked out under a progress bar or read from the cache."""
    from keypeg.analysis.openings import best

    force = bool(click.get_current_context().params.get("force", False))
    guard_openings(rules, [strategy], force, use_cache=True)
    with kept_on_interrupt():
        chosen = best(run_openings(rules, strategy, use_cache=True))
    say(f"best opening for {name}: {chosen.guess} (total {chosen.total:,}, worst case {chosen.worst})", console=err)
    return chosen.guess


def _best(table: tuple[Opening, ...]) -> Opening:
    from keypeg.analysis.openings import best

    return best(table)


def openings_table(strategy: Strategy, table: tuple[Opening, ...]) -> Table:
    """One row per opening: its total, average, worst case, CPU seconds, and the best marked."""
    chosen = _best(table)
    conventions = strategy.conventions()
    title = f"{strategy.name}, {conventions['pool']} codes as guesses"
    shown = new_table(title=title, title_justify="left", show_edge=False)
    for head in ("opening", "total", "average", "worst", "CPU s", "best"):
        shown.add_column(head, justify="left" if head in ("opening", "best") else "right")
    for opening in table:
        seconds = f"{opening.cpu_seconds:.2f}" + ("*" if opening.cached else "")
        shown.add_row(
            str(opening.guess),
            f"{opening.total:,}",
            figure(opening.average, 4),
            str(opening.worst),
            seconds,
            "best" if opening is chosen else "",
        )
    return shown


def _result_dict(strategy: Strategy, table: tuple[Opening, ...]) -> dict[str, Any]:
    conventions = {k: v for k, v in strategy.conventions().items() if k != "first"}
    return {
        "strategy": strategy.name,
        "conventions": conventions,
        "best": str(_best(table).guess),
        "openings": [o.as_dict() for o in table],
    }
