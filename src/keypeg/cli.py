"""The ``keypeg`` command line: thin over the library, errors translated at the edge."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

from keypeg import __version__
from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.variants import VARIANTS, find_variant

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


def key_pegs(feedback: Feedback, pegs: int) -> str:
    """Key pegs drawn as text: black, white, then empty holes."""
    return "●" * feedback.black + "○" * feedback.white + "·" * (pegs - feedback.black - feedback.white)


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


@cli.command()
@json_option
def variants(as_json: bool) -> None:
    """List the presets, with their rows and alphabets."""
    if as_json:
        print_json(
            [
                {
                    "name": v.name,
                    "aliases": list(v.aliases),
                    "pegs": v.rules.pegs,
                    "colors": v.rules.colors,
                    "repeats": v.rules.repeats,
                    "blanks": v.rules.blanks,
                    "rows": v.rules.rows,
                    "symbols": "".join(v.rules.symbols),
                    "codes": v.rules.size,
                    "about": v.about,
                }
                for v in VARIANTS.values()
            ]
        )
        return
    table = Table(title="keypeg variants")
    wide = out.width >= 120
    for column in ("name", "game", "rows", "symbols", "codes", "also known as"):
        table.add_column(
            column,
            justify="right" if column in ("rows", "codes") else "left",
            no_wrap=column != "also known as",
            overflow="fold",
        )
    if wide:
        table.add_column("about", ratio=1)
    for v in VARIANTS.values():
        r = v.rules
        game = f"{r.pegs}x{r.colors}" + ("" if r.repeats else ", no repeats") + (", blanks" if r.blanks else "")
        symbols = "".join(r.symbols) if r.colors <= 10 else f"{r.symbols[0]}-{r.symbols[-1]}"
        row = [v.name, game, str(r.rows), symbols + (" ." if r.blanks else ""), f"{r.size:,}", ", ".join(v.aliases)]
        table.add_row(*row, *([v.about] if wide else []))
    out.print(table)


@cli.command()
@click.argument("secret")
@click.argument("guess")
@rules_options
@json_option
def score(secret: str, guess: str, rules: Rules, as_json: bool) -> None:
    """Score GUESS against SECRET: black and white key pegs."""
    from keypeg.feedback import score as score_codes

    feedback = score_codes(rules.parse(secret), rules.parse(guess))
    if as_json:
        print_json({"black": feedback.black, "white": feedback.white})
        return
    out.print(
        f"{key_pegs(feedback, rules.pegs)}  {feedback.black} black, {feedback.white} white"
        + ("  (code broken)" if feedback == rules.win else "")
    )


def parse_history(rules: Rules, scored: tuple[str, ...]) -> list[tuple[Code, Feedback]]:
    """Read ``GUESS=B,W`` arguments."""
    return [rules.parse_scored(item) for item in scored]


@cli.command()
@click.argument("scored", nargs=-1, metavar="GUESS=B,W...")
@rules_options
@click.option("--limit", "-n", type=click.IntRange(0), default=10, show_default=True, help="Codes to list.")
@json_option
def candidates(scored: tuple[str, ...], rules: Rules, limit: int, as_json: bool) -> None:
    """Count the codes that fit the scored guesses, and list the first few."""
    from keypeg.kernels import CodeSpace, feedback_ordinal

    history = parse_history(rules, scored)
    space = CodeSpace.of(rules)
    fits = space.consistent([(space.index(g), feedback_ordinal(f, rules.pegs)) for g, f in history])
    codes = [str(space.code(int(i))) for i in fits[:limit]]
    if as_json:
        print_json({"count": int(fits.size), "codes": codes})
    elif fits.size == 0:
        err.print("no code fits these scores: at least one of them must be wrong")
    else:
        more = f" (first {len(codes)} shown)" if fits.size > len(codes) else ""
        out.print(f"{fits.size:,} of {space.size:,} codes fit{more}:")
        if codes:
            out.print(" ".join(codes))
    if fits.size == 0:
        sys.exit(1)


def main() -> None:
    """Entry point of the ``keypeg`` script."""
    cli()
