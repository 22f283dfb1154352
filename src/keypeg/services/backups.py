"""Backing the store up to a file, and restoring a backup: the use cases of ``keypeg backup`` and
``keypeg restore`` (the store's work is :mod:`keypeg.store.backup`)."""

from __future__ import annotations

from pathlib import Path

from keypeg.storage import ExistingFileError, atomic_writer, check_writable
from keypeg.store.backup import (
    BackupSummary,
    DatabaseInUseError,
    NoDatabaseError,
    NotABackupError,
    Progress,
    TargetNotEmptyError,
    backed_up_store,
    restore,
    write_backup,
)

__all__ = [
    "BackupSummary",
    "DatabaseInUseError",
    "ExistingFileError",
    "NoDatabaseError",
    "NotABackupError",
    "TargetNotEmptyError",
    "back_up",
    "restore_backup",
]


def back_up(url: str | None, path: Path, *, replace: bool, progress: Progress) -> BackupSummary:
    """Back the store at ``url`` up to ``path``, written at once when whole (a temporary file renamed),
    readable by its owner only: it holds password hashes and the server's keys. Anything at ``path`` is
    refused unless ``replace`` (:class:`ExistingFileError`), and so is a database that is not there or holds
    no keypeg schema (:class:`NoDatabaseError`): none is made."""
    check_writable(path, replace=replace)  # before the database is opened
    store = backed_up_store(url)
    with atomic_writer(path, replace=replace) as out:
        return write_backup(store, out, progress)


def restore_backup(url: str | None, path: Path, *, force: bool, progress: Progress) -> BackupSummary:
    """Restore the backup at ``path`` into the store at ``url``, which must be empty unless ``force``
    (:class:`TargetNotEmptyError`); a file that is not a whole backup is refused (:class:`NotABackupError`),
    and so is a SQLite database another program has open (:class:`DatabaseInUseError`): stop the server."""
    return restore(url, path, force=force, progress=progress)
