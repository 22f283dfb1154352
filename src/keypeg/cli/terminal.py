"""Talking to a person or a program: a terminal with prompts, or a line protocol on pipes."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import click
from rich.console import Console, RenderableType
from rich.text import Text

from keypeg.text import MESSAGE_LIMIT, visible

__all__ = ["Terminal"]

LINE_LIMIT = 1 << 16
"""The longest input line read whole; anything longer is refused (a code or score is a few characters)."""


@dataclass
class Terminal:
    """Where input comes from and output goes.

    Interactive (a terminal on both ends): prompts, a coloured board, messages on
    stdout. Piped: one answer per line on stdout (the protocol), everything else on stderr.
    """

    interactive: bool
    out: Console = field(default_factory=lambda: Console(highlight=False, emoji=False))
    err: Console = field(default_factory=lambda: Console(stderr=True, highlight=False, emoji=False))
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
                click.echo()  # Ctrl-C or Ctrl-D leave the cursor on the prompt's line
                return None
        for line in self._input():
            if line.strip():
                return line.strip()
        return None

    def read_password(self) -> str:
        """The first line of stdin, as it is (``--password-stdin``); a prompt would echo nothing either."""
        if self.interactive:
            return str(click.prompt("password", hide_input=True, default="", show_default=False))
        return next(self._input(), "")

    def _input(self) -> Iterator[str]:
        """Lines of stdin, decoded as UTF-8 one by one: a line that is not UTF-8 text, or is absurdly
        long, is refused (and reads as empty) instead of ending the game."""
        if self._lines is None:
            self._lines = _lines(sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None, self.warn)
        return self._lines

    def answer(self, text: str) -> None:
        """A protocol line: stdout, alone on its line."""
        click.echo(text)

    def show(self, renderable: RenderableType) -> None:
        """Something for the person: stdout in a terminal, stderr when piped (a line of text unwrapped)."""
        if self.interactive:
            self.out.print(renderable)
        else:
            self.err.print(renderable, soft_wrap=isinstance(renderable, str))

    def warn(self, text: str) -> None:
        """A message about bad input: always stderr, so the protocol stays clean. Messages quote user
        input, so they are printed as text: never markup, hidden characters as escapes; wrapped at words
        in a terminal, one line on a pipe."""
        shown = Text(visible(text, limit=MESSAGE_LIMIT), style="red" if self.interactive else "")
        self.err.print(shown, soft_wrap=not self.interactive)

    def note(self, text: str) -> None:
        """A side remark (recording trouble, a fallback): stderr, marked ``note:``."""
        self.warn(f"note: {text}")


def _lines(stream: BinaryIO | None, warn: Callable[[str], None]) -> Iterator[str]:
    if stream is None:  # a text-only stdin (tests that replace it)
        yield from (line.rstrip("\r\n") for line in sys.stdin)
        return
    while True:
        raw = stream.readline(LINE_LIMIT + 1)
        if not raw:
            return
        if len(raw) > LINE_LIMIT and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the line
                raw = stream.readline(LINE_LIMIT)
            warn(f"a line of more than {LINE_LIMIT:,} bytes is ignored")
            yield ""
            continue
        try:
            yield raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            warn("a line that is not UTF-8 text is ignored")
            yield ""
