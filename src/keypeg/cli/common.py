"""What every command shares: the group, rules and output options, error handling."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.console import Console

from keypeg import __version__
from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.variants import find_variant

F = TypeVar("F", bound=Callable[..., Any])

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

DEFAULT_VARIANT = "classic"


def build_rules(
    variant: str | None,
    pegs: int | None,
    colors: int | None,
    repeats: bool | None,
    blanks: bool | None,
    rows: int | None,
) -> Rules:
    """Rules from the command-line options: a variant (classic by default) with any field changed."""
    if variant is None and (pegs is not None or colors is not None):
        base = Rules(pegs or 4, colors or 6)
    else:
        base = find_variant(variant or DEFAULT_VARIANT).rules
    changes: dict[str, Any] = {}
    if pegs is not None and pegs != base.pegs:
        changes["pegs"] = pegs
    if colors is not None and colors != base.colors:
        changes.update(colors=colors, symbols=(), names=())
    for name, value in (("repeats", repeats), ("blanks", blanks), ("rows", rows)):
        if value is not None and value != getattr(base, name):
            changes[name] = value
    if changes and base.name:
        changes.setdefault("name", f"{base.name} (changed)")
    return base.replace(**changes) if changes else base


def rules_options(command: F) -> F:
    """Add the rules options shared by every command; the command receives ``rules``."""

    @click.option("--variant", "-v", metavar="NAME", help="A preset (see 'keypeg variants'); classic by default.")
    @click.option("--pegs", "-p", type=int, help="Pegs in a code.")
    @click.option("--colors", "--colours", "-c", type=int, help="Colours to choose from.")
    @click.option("--repeats/--no-repeats", default=None, help="Whether a colour may repeat in a code.")
    @click.option("--blanks/--no-blanks", default=None, help="Whether a peg may be blank ('.').")
    @click.option("--rows", "-r", type=int, help="Guesses allowed.")
    @functools.wraps(command)
    def wrapper(
        *args: Any,
        variant: str | None,
        pegs: int | None,
        colors: int | None,
        repeats: bool | None,
        blanks: bool | None,
        rows: int | None,
        **kwargs: Any,
    ) -> Any:
        rules = build_rules(variant, pegs, colors, repeats, blanks, rows)
        return command(*args, rules=rules, **kwargs)

    return wrapper  # type: ignore[return-value]


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")


def print_json(data: object) -> None:
    """Print machine-readable output on stdout."""
    click.echo(json.dumps(data, indent=2))


class KeypegGroup(click.Group):
    """A group that turns keypeg's errors into one clear line and a non-zero exit."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeypegError as error:
            err.print(f"[bold red]error:[/] {error}", soft_wrap=True)
            sys.exit(2)


@click.group(cls=KeypegGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="keypeg")
def cli() -> None:
    """keypeg: Mastermind engine, solver and game.

    Codes are written one symbol per peg: the rule set's own symbols (R G B Y W K
    for classic, digits 0-9 for bulls-and-cows), letters A.. or digits 1..
    (A and 1 are the first colour); spaces and case do not matter.
    """


def parse_history(rules: Rules, scored: tuple[str, ...]) -> list[tuple[Code, Feedback]]:
    """Read ``GUESS=B,W`` arguments."""
    return [rules.parse_scored(item) for item in scored]
