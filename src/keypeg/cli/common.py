"""What every command shares: the group, rules and output options, error handling."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console, RenderableType
from rich.text import Text

from keypeg import __version__
from keypeg.code import Code, Feedback
from keypeg.errors import ConflictError, KeypegError, UnavailableError
from keypeg.rules import Rules
from keypeg.text import MESSAGE_LIMIT, visible
from keypeg.variants import rules_from_options

F = TypeVar("F", bound=Callable[..., Any])

out = Console(highlight=False, emoji=False)
err = Console(stderr=True, highlight=False, emoji=False)


EXIT_CODES: tuple[tuple[type[Exception], int], ...] = (
    (UnavailableError, 1),
    (ConflictError, 1),
    (KeypegError, 2),
)
"""The one table from keypeg's errors to exit codes, the first kind that matches: 1 for a failure at
run time (something keypeg needs is down, or the record changed elsewhere meanwhile), 2 for the rest
(bad input, not found, forbidden, refused by a rule, too costly)."""


def exit_code(error: KeypegError) -> int:
    """The exit code of ``error``, by :data:`EXIT_CODES`."""
    return next(code for kind, code in EXIT_CODES if isinstance(error, kind))


SEED = click.IntRange(0, 2**32 - 1)
"""The type of every ``--seed`` option."""


class FilePath(click.Path):
    """A file named on the command line: never empty, blank, or holding a NUL byte."""

    name = "file"

    def __init__(self) -> None:
        super().__init__(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and (not value.strip() or "\x00" in value):
            self.fail("a file name cannot be empty or blank, or hold a NUL byte", param, ctx)
        return super().convert(value, param, ctx)


FILE = FilePath()
"""The type of every option or argument that names a file."""


class FolderPath(click.Path):
    """A folder named on the command line: never empty, blank, or holding a NUL byte."""

    name = "folder"

    def __init__(self) -> None:
        super().__init__(file_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and (not value.strip() or "\x00" in value):
            self.fail("a folder name cannot be empty or blank, or hold a NUL byte", param, ctx)
        return super().convert(value, param, ctx)


FOLDER = FolderPath()
"""The type of every option that names a folder to write in."""


FEEDBACK_CHOICES = ("standard", "colours", "colors", "black")
"""What ``--feedback`` takes (``colors`` reads as ``colours``)."""


def rules_options(command: F) -> F:
    """Add the rules options shared by every command; the command receives ``rules``."""

    @click.option("--variant", "-v", metavar="NAME", help="A preset (see 'keypeg variants'); classic by default.")
    @click.option("--pegs", "-p", type=int, help="Pegs in a code.")
    @click.option("--colors", "--colours", "-c", type=int, help="Colours to choose from.")
    @click.option("--repeats/--no-repeats", default=None, help="Whether a colour may repeat in a code.")
    @click.option("--blanks/--no-blanks", default=None, help="Whether a peg may be blank ('.').")
    @click.option("--rows", "-r", type=int, help="Guesses allowed.")
    @click.option(
        "--feedback",
        type=click.Choice(FEEDBACK_CHOICES, case_sensitive=False),
        default=None,
        help="What a guess is told: standard (black and white), colours (how many pegs of a right colour, "
        "in any place: the code is its colours) or black (only the pegs right in colour and place).",
    )
    @functools.wraps(command)
    def wrapper(
        *args: Any,
        variant: str | None,
        pegs: int | None,
        colors: int | None,
        repeats: bool | None,
        blanks: bool | None,
        rows: int | None,
        feedback: str | None,
        **kwargs: Any,
    ) -> Any:
        rules = rules_from_options(variant, pegs, colors, repeats, blanks, rows, feedback)
        return command(*args, rules=rules, **kwargs)

    return wrapper  # type: ignore[return-value]


def threads_option(command: F) -> F:
    """Add ``--threads`` to a command that runs kernels: the threads they run on (numba's), all the
    cores this process may use by default (or ``$NUMBA_NUM_THREADS``)."""

    @click.option(
        "--threads",
        type=click.IntRange(1, 1024),
        default=None,
        help="Threads for the computing kernels (default: every core this process may use).",
    )
    @functools.wraps(command)
    def wrapper(*args: Any, threads: int | None, **kwargs: Any) -> Any:
        use_threads(threads)
        return command(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def use_threads(threads: int | None) -> None:
    """Run the kernels on ``threads`` threads (``None``: the cores this process may use, unless
    ``$NUMBA_NUM_THREADS`` says otherwise): :func:`keypeg.cluster.use_threads`, which loads nothing heavy."""
    from keypeg import cluster

    cluster.use_threads(threads)


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")


def print_json(data: object) -> None:
    """Print machine-readable output on stdout."""
    click.echo(json.dumps(data, indent=2))


def show_view(shown: object, table: RenderableType, note: RenderableType | None, as_json: bool) -> None:
    """A listing as the command was asked for: ``shown`` as JSON, else its table and the note under it."""
    if as_json:
        print_json(shown)
        return
    out.print(table)
    if note is not None:
        out.print(note)


class KeypegGroup(click.Group):
    """A group that turns every failure into one clear line on stderr and an exit code: 2 for bad
    usage or bad input, 1 for a failure at run time (a file that cannot be written, a database that
    cannot be used), never a traceback (``KEYPEG_DEBUG=1`` shows one, for keypeg's developers)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as error:
            command = error.ctx.command_path if error.ctx is not None else "keypeg"
            fail(f"{error.format_message()} (see '{command} --help')", 2)
        except click.ClickException as error:
            fail(error.format_message(), error.exit_code)
        except (click.Abort, EOFError):
            fail("input ended", 2)
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except KeypegError as error:
            fail(str(error), exit_code(error))
        except UnicodeError:
            fail("the input is not UTF-8 text", 2)
        except RecursionError:
            fail("the input is nested too deeply", 2)
        except MemoryError:
            fail("out of memory", 1)
        except OSError as error:
            fail(describe_os_error(error), 1)
        except Exception as error:
            if os.environ.get("KEYPEG_DEBUG"):
                raise
            fail(f"internal error ({type(error).__name__}: {error}); please report it", 1)
        sys.exit(result if isinstance(result, int) else 0)


def describe_os_error(error: OSError) -> str:
    """One line for a failed file or system operation, naming the file."""
    reason = error.strerror or str(error) or type(error).__name__
    return f"{error.filename}: {reason}" if error.filename is not None else reason


def fail(message: str, code: int) -> None:
    """Print ``error: message`` on one line of stderr (literally: no markup, no control characters) and exit."""
    shown = Text.assemble(("error:", "bold red"), " ", visible(message.replace("\n", " "), limit=MESSAGE_LIMIT))
    err.print(shown, soft_wrap=not err.is_terminal)  # wrapped at words in a terminal, one line on a pipe
    sys.exit(code)


@click.group(cls=KeypegGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="keypeg")
def cli() -> None:
    """keypeg: Mastermind engine, solver and game.

    Codes are written one symbol per peg: the rule set's own symbols (R G B Y W K
    for classic, digits 0-9 for bulls-and-cows), letters A.. or digits 1..
    (A and 1 are the first colour); spaces and case do not matter.
    """


def parse_history(rules: Rules, scored: tuple[str, ...]) -> list[tuple[Code, Feedback]]:
    """Read ``GUESS=B,W`` arguments, saying how guesses not in the rules' own symbols were read."""
    history, readings = [], []
    for item in scored:
        guess, feedback, notation = rules.read_scored(item)
        history.append((guess, feedback))
        readings.append((item.partition("=")[0], guess, notation))
    note_readings(rules, readings)
    return history


def read_code(rules: Rules, text: str) -> Code:
    """Read a code a person typed, saying how it was read if not in the rules' own symbols."""
    code, notation = rules.read(text)
    note_readings(rules, [(text, code, notation)])
    return code


def note_readings(rules: Rules, readings: Sequence[tuple[str, Code, str]]) -> None:
    """One ``note:`` line on stderr for the codes typed in another notation than the rules' own (letters
    or digits): each as typed and as read, in the rules' own symbols."""
    other = [(text, code, notation) for text, code, notation in readings if notation != "own"]
    if not other:
        return
    first = {"letters": "A", "digits": "1"}
    notations = sorted({notation for _, _, notation in other})
    how = " and ".join(f"{n} ({first[n]} is the first colour, {rules.symbol(0)})" for n in notations)
    shown = ", ".join(f"{visible(text.strip(), limit=40)} as {code}" for text, code, _ in other)
    note(f"read in {how}: {shown}")


def note(text: str) -> None:
    """A ``note:`` line on stderr, printed as text: wrapped at words in a terminal, one line on a pipe."""
    err.print(Text(f"note: {text}"), soft_wrap=not err.is_terminal)
