"""Players and their records: recording games, and ``stats``, ``top``, ``history``, ``replay``, ``export``."""

from __future__ import annotations

import csv
import getpass
import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.text import Text

from keypeg.cli.common import cli, err, json_option, out, print_json, rules_options
from keypeg.cli.render import new_table, sparkline
from keypeg.rules import Rules

if TYPE_CHECKING:
    from keypeg.store import Store

db_option = click.option(
    "--db", envvar="KEYPEG_DB", metavar="URL", help="Database URL (default: SQLite in your data folder)."
)
player_option = click.option(
    "--player", envvar="KEYPEG_PLAYER", metavar="NAME", help="Who plays (default: $KEYPEG_PLAYER or your login name)."
)
record_option = click.option("--record/--no-record", default=True, help="Keep the game in the database.")


def open_store(db: str | None) -> Store:
    """The store at ``db`` (or the default); errors become one clear line."""
    from keypeg.store import Store

    return Store(db)


def default_player() -> str:
    """The player when none is named."""
    try:
        return os.environ.get("KEYPEG_PLAYER") or getpass.getuser()
    except (KeyError, OSError):
        return "player"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


@cli.command()
@click.option("--player", metavar="NAME", help="Whose games (default: $KEYPEG_PLAYER or your login name).")
@rules_options
@click.option("--all-variants", is_flag=True, help="Every variant, not only the rules given.")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), help="Save a chart of guesses per game.")
@db_option
@json_option
def stats(
    player: str | None, rules: Rules, all_variants: bool, plot: Path | None, db: str | None, as_json: bool
) -> None:
    """A player's games as codebreaker: wins, average, best, worst, per variant and level, and the trend."""
    name = player or default_player()
    store = open_store(db)
    variant = None if all_variants or not _rules_given() else rules.slug
    result = store.stats(name, variant=variant)
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
        out.print(f"{name} has no finished games yet" + (f" of {variant}" if variant else ""))
        return
    out.print(
        f"[bold]{name}[/]: {result.games} games, {result.wins} won; average {_fmt(result.average)} guesses, "
        f"best {result.best}, worst {result.worst}"
    )
    for title, groups in (("variant", result.by_variant), ("level", result.by_level)):
        table = new_table(show_edge=False)
        for column in (title, "games", "wins", "average"):
            table.add_column(column, justify="left" if column == title else "right")
        for key, (games, wins, average) in groups.items():
            table.add_row(key, str(games), str(wins), _fmt(average))
        out.print(table)
    out.print(Text(f"trend: {sparkline(result.trend)}  (guesses per game, oldest first)"))
    if plot is not None:
        out.print(f"chart saved to {plot}")


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
        ax.set_title(f"{name}: guesses per game")


@cli.command()
@rules_options
@click.option("--level", "-l", type=click.IntRange(1, 4), help="Only games against this level.")
@db_option
@json_option
def top(rules: Rules, level: int | None, db: str | None, as_json: bool) -> None:
    """The top 10 of a variant: codes broken in the fewest guesses, then the fastest."""
    variant = rules.slug
    best = open_store(db).top(variant, level=level)
    if as_json:
        print_json({"variant": variant, "top": [g.as_dict() for g in best]})
        return
    table = new_table(title=f"top 10: {variant}" + (f", level {level}" if level else ""), show_edge=False)
    for column in ("#", "player", "guesses", "seconds", "date", "game"):
        table.add_column(column, justify="right" if column in ("#", "guesses", "seconds", "game") else "left")
    for rank, game in enumerate(best, 1):
        seconds = f"{game.seconds:.0f}" if game.seconds is not None else "-"
        table.add_row(
            str(rank), game.player, str(game.guesses), seconds, game.started_at.strftime("%Y-%m-%d"), str(game.id)
        )
    out.print(table if best else f"no games of {variant} yet")


@cli.command()
@click.option("--player", metavar="NAME", help="Whose games (default: everyone's).")
@click.option("--limit", "-n", type=click.IntRange(1), default=20, show_default=True)
@db_option
@json_option
def history(player: str | None, limit: int, db: str | None, as_json: bool) -> None:
    """The latest games, newest first."""
    games = open_store(db).history(player, limit=limit)
    if as_json:
        print_json([g.as_dict() for g in games])
        return
    table = new_table(show_edge=False)
    for column in ("game", "date", "player", "variant", "role", "level", "guesses", "outcome"):
        table.add_column(column, justify="right" if column in ("game", "guesses", "level") else "left")
    for g in games:
        table.add_row(
            str(g.id), g.started_at.strftime("%m-%d %H:%M"), g.player, g.variant, g.role,
            str(g.level or "-"), str(g.guesses), g.outcome or "unfinished",
        )  # fmt: skip
    out.print(table if games else "no games yet")


def replay_game(game_id: int, db: str | None, coach: bool, as_json: bool) -> None:
    """Show a stored game again, with the coach's comment on each of the player's guesses."""
    from keypeg.play.coach import review_history

    game = open_store(db).game(game_id)
    rules = game.rules
    history = [(rules.parse(move.guess), move.feedback) for move in game.moves]
    reviews = review_history(rules, history) if coach and game.role == "breaker" else [None] * len(history)
    lines = [(move, r.line() if r is not None else None) for move, r in zip(game.moves, reviews, strict=True)]
    if as_json:
        data = game.as_dict()
        data["coach"] = [c for _, c in lines]
        print_json(data)
        return
    out.print(
        f"[bold]game {game.id}[/]: {game.player} as {game.role}, {game.variant}"
        + (f", level {game.level}" if game.level else "")
        + f", {game.outcome or 'unfinished'} after {game.guesses} guesses; secret {game.secret or '?'}"
    )
    for move, comment in lines:
        out.print(f"{move.number:>2}. {move.guess}  {move.feedback}")
        if comment:
            out.print(f"    [cyan]coach:[/] {comment}", soft_wrap=True)


@cli.command()
@click.option("--player", metavar="NAME", help="Whose games (default: $KEYPEG_PLAYER or your login name).")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="File (default: stdout).")
@db_option
def export(player: str | None, fmt: str, output: Path | None, db: str | None) -> None:
    """A player's games, as CSV (one row per game) or JSON (with every guess)."""
    name = player or default_player()
    games = list(reversed(open_store(db).history(name, limit=None, with_moves=fmt == "json")))
    if fmt == "json":
        text = json.dumps([g.as_dict() for g in games], indent=1) + "\n"
    else:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        columns = [
            "id",
            "player",
            "variant",
            "role",
            "level",
            "secret",
            "outcome",
            "guesses",
            "rows",
            "started_at",
            "ended_at",
            "seconds",
        ]
        writer.writerow(columns)
        for g in games:
            row = g.as_dict()
            writer.writerow([row[c] for c in columns])
        text = buffer.getvalue()
    if output is None:
        click.echo(text, nl=False)
        return
    from keypeg.storage import atomic_write

    atomic_write(output, text)
    err.print(f"{len(games)} games written to {output}")


@cli.command()
@click.argument("name")
@click.option("--password", "set_password", is_flag=True, help="Set a password (asked for twice, stored hashed).")
@db_option
def player(name: str, set_password: bool, db: str | None) -> None:
    """Create a player, or set their password."""
    store = open_store(db)
    store.ensure_player(name)
    if set_password:
        password = click.prompt("new password", hide_input=True, confirmation_prompt=True)
        store.set_password(name, password)
        out.print(f"password set for {name} (stored as an argon2 hash)")
    else:
        out.print(f"player {name} is ready")


__all__ = ["stats", "top", "history", "export", "player", "replay_game", "open_store", "default_player"]
