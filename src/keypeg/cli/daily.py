"""``keypeg daily``: the daily puzzle in the terminal, on the same store (and the same secret) as the web."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from rich.text import Text

from keypeg.cli.common import cli, json_option, out, print_json
from keypeg.cli.options import db_option
from keypeg.cli.play import password_stdin_option
from keypeg.cli.records import default_player, open_store, player_option
from keypeg.cli.render import new_table
from keypeg.cli.terminal import Terminal
from keypeg.errors import KeypegError
from keypeg.text import visible

if TYPE_CHECKING:
    from rich.table import Table

    from keypeg.services.daily import DailyResult

__all__ = ["daily"]


@cli.command()
@click.option("--variant", default="classic", show_default=True, help="The preset whose puzzle to play.")
@click.option("--board", "board_only", is_flag=True, help="Show the day's board and your streak; do not play.")
@player_option
@password_stdin_option
@db_option
@json_option
def daily(
    variant: str, board_only: bool, player: str | None, password_stdin: bool, db: str | None, as_json: bool
) -> None:
    """Today's puzzle (UTC): one secret per preset and day, the same for every player; one attempt each,
    no help. Afterwards: the grid to share (key pegs only, never the code), the day's board, your streak."""
    from keypeg.cli.play import _claim, _resign_and_exit, game_exit, run_break
    from keypeg.play.daily import DayOverError, today
    from keypeg.services.daily import close_ended, daily_view, start_daily
    from keypeg.services.games import OpenGame
    from keypeg.services.stores import player_name
    from keypeg.variants import find_variant

    preset = find_variant(variant)
    store = open_store(db)
    terminal = Terminal.detect()
    name = _claim(terminal, store, player_name(player if player is not None else default_player()), password_stdin)
    day = today()
    if not board_only:
        if as_json:
            raise KeypegError("--json goes with --board (the game itself is played line by line)")
        session, keeper = start_daily(store, name, preset)
        if not session.history and terminal.interactive:
            terminal.show(f"The puzzle of {day}: {preset.name}, {preset.rules.describe()}. One attempt, no help.")
        opened = OpenGame(session, keeper)
        try:
            finished = run_break(terminal, opened)
        except DayOverError:  # the day ended during the game: it is kept as not broken
            close_ended(session, keeper)
            raise
        if not finished:
            _resign_and_exit(terminal, opened)
    view = daily_view(store, preset, day, name)
    days = view.streak
    if as_json:
        print_json(
            {
                "day": day,
                "variant": preset.name,
                "player": name,
                "played": view.played,
                "grid": view.grid,
                "streak": days,
                "board": [
                    {"rank": r.rank, "player": r.player, "solved": r.solved, "guesses": r.guesses, "seconds": r.seconds}
                    for r in view.board
                ],
            }
        )
        return
    if view.grid is not None:
        out.print(Text(view.grid))
    elif board_only:
        out.print(
            Text(f"{visible(name, 64)} has not played the puzzle of {day} yet: keypeg daily --variant {preset.name}")
        )
    out.print(Text(f"streak: {days} {'day' if days == 1 else 'days'} in a row"))
    out.print(_board_table(day, preset.name, view.board))
    if not board_only:
        game_exit(terminal, view.solved)


def _board_table(day: str, variant: str, board: list[DailyResult]) -> Table:
    table = new_table(title=f"the puzzle of {day}, {variant}")
    for heading in ("rank", "player", "result", "minutes"):
        table.add_column(heading, justify="left" if heading == "player" else "right")
    for r in board:
        minutes = f"{r.seconds / 60:.1f}" if r.seconds is not None else "-"
        table.add_row(str(r.rank), Text(visible(r.player, 64)), f"{r.guesses}" if r.solved else "not broken", minutes)
    return table
