"""Commands about rules and single scores: variants, score, candidates."""

from __future__ import annotations

import sys

import click
from rich.table import Table

from keypeg.cli.common import cli, err, json_option, key_pegs, out, parse_history, print_json, rules_options
from keypeg.rules import Rules
from keypeg.variants import VARIANTS


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
