"""Players and their records: recording games, and ``stats``, ``top``, ``history``, ``replay``, ``export``."""

from __future__ import annotations

import csv
import getpass
import io
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from keypeg.cli.common import FILE, cli, err, json_option, out, print_json, rules_options, show_view
from keypeg.cli.options import db_option
from keypeg.cli.render import new_table, plain, sparkline
from keypeg.limits import MIN_RANKED_GAMES, TOP_RULE
from keypeg.rules import Rules
from keypeg.text import plural, visible
from keypeg.variants import game_label, preset_of

if TYPE_CHECKING:
    from rich.console import RenderableType

    from keypeg.services.stores import Store


player_option = click.option(
    "--player", envvar="KEYPEG_PLAYER", metavar="NAME", help="Who plays (default: $KEYPEG_PLAYER or your login name)."
)
record_option = click.option("--record/--no-record", default=True, help="Keep the game in the database.")


def open_store(db: str | None) -> Store:
    """The store at ``db`` (or the default); errors become one clear line."""
    from keypeg.services.stores import open_store as open_at

    return open_at(db)


def default_player() -> str:
    """The player when none is named: ``$KEYPEG_PLAYER``, else the login name (``player`` when the
    login name cannot be a player's name)."""
    from keypeg.services.stores import InvalidNameError, player_name

    if os.environ.get("KEYPEG_PLAYER"):
        return os.environ["KEYPEG_PLAYER"]
    try:
        return player_name(getpass.getuser())
    except (KeyError, OSError, InvalidNameError):
        return "player"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


@cli.command()
@click.option("--player", metavar="NAME", help="Whose games (default: $KEYPEG_PLAYER or your login name).")
@rules_options
@click.option("--all-variants", is_flag=True, help="Every variant, not only the rules given.")
@click.option("--plot", type=FILE, help="Save a chart of guesses per game.")
@db_option
@json_option
def stats(
    player: str | None, rules: Rules, all_variants: bool, plot: Path | None, db: str | None, as_json: bool
) -> None:
    """A player's games as codebreaker: wins, average, best, worst, per variant and level, and the trend."""
    if plot is not None:
        from keypeg.cli.charts import check_chart

        check_chart(plot)  # before the database is opened
    from keypeg.services import records

    store = open_store(db)
    asked = player if player is not None else default_player()
    name = records.registered(store, asked)
    chosen = None if all_variants or not _rules_given() else rules
    variant = game_label(chosen) if chosen is not None else None
    result = records.stats(store, name, chosen)
    if plot is not None:
        _plot(result.trend, plot, name)
    if as_json:
        print_json(
            {
                "player": name,
                "games": result.games,
                "wins": result.wins,
                "average": result.average,
                "best": result.best,
                "worst": result.worst,
                "score": result.score,
                "by_variant": {
                    k: dict(zip(("games", "wins", "average"), v, strict=True)) for k, v in result.by_variant.items()
                },
                "by_level": {
                    k: dict(zip(("games", "wins", "average"), v, strict=True)) for k, v in result.by_level.items()
                },
                "trend": result.trend,
            }
        )
        return
    if not result.games:
        out.print(Text.assemble(plain(name), f" has no finished games yet{f' of {variant}' if variant else ''}"))
        return
    out.print(
        Text.assemble(
            (visible(name, 64), "bold"),
            f": {plural(result.games, 'game')}, {result.wins} won; average {_fmt(result.average)} guesses "
            f"(best {result.best or '-'}, worst {result.worst or '-'}); {_fmt(result.score)} counting each game "
            "lost or resigned as the row limit plus one",
        )
    )
    for title, groups in (("variant", result.by_variant), ("level", result.by_level)):
        table = new_table(show_edge=False)
        for column in (title, "games", "wins", "average"):
            table.add_column(column, justify="left" if column == title else "right")
        for key, (games, wins, average) in groups.items():
            table.add_row(plain(key), str(games), str(wins), _fmt(average))
        out.print(table)
    out.print(Text(f"trend: {sparkline(result.trend)}  (guesses per game, oldest first)"))
    if plot is not None:
        out.print(Text(f"chart saved to {visible(plot)}"))


def _rules_given() -> bool:
    context = click.get_current_context()
    return any(context.params.get(k) is not None for k in ("variant", "pegs", "colors", "repeats", "blanks", "rows"))


def _plot(trend: list[int], path: Path, name: str) -> None:
    """Guesses per game with a moving average."""
    from keypeg.cli.charts import figure

    with figure(path, (8, 4)) as ax:
        games = list(range(1, len(trend) + 1))
        ax.plot(games, trend, "o", label="guesses")
        window = 5
        if len(trend) >= window:
            moving = [sum(trend[k - window : k]) / window for k in range(window, len(trend) + 1)]
            ax.plot(games[window - 1 :], moving, "-", label=f"moving average of {window}")
        ax.set_xlabel("game")
        ax.set_ylabel("guesses")
        ax.set_title(f"{visible(name)}: guesses per game")


