"""Commands about rules and single scores: variants, score, candidates."""

from __future__ import annotations

import sys

import click

from keypeg.cli.common import cli, err, json_option, out, parse_history, print_json, rules_options
from keypeg.cli.render import key_pegs, new_table
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
    table = new_table(title="keypeg variants")
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
    """Count the codes that fit the scored guesses, and list the first few (any size of game)."""
    from keypeg.consistency import check
    from keypeg.limits import DEFAULT_COUNT_LIMIT

    result = check(rules, parse_history(rules, scored), limit=max(limit, DEFAULT_COUNT_LIMIT))
    codes = [str(c) for c in result.codes[:limit]]
    if as_json:
        print_json({"count": result.count, "count_is_lower_bound": result.count_is_lower_bound, "codes": codes})
    elif not result.consistent:
        err.print("no code fits these scores: at least one of them must be wrong (see 'keypeg check')")
    else:
        count = f"at least {result.count:,}" if result.count_is_lower_bound else f"{result.count:,}"
        more = f" (first {len(codes)} shown)" if result.count > len(codes) else ""
        out.print(f"{count} of {rules.size:,} codes fit{more}:")
        if codes:
            out.print(" ".join(codes))
    if not result.consistent:
        sys.exit(1)


@cli.command()
@click.argument("scored", nargs=-1, metavar="GUESS=B,W...")
@rules_options
@click.option("--limit", type=click.IntRange(1), default=200, show_default=True, help="Count fitting codes up to this.")
@json_option
def check(scored: tuple[str, ...], rules: Rules, limit: int, as_json: bool) -> None:
    """Is there a secret that fits the scored guesses? If not, which score is the likely mistake."""
    from keypeg.consistency import check as check_history

    result = check_history(rules, parse_history(rules, scored), limit=limit)
    if as_json:
        print_json(result.as_dict())
    else:
        out.print(result.message() if result.consistent else f"inconsistent: {result.message()}", soft_wrap=True)
    if not result.consistent:
        sys.exit(1)
