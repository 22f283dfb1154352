"""``keypeg bound``: a proven lower bound on a game's optimal total."""

from __future__ import annotations

import click

from keypeg.cli.analysis import announce_compiling, interruptible, progress_bar, say
from keypeg.cli.common import cli, json_option, out, print_json, rules_options, threads_option
from keypeg.errors import TooLargeError
from keypeg.rules import Rules

MAX_LEVELS = 4
"""Deeper bounds cost more than any game keypeg enumerates can afford."""
LEVELS_CODES = {2: 60_000, 3: 40_000, 4: 2_000}
"""The largest game each number of levels past the first is worked out for (5x8: 1.5 CPU s two levels deep)."""


@cli.command()
@rules_options
@threads_option
@click.option(
    "--levels",
    type=click.IntRange(0, MAX_LEVELS),
    default=2,
    show_default=True,
    help="Guesses looked through before the counting bound (0: the counting bound alone).",
)
@json_option
def bound(rules: Rules, levels: int, as_json: bool) -> None:
    """A proven lower bound on the fewest guesses in all any strategy needs over every secret.

    The counting bound (a guess has at most as many answers as the rules allow, so the best conceivable
    tree fills its levels) taken LEVELS guesses deep: for each first guess, one per symmetry class, the
    sum over its parts of the least, over the next guesses, of their parts' bounds. See
    docs/super-mastermind.md for the proof.
    """
    most = LEVELS_CODES.get(levels)
    if most is not None and rules.size > most:
        fewer = max([1, *(k for k, n in LEVELS_CODES.items() if n >= rules.size)])
        raise TooLargeError(
            f"{rules.describe()} has {rules.size:,} codes: a bound {levels} levels deep is worked out for games "
            f"of up to {most:,} codes (try --levels {fewer})"
        )
    from keypeg.analysis.bounds import lower_bound
    from keypeg.analysis.openings import opening_count

    announce_compiling()
    with interruptible(), progress_bar("bounding first guesses", opening_count(rules)) as advance:
        found = lower_bound(rules, levels=levels, progress=advance)
    if as_json:
        print_json(found.as_dict())
        return
    say(
        f"{rules.describe()}: every strategy needs at least {found.total:,} guesses in all over "
        f"{found.rules.size:,} secrets (average {found.average:.4f}); proven {levels} "
        f"{'level' if levels == 1 else 'levels'} deep in {found.seconds:.1f} CPU s "
        f"(the counting bound alone: {found.counting:,})"
    )
    if found.openings:
        from rich.table import Table

        table = Table("first guess", "bound", "one level", title="the bound with each first guess")
        for opening in found.openings:
            shown = f"{opening.bound:,}" if opening.exact else f"{opening.bound:,} (one level: enough)"
            table.add_row(opening.guess, shown, f"{opening.counting:,}")
        out.print(table)
