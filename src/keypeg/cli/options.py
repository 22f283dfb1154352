"""The options several commands share, each declared once: ``--strategy``, ``--pool``, ``--tie``,
``--scoring``, ``--force`` and ``--db``.

A command whose accepted values or default differ says so through the declaration's parameters
(``survey`` also takes ``--pool both``; ``optimal`` guesses from all codes by default), never by
declaring the option again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from keypeg.strategies import NAMES

if TYPE_CHECKING:
    from keypeg.analysis.cost import Estimate

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

POOLS = ("all", "consistent")
"""The guess pools a strategy takes (``keypeg.strategies.Pool``)."""
TIES = ("first", "last", "random")
"""The tie-breaks (``keypeg.strategies.Tie``)."""
CONVENTIONS = ("kooi", "mmstrat")
"""The scoring conventions of the one-step heuristics (``keypeg.strategies.base.Convention``)."""


strategy_option = click.option(
    "--strategy",
    "-s",
    "strategies",
    multiple=True,
    metavar="NAME",
    help=f"Strategy: {', '.join(NAMES)} (aliases knuth, irving, neuwirth, kooi, shapiro).",
)
"""``--strategy``/``-s``, which may be given several times; the command receives ``strategies``."""


def pool_option(default: str | None = None, *, both: bool = False) -> Decorator:
    """``--pool``: guesses from ``all`` codes or only the ``consistent`` ones (that fit every score so
    far); with ``both``, also ``both`` (each in turn). ``default`` ``None``: each strategy's own."""
    choices = [*POOLS, "both"] if both else list(POOLS)
    help_text = "Guess from all codes or only the codes that fit" + (", or each in turn" if both else "")
    if default is None:
        help_text += " (default: each strategy's own)"
    return click.option(
        "--pool", type=click.Choice(choices), default=default, show_default=default is not None, help=f"{help_text}."
    )


tie_option = click.option(
    "--tie",
    type=click.Choice(TIES),
    default="first",
    show_default=True,
    help="Among equal guesses (fitting ones preferred): first or last in order, or random.",
)

scoring_option = click.option(
    "--scoring",
    "convention",
    type=click.Choice(CONVENTIONS),
    default="kooi",
    show_default=True,
    help="How worst-case and entropy rate a guess: as Kooi (2005), or as the C++ solver mmstrat "
    "(worst-case compares every part size, largest first; entropy counts a fitting guess 2 bits better).",
)
"""``--scoring``, the convention the one-step heuristics rate guesses by; the command receives ``convention``."""

force_option = click.option(
    "--force",
    is_flag=True,
    help="Run even when the work is estimated to need more than half the free memory or more than a few minutes, "
    "or when it replaces what is there (a backup's file, the records a restore goes into).",
)


def _database_url(_context: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and (not value.strip() or any(ord(c) < 32 for c in value)):
        raise click.BadParameter("a database URL cannot be empty or blank, or hold control characters")
    return value


db_option = click.option(
    "--db",
    envvar="KEYPEG_DB",
    metavar="URL",
    callback=_database_url,
    help="Database URL (default: SQLite in your data folder).",
)


__all__ = [
    "CONVENTIONS",
    "POOLS",
    "TIES",
    "db_option",
    "force_option",
    "guard",
    "pool_option",
    "scoring_option",
    "strategy_option",
    "tie_option",
]


def guard(estimate: Estimate, force: bool, *, timed: bool = True) -> None:
    """Refuse work estimated above this machine's budgets unless ``--force`` (which the refusal names):
    :func:`keypeg.analysis.cost.guard` for the command line."""
    from keypeg.analysis.cost import guard as refuse_above_budget

    refuse_above_budget(estimate, force, "--force runs it anyway", timed=timed)
