"""Talking to a person or a program: a terminal with prompts, or a line protocol on pipes."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

import click
from rich.console import Console, RenderableType
from rich.markup import escape

__all__ = ["Terminal"]


@dataclass
class Terminal:
    """Where input comes from and output goes.

    Interactive (a terminal on both ends): prompts, a coloured board, messages on
    stdout. Piped: one answer per line on stdout (the protocol), everything else on stderr.
    """

    interactive: bool
    out: Console = field(default_factory=lambda: Console(highlight=False))
    err: Console = field(default_factory=lambda: Console(stderr=True, highlight=False))
    _lines: Iterator[str] | None = None

    @classmethod
    def detect(cls) -> Terminal:
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
        shown = escape(text)  # messages quote user input: printed literally, never as markup
        self.err.print(f"[red]{shown}[/]" if self.interactive else shown, soft_wrap=True)

    def note(self, text: str) -> None:
        """A side remark (recording trouble, a fallback): stderr, marked ``note:``."""
        self.warn(f"note: {text}")
