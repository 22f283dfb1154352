"""Commands about rules and single scores: variants, score, candidates."""

from __future__ import annotations

import sys

import click

from keypeg.cli.analysis import announce_compiling, plural, refuse_empty, say
from keypeg.cli.common import cli, json_option, note_readings, out, parse_history, print_json, rules_options
from keypeg.cli.options import force_option
from keypeg.cli.render import new_table
from keypeg.code import Code, Feedback
from keypeg.errors import InconsistentHistoryError
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
                    "feedback": v.rules.feedback,
                    "rows": v.rules.rows,
                    "symbols": "".join(v.rules.symbols),
                    "codes": v.rules.size,
                    "about": v.about,
                }
                for v in VARIANTS.values()
            ]
        )
        return
    from rich import box

    table = new_table(title="keypeg variants", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    wide = out.width >= 120
    for column in ("name", "game", "rows", "symbols", "codes", "also known as"):
        table.add_column(column, justify="right" if column in ("rows", "codes") else "left", no_wrap=True)
    if wide:
        table.add_column("about", ratio=1)
    for v in VARIANTS.values():
        r = v.rules
        game = [f"{r.pegs}x{r.colors}", *([] if r.repeats else ["no repeats"]), *(["blanks"] if r.blanks else [])]
        game += [] if r.feedback == "standard" else [f"{r.feedback} only"]
        symbols = "".join(r.symbols) if r.colors <= 10 else f"{r.symbols[0]}-{r.symbols[-1]}"
        # one game feature and one alias a line: narrow columns, no word ever split
        row = [v.name, "\n".join(game), str(r.rows), symbols + (" ." if r.blanks else ""), f"{r.size:,}"]
        table.add_row(*row, "\n".join(v.aliases), *([v.about] if wide else []))
    out.print(table)


@cli.command()
@click.argument("secret")
@click.argument("guess")
@rules_options
@json_option
def score(secret: str, guess: str, rules: Rules, as_json: bool) -> None:
    """Score GUESS against SECRET: black and white key pegs (under --feedback colours, the pegs of a right
    colour; black, the black pegs only)."""
    from keypeg.feedback import score as score_codes

    (code, notation), (other, other_notation) = rules.read(secret), rules.read(guess)
    note_readings(rules, [(secret, code, notation), (guess, other, other_notation)])
    feedback = score_codes(code, other)
    if as_json:
        print_json({"black": feedback.black, "white": feedback.white})
        return
    out.print(f"{rules.drawn(feedback)}  {rules.say(feedback)}" + ("  (code broken)" if feedback == rules.win else ""))


@cli.command()
@click.argument("scored", nargs=-1, metavar="GUESS=B,W...")
@rules_options
@click.option("--limit", "-n", type=click.IntRange(0), default=10, show_default=True, help="Codes to list.")
@force_option
@json_option
def candidates(scored: tuple[str, ...], rules: Rules, limit: int, force: bool, as_json: bool) -> None:
    """Count the codes that fit the scored guesses, and list the first few (any size of game)."""
    from keypeg.limits import DEFAULT_COUNT_LIMIT

    history = _prepare(scored, rules, max(limit, DEFAULT_COUNT_LIMIT), force)
    from keypeg.consistency import check

    result = check(rules, history, limit=max(limit, DEFAULT_COUNT_LIMIT))
    if not result.consistent:  # scores no code fits are bad input here, as for 'next' and 'hint'
        raise InconsistentHistoryError(result.message())
    codes = [str(c) for c in result.codes[:limit]]
    if as_json:
        print_json({"count": result.count, "count_is_lower_bound": result.count_is_lower_bound, "codes": codes})
        return
    count = f"at least {result.count:,}" if result.count_is_lower_bound else f"{result.count:,}"
    more = f" (first {len(codes)} shown)" if result.count > len(codes) else ""
    verb = "fits" if result.count == 1 and not result.count_is_lower_bound else "fit"
    say(
        f"{count} of {plural(rules.size, 'code')} {verb}{more}:"
        if codes
        else f"{count} of {plural(rules.size, 'code')} {verb}"
    )
    if codes:
        say(" ".join(codes))


def _prepare(scored: tuple[str, ...], rules: Rules, listed: int, force: bool) -> list[tuple[Code, Feedback]]:
    """The scored guesses read, the work guarded, and the kernels announced if they will be compiled."""
    from keypeg.analysis.cost import consistency_cost
    from keypeg.cli.options import guard
    from keypeg.limits import ENUMERATE_LIMIT, PLAIN_SCORING_PAIRS

    refuse_empty("variant")
    history = parse_history(rules, scored)
    guard(consistency_cost(rules, len(history), listed), force)
    if rules.size * max(len(history), 1) > PLAIN_SCORING_PAIRS and rules.size <= ENUMERATE_LIMIT:
        from keypeg.analysis.cost import SCORING

        announce_compiling((SCORING,))
    return history


@cli.command()
@click.argument("scored", nargs=-1, metavar="GUESS=B,W...")
@rules_options
@click.option("--limit", type=click.IntRange(1), default=200, show_default=True, help="Count fitting codes up to this.")
@force_option
@json_option
def check(scored: tuple[str, ...], rules: Rules, limit: int, force: bool, as_json: bool) -> None:
    """Is there a secret that fits the scored guesses? If not, which score is the likely mistake."""
    history = _prepare(scored, rules, limit, force)
    from keypeg.consistency import check as check_history

    result = check_history(rules, history, limit=limit)
    if as_json:
        print_json(result.as_dict())
    else:
        say(result.message() if result.consistent else f"inconsistent: {result.message()}")
    if not result.consistent:
        sys.exit(1)
