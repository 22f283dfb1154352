"""What every benchmark script shares: the machine line, the printed table, the saved markdown."""

from __future__ import annotations

import os
import platform
import time
from itertools import pairwise
from pathlib import Path

import numba
from rich.console import Console
from rich.table import Table

RESULTS = Path(__file__).parent / "results"


def machine() -> str:
    """The machine the figures come from."""
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, numba {numba.__version__}"
    )


def report(
    name: str,
    title: str,
    command: str,
    notes: list[str],
    columns: list[str],
    rows: list[list[str]],
    *,
    left: int = 1,
    save: bool = True,
    section: bool = False,
) -> None:
    """Print the table (the first ``left`` columns aligned left) and save it to ``results/NAME.md``; with
    ``section``, as the section headed ``# TITLE`` of that file, the others kept (a new title is added
    at the end)."""
    table = Table(title=title)
    for k, column in enumerate(columns):
        table.add_column(column, justify="left" if k < left else "right")
    for row in rows:
        table.add_row(*row)
    console = Console()
    console.print(table)
    console.print(machine())
    for note in notes:
        console.print(note)
    if not save:
        return
    lines = [
        f"# {title}",
        "",
        f"`{command}` on {machine()}, {time.strftime('%Y-%m-%d')}.",
        *notes,
        "",
        f"| {' | '.join(columns)} |",
        "|" + "|".join("---" if k < left else "---:" for k in range(len(columns))) + "|",
        *[f"| {' | '.join(row)} |" for row in rows],
        "",
    ]
    out = RESULTS / f"{name}.md"
    text = "\n".join(lines)
    if section and out.exists():
        text = replaced(out.read_text(encoding="utf-8"), lines)
    out.write_text(text, encoding="utf-8")
    console.print(f"saved {out}")


def replaced(old: str, new: list[str]) -> str:
    """A results file's text with the section headed like ``new`` (its first line, up to the next ``# ``
    heading) replaced by ``new``, or ``new`` added at the end."""
    lines = old.split("\n")
    starts = [k for k, line in enumerate(lines) if line.startswith("# ")] + [len(lines)]
    for start, end in pairwise(starts):
        if lines[start] == new[0]:
            return "\n".join(lines[:start] + new + lines[end:])
    return old.rstrip("\n") + "\n\n" + "\n".join(new)