@cli.command(help=f"The top 10 players of a game.\n\n{TOP_RULE}")
@rules_options
@click.option("--ratings", "by_rating", is_flag=True, help="The rating leaderboard of games between people instead.")
@db_option
@json_option
def top(rules: Rules, by_rating: bool, db: str | None, as_json: bool) -> None:
    store = open_store(db)
    shown, table, note = _top_view(store, rules)
    if by_rating:  # the top 10 and the rating leaderboard beside it (below it on a narrow screen)
        from rich.measure import Measurement
        from rich.table import Table

        from keypeg.cli.ratings import leaderboard_view

        rated, rating_table, rating_note = leaderboard_view(store)
        if as_json:
            print_json(rated | {"top": shown})
            return
        widths = [Measurement.get(out, out.options, t).maximum for t in (table, rating_table)]
        if not isinstance(table, Text) and sum(widths) + 4 <= out.width:  # a line (nobody ranked) goes above
            grid = Table.grid(padding=(0, 4))
            grid.add_row(table, rating_table)
            out.print(grid)
        else:
            out.print(table)
            out.print(rating_table)
        for line in (note, rating_note):
            if line is not None:
                out.print(line)
        return
    show_view(shown, table, note, as_json)


def _top_view(store: Store, rules: Rules) -> tuple[dict[str, Any], RenderableType, Text | None]:
    """The top 10 of a game as JSON, as a Rich table (or a line when nobody is ranked) and its note."""
    from keypeg.services import records

    board = records.top(store, rules)
    title = game_label(rules)
    shown = {
        "variant": title,
        "rules": rules.as_dict(),
        "rule": TOP_RULE,
        "top": [
            {
                "rank": r.rank,
                "player": r.player,
                "games": r.games,
                "average": r.average,
                "best": r.best,
                "last": r.last.isoformat(),
            }
            for r in board
        ],
    }
    if not board:
        return shown, Text(f"no player has {MIN_RANKED_GAMES} rated games of {title} yet"), None
    table = new_table(title=Text(f"top 10: {title}"), show_edge=False)
    for column in ("#", "player", "average", "rated games", "best", "latest"):
        table.add_column(column, justify="left" if column in ("player", "latest") else "right")
    for r in board:
        table.add_row(
            str(r.rank), plain(r.player), f"{r.average:.2f}", str(r.games), str(r.best), r.last.strftime("%Y-%m-%d")
        )
    note = Text(f"average guesses over rated games, a lost game as {rules.rows + 1}; see 'keypeg top --help'")
    return shown, table, note


@cli.command()
@click.option("--player", metavar="NAME", help="Whose games (default: everyone's).")
@click.option("--limit", "-n", type=click.IntRange(1, 100_000), default=20, show_default=True)
@db_option
@json_option
def history(player: str | None, limit: int, db: str | None, as_json: bool) -> None:
    """The latest games, newest first (rated games count on the top 10; practice games never do)."""
    from keypeg.services import records

    games = records.history(open_store(db), player, limit=limit, with_moves=as_json, made=True)
    if as_json:
        print_json([g.as_dict() for g in games])
        return
    table = new_table(show_edge=False, pad_edge=False)
    for column in ("game", "date", "player", "variant", "role", "guesses", "outcome", "kind"):
        table.add_column(column, justify="right" if column in ("game", "guesses") else "left")
    for g in games:
        role: str | Text = g.role if g.level is None else f"{g.role} L{g.level}"
        if g.maker is not None:
            role = Text.assemble("breaker of ", plain(g.maker, 20), "'s code")
        table.add_row(
            str(g.id), g.started_at.strftime("%m-%d"), plain(g.player, 20), plain(g.variant, 20), role,
            f"{g.guesses}/{g.rows}", g.outcome or "unfinished",
            f"room {g.room}" if g.room else "rated" if g.rated else "practice",
        )  # fmt: skip
    out.print(table if games else "no games yet")


