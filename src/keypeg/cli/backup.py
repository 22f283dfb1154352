"""``keypeg backup`` and ``keypeg restore``: the store to a file and back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
from rich.markup import escape

from keypeg.cli.common import FILE, cli, err, out
from keypeg.cli.options import db_option, force_option
from keypeg.text import plural, quoted, visible

__all__ = ["backup", "restore"]


def _told(about: str) -> tuple[Callable[[str], None], Callable[[], None]]:
    """A status line on stderr (a terminal's) that says what is done now; and what ends it."""
    status = err.status(about)
    if err.is_terminal:
        status.start()
    return (lambda now: status.update(escape(f"{about}: {visible(now)}"))), status.stop


def _held(rows: dict[str, int]) -> str:
    shown = (("players", "player"), ("games", "game"), ("guesses", "guess"), ("matches", "match"))
    return ", ".join(plural(rows.get(table, 0), one, table) for table, one in shown)


@cli.command()
@click.argument("file", type=FILE)
@force_option
@db_option
def backup(file: Path, force: bool, db: str | None) -> None:
    """Back the database up to FILE (readable by you only: it holds password hashes), safely while a
    server writes: a copy of a SQLite database, JSON lines of PostgreSQL's."""
    from keypeg.services.backups import ExistingFileError, back_up

    told, stop = _told("backing up")
    try:
        summary = back_up(db, file, replace=force, progress=told)
    except ExistingFileError as error:
        raise ExistingFileError(f"{error}: --force replaces it") from None
    finally:
        stop()
    out.print(f"backed up {_held(summary.rows)} (schema {summary.schema}) to {quoted(str(file))}", markup=False)


@cli.command()
@click.argument("file", type=FILE)
@force_option
@db_option
def restore(file: Path, force: bool, db: str | None) -> None:
    """Restore a backup made by 'keypeg backup' into the database, which must be empty unless --force; a
    backup of an older keypeg is brought up to date. Stop the server first: a restore while it runs loses
    the games it saves meanwhile, and it keeps its old keys (a SQLite database open elsewhere is refused).
    A file that is not a whole backup is refused; all or nothing: a failure leaves the database as it was."""
    from keypeg.services.backups import TargetNotEmptyError, restore_backup

    told, stop = _told("restoring")
    try:
        summary = restore_backup(db, file, force=force, progress=told)
    except TargetNotEmptyError as error:
        raise TargetNotEmptyError(f"{error}: restore into an empty one, or --force replaces them") from None
    finally:
        stop()
    out.print(f"restored {_held(summary.rows)} (schema {summary.schema}) from {quoted(str(file))}", markup=False)
