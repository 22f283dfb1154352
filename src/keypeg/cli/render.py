"""Rendering shared by the commands: pegs, key pegs, the board, small charts in text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from keypeg.code import Code, Feedback
from keypeg.rules import Rules
from keypeg.text import visible

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["new_table", "peg_text", "key_text", "board", "sparkline", "plain"]

SPARKS = "▁▂▃▄▅▆▇█"

PALETTE = {
    "red": "red",
    "green": "green",
    "blue": "blue",
    "yellow": "yellow",
    "white": "white",
    "black": "grey30",
    "orange": "dark_orange",
    "purple": "purple",
}
FALLBACK = (
    "red", "green", "blue", "yellow", "magenta", "cyan", "dark_orange", "purple", "white", "grey50",
    "bright_red", "bright_green", "bright_blue", "bright_yellow", "bright_magenta", "bright_cyan",
    "orange4", "pink1", "gold1", "turquoise2", "chartreuse1", "slate_blue1", "tan", "plum1", "wheat1", "khaki1",
)  # fmt: skip


def peg_text(rules: Rules, code: Code) -> Text:
    """A code as coloured pegs, each showing its symbol."""
    text = Text()
    for color in code.colors:
        symbol = rules.symbol(color)
        if color == rules.blank:
            text.append(f" {symbol} ", style="dim")
            continue
        name = rules.names[color] if rules.names else ""
        style = PALETTE.get(name, FALLBACK[color % len(FALLBACK)])
        text.append(f" {symbol} ", style=f"bold black on {style}")
        text.append(" ")
    return text


def plain(value: object, limit: int | None = 64) -> Text:
    """Text from a user, a file or the database, shown as it is: never read as markup, its hidden
    characters as escapes, cut after ``limit`` characters."""
    return Text(visible(value, limit))


def key_text(rules: Rules, feedback: Feedback) -> Text:
    """Key pegs in colour (:meth:`~keypeg.rules.Rules.drawn`), with the score beside them in words."""
    drawn = rules.drawn(feedback)
    text = Text()
    text.append(drawn[: feedback.black], style="bold")
    text.append(drawn[feedback.black :][: feedback.white])
    text.append(drawn[feedback.black + feedback.white :], style="dim")
    text.append(f"  {rules.say(feedback)}", style="dim")
    return text


def board(rules: Rules, history: Sequence[tuple[Code, Feedback]], title: str) -> Table:
    """The decoding board so far, one row per scored guess, and the rows left."""
    table = new_table(title=title, show_header=False, box=None, padding=(0, 1))
    table.add_column(justify="right", style="dim")
    table.add_column()
    table.add_column()
    for k, (guess, feedback) in enumerate(history, 1):
        table.add_row(str(k), peg_text(rules, guess), key_text(rules, feedback))
    left = rules.rows - len(history)
    if left > 0:
        table.add_row("", Text(f"{left} row{'s' if left != 1 else ''} left", style="dim"), "")
    return table


def sparkline(values: list[int]) -> str:
    """Numbers as a one-line chart."""
    if not values:
        return ""
    low, high = min(values), max(values)
    span = max(high - low, 1)
    return "".join(SPARKS[round((v - low) / span * (len(SPARKS) - 1))] for v in values)


def new_table(**options: Any) -> Table:
    """A Rich table (Rich's table module loads only when a command prints one)."""
    from rich.table import Table

    return Table(**options)