def replay_game(game_id: int, db: str | None, coach: bool, as_json: bool) -> None:
    """Show a stored game again, with the coach's comment on each of the player's guesses."""
    from keypeg.errors import KeypegError
    from keypeg.play.coach import review_history
    from keypeg.services import records

    game = records.game(open_store(db), game_id)
    rules = game.rules
    try:
        history = [(rules.parse(move.guess), move.feedback) for move in game.moves]
    except KeypegError:
        raise KeypegError(f"game {game_id} holds a guess that is not a code of its rules (a damaged record)") from None
    reviews = review_history(rules, history) if coach and game.role == "breaker" else [None] * len(history)
    lines = [(move, r.line() if r is not None else None) for move, r in zip(game.moves, reviews, strict=True)]
    if as_json:
        data = game.as_dict()
        data["coach"] = [c for _, c in lines]
        print_json(data)
        return
    out.print(
        Text.assemble(
            (f"game {game.id}", "bold"),
            f": {visible(game.player, 64)} as {game.role}, {game.variant}",
            f" ({rules.describe()})" if preset_of(rules) is not None else "",
            f", level {game.level}" if game.level else "",
            f", {'rated' if game.rated else 'practice'}",
            f", {game.outcome or 'unfinished'} after {plural(game.guesses, 'guess', 'guesses')}",
            f"; secret {visible(game.secret, 64) if game.secret else '(hidden until the game ends)'}",
        )
    )
    for move, comment in lines:
        out.print(Text(f"{move.number:>2}. {visible(move.guess, 64)}  {move.feedback}"))
        if comment:
            out.print(Text.assemble(("    coach: ", "cyan"), comment), soft_wrap=True)


@cli.command()
@click.option("--player", metavar="NAME", help="Whose games (default: $KEYPEG_PLAYER or your login name).")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
@click.option("--output", "-o", type=FILE, help="File (default, or '-': stdout).")
@db_option
def export(player: str | None, fmt: str, output: Path | None, db: str | None) -> None:
    """A player's games, as CSV (one row per game) or JSON (with every guess)."""
    from keypeg.services import records

    name = player if player is not None else default_player()
    games = list(reversed(records.history(open_store(db), name, limit=None, with_moves=fmt == "json")))
    if fmt == "json":
        text = json.dumps([g.as_dict() for g in games], indent=1) + "\n"
    else:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        columns = [
            "id",
            "player",
            "variant",
            "pegs",
            "colors",
            "repeats",
            "blanks",
            "feedback",
            "role",
            "level",
            "secret",
            "outcome",
            "rated",
            "guesses",
            "score",
            "rows",
            "started_at",
            "ended_at",
            "seconds",
        ]
        writer.writerow(columns)
        for g in games:
            row = g.as_dict() | {k: g.rules.as_dict()[k] for k in ("pegs", "colors", "repeats", "blanks")}
            row["feedback"] = g.rules.feedback
            writer.writerow([_cell(row[c]) for c in columns])
        text = buffer.getvalue()
    if output is None or str(output) == "-":
        click.echo(text, nl=False)
        return
    from keypeg.storage import atomic_write

    atomic_write(output, text)
    err.print(Text(f"{plural(len(games), 'game')} written to {visible(output)}"))


def _cell(value: object) -> object:
    """A CSV cell that a spreadsheet will not run as a formula, its hidden characters as escapes."""
    if not isinstance(value, str):
        return value
    shown = visible(value, limit=None)
    return "'" + shown if shown[:1] in ("=", "+", "-", "@") else shown


@cli.command()
@click.argument("name")
@click.option("--password", "set_password", is_flag=True, help="Set or change the password (stored as an argon2 hash).")
@click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the passwords from stdin (and set it: implies --password): the current one first, if any, then the new.",
)
@db_option
def player(name: str, set_password: bool, password_stdin: bool, db: str | None) -> None:
    """Create a player, or set or change their password. A password is never an argument: it is asked
    for (hidden, twice) in a terminal, or read from stdin (--password-stdin), or from $KEYPEG_PASSWORD
    (the current one) and $KEYPEG_NEW_PASSWORD (the new one). Changing it needs the current one."""
    from keypeg.errors import KeypegError
    from keypeg.services import accounts

    store = open_store(db)
    set_password = set_password or password_stdin  # a password piped in is one to set: never ignored
    if not set_password:
        registered = accounts.ensure_player(store, name)
        out.print(Text(f"player {visible(registered)} is ready"))
        return

    def secret(prompt: str, variable: str, confirm: bool = False) -> str:
        if password_stdin:
            return sys.stdin.readline().rstrip("\r\n")
        if variable in os.environ:
            return os.environ[variable]
        if not sys.stdin.isatty():
            raise KeypegError(f"no {prompt}: give it with --password-stdin or ${variable}")
        return str(click.prompt(prompt, hide_input=True, confirmation_prompt=confirm))

    old = secret("current password", "KEYPEG_PASSWORD") if accounts.has_password(store, name) else None
    new = secret("new password", "KEYPEG_NEW_PASSWORD", confirm=True)
    registered = accounts.change_password(store, name, new, old=old)
    out.print(Text(f"password set for {visible(registered)} (stored as an argon2 hash)"))


__all__ = [
    "stats",
    "top",
    "history",
    "export",
    "player",
    "replay_game",
    "open_store",
    "default_player",
    "db_option",  # declared in cli/options.py, named here for the commands that import it from records
]
