"""Talking to a person or a program: a terminal with prompts and a board, or a line protocol on pipes."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

import click
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from keypeg.code import Code, Feedback
from keypeg.rules import Rules

__all__ = ["Session", "board", "peg_text", "key_text"]

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


def key_text(feedback: Feedback, pegs: int) -> Text:
    """Key pegs: black (right place), white (wrong place), empty holes."""
    text = Text()
    text.append("●" * feedback.black, style="bold")
    text.append("○" * feedback.white)
    text.append("·" * (pegs - feedback.black - feedback.white), style="dim")
    text.append(f"  {feedback.black}b {feedback.white}w", style="dim")
    return text


def board(rules: Rules, history: list[tuple[Code, Feedback]], title: str) -> Table:
    """The decoding board so far, one row per scored guess, and the rows left."""
    table = Table(title=title, show_header=False, box=None, padding=(0, 1))
    table.add_column(justify="right", style="dim")
    table.add_column()
    table.add_column()
    for k, (guess, feedback) in enumerate(history, 1):
        table.add_row(str(k), peg_text(rules, guess), key_text(feedback, rules.pegs))
    left = rules.rows - len(history)
    if left > 0:
        table.add_row("", Text(f"{left} row{'s' if left != 1 else ''} left", style="dim"), "")
    return table


@dataclass
class Session:
    """Where input comes from and output goes.

    Interactive (a terminal on both ends): prompts, a coloured board, messages on
    stdout. Piped: one answer per line on stdout (the protocol), everything else on stderr.
    """

    interactive: bool
    out: Console = field(default_factory=lambda: Console(highlight=False))
    err: Console = field(default_factory=lambda: Console(stderr=True, highlight=False))
    _lines: Iterator[str] | None = None

    @classmethod
    def detect(cls) -> Session:
        """Interactive when stdin and stdout are both terminals."""
        return cls(interactive=sys.stdin.isatty() and sys.stdout.isatty())

    def read(self, prompt: str) -> str | None:
        """The next line (stripped), or ``None`` at the end of input."""
        if self.interactive:
            try:
                return str(click.prompt(prompt, default="", show_default=False, prompt_suffix=" ")).strip()
            except (EOFError, click.exceptions.Abort):
                return None
        if self._lines is None:
            self._lines = iter(sys.stdin)
        for line in self._lines:
            if line.strip():
                return line.strip()
        return None

    def answer(self, text: str) -> None:
        """A protocol line: stdout, alone on its line."""
        click.echo(text)

    def show(self, renderable: RenderableType) -> None:
        """Something for the person: stdout in a terminal, stderr when piped."""
        (self.out if self.interactive else self.err).print(renderable)

    def warn(self, text: str) -> None:
        """A message about bad input: always stderr, so the protocol stays clean."""
        self.err.print(f"[red]{text}[/]" if self.interactive else text, soft_wrap=True)
