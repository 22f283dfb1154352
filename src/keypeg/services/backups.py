"""Backing the store up to a file, and restoring a backup: the use cases of ``keypeg backup`` and
``keypeg restore`` (the store's work is :mod:`keypeg.store.backup`)."""

from __future__ import annotations

from pathlib import Path

from keypeg.storage import atomic_writer, check_writable
from keypeg.store.backup import BackupSummary, NotABackupError, Progress, TargetNotEmptyError, restore, write_backup
from keypeg.store.database import Store

__all__ = ["BackupSummary", "NotABackupError", "TargetNotEmptyError", "back_up", "restore_backup"]


def back_up(url: str | None, path: Path, progress: Progress) -> BackupSummary:
    """Back the store at ``url`` up to ``path``, written at once when whole (a temporary file renamed),
    readable by its owner only: it holds password hashes and the server's keys."""
    check_writable(path)  # before the database is opened
    store = Store(url)
    with atomic_writer(path) as out:
        return write_backup(store, out, progress)


def restore_backup(url: str | None, path: Path, *, force: bool, progress: Progress) -> BackupSummary:
    """Restore the backup at ``path`` into the store at ``url``, which must be empty unless ``force``
    (:class:`TargetNotEmptyError`); a file that is not a backup is refused (:class:`NotABackupError`)."""
    return restore(url, path, force=force, progress=progress)
