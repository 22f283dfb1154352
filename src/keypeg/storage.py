"""Where keypeg keeps files between runs, and the one way it writes them.

Every file keypeg writes goes through :func:`atomic_write` (or :func:`atomic_writer` for
data streamed to a file): a temporary file in the same folder, flushed to disk, then put in
place at once, so a reader never sees half a file and a failure leaves the old one as it was.

The cache holds solved optimal trees and the checkpoint of an interrupted optimal search.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from platformdirs import user_cache_dir, user_state_dir

from keypeg.errors import KeypegError, NotFoundError, RefusedError, WriteError
from keypeg.machine import memory_budget
from keypeg.rules import Rules
from keypeg.strategy_tree import StrategyTree, load_tree, tree_to_json
from keypeg.text import quoted

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "cache_dir",
    "state_dir",
    "atomic_write",
    "atomic_writer",
    "optimal_tree_path",
    "save_optimal_tree",
    "load_optimal_tree",
    "find_optimal_tree",
    "SavedOptimum",
    "checkpoint_path",
    "save_checkpoint",
    "load_checkpoint",
    "forget_checkpoint",
    "check_cache_folder",
    "WriteError",
    "ExistingFileError",
    "FILE_MODE",
]


def cache_dir() -> Path:
    """The folder for solved strategies: ``$KEYPEG_CACHE`` if set, else the user's cache folder."""
    override = os.environ.get("KEYPEG_CACHE")
    return Path(override) if override else Path(user_cache_dir("keypeg"))


def state_dir() -> Path:
    """The folder for what a command keeps between its runs (a guest's seat in a room: ``keypeg room``):
    ``$KEYPEG_STATE`` if set, else the user's state folder."""
    override = os.environ.get("KEYPEG_STATE")
    return Path(override) if override else Path(user_state_dir("keypeg"))


# -- writing ------------------------------------------------------------------------------------


FILE_MODE = 0o600
"""Every file keypeg writes is private to its owner: exports, solved trees, checkpoints."""


class ExistingFileError(RefusedError):
    """Something at a path that keypeg was not asked to replace."""


def _refuse_existing(path: Path) -> None:
    """Refuse ``path`` if anything is there: a file, or a symbolic link (even to nothing)."""
    if os.path.lexists(path):
        raise ExistingFileError(f"{quoted(str(path))} exists")


def _cannot(path: Path, error: OSError | str) -> WriteError:
    reason = error if isinstance(error, str) else (error.strerror or str(error))
    return WriteError(f"cannot write {quoted(str(path))}: {reason}")


@contextmanager
def atomic_writer(path: Path, *, replace: bool = True) -> Iterator[BinaryIO]:
    """A binary file whose content replaces ``path`` at once when the block ends without error.

    The data go to a temporary file in the same folder, created private (mode 0600) before anything is
    written, flushed to disk, then renamed over ``path``; on any failure (a full disk, Ctrl-C) the
    temporary file is removed and ``path`` is left as it was. An :class:`OSError` becomes a
    :class:`WriteError` naming the path. Only a regular file is ever replaced: a device, a folder or a
    pipe at ``path`` is refused; without ``replace``, anything at ``path`` is (:class:`ExistingFileError`).
    """
    path = Path(path)
    try:
        if path.exists() and not path.is_file():
            raise _cannot(path, "not a regular file")
        if not replace:
            _refuse_existing(path)
    except OSError as error:
        raise _cannot(path, error) from None
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:100]}.", suffix=".tmp")
    except OSError as error:
        raise _cannot(path, error) from None
    tmp = Path(name)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if not replace:
            _refuse_existing(path)  # again: something may have come there meanwhile
        os.replace(tmp, path)
    except BaseException as error:
        with suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _cannot(path, error) from None
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Flush the folder's entry for the renamed file (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def check_writable(path: Path, *, replace: bool = True) -> None:
    """Make sure ``path`` can be written (by :func:`atomic_writer`) before work whose result goes
    there: its folder takes files, and nothing but a regular file is in the way (:class:`WriteError`);
    without ``replace``, nothing at all (:class:`ExistingFileError`)."""
    path = Path(path)
    try:
        if path.exists() and not path.is_file():
            raise _cannot(path, "not a regular file")
        if not replace:
            _refuse_existing(path)
        if len(os.fsencode(path.name)) > 255:
            raise _cannot(path, "the file name is too long")
        if not path.parent.is_dir():  # a folder named that is not there: bad input, not a failure
            raise NotFoundError(f"cannot write {quoted(str(path))}: no folder {quoted(str(path.parent))}")
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as error:
        raise _cannot(path, error) from None


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically: the whole new file or the old one, never part.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> atomic_write(folder / "a.txt", "hello")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('hello', ['a.txt'])
    """
    content = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_writer(path) as handle:
        handle.write(content)


def _cache_folder() -> Path:
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise WriteError(f"the cache folder {str(folder)!r} is not a folder (see $KEYPEG_CACHE)") from None
    except OSError as error:
        raise WriteError(f"cannot make the cache folder {str(folder)!r}: {error.strerror or error}") from None
    return folder


def check_cache_folder() -> Path:
    """Make sure the cache folder exists and takes files, before work whose result goes there
    (:class:`WriteError` saying why not)."""
    folder = _cache_folder()
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise WriteError(f"cannot write in the cache folder {str(folder)!r}: {error.strerror or error}") from None
    return folder


# -- solved optimal trees -----------------------------------------------------------------------


def _stem(rules: Rules, pool: str, secrets: str) -> str:
    return f"optimal-{rules.slug}-{pool}-{secrets}"


def optimal_tree_path(rules: Rules, pool: str, secrets: str = "all") -> Path:
    """Where the optimal tree for these rules and options is saved."""
    return cache_dir() / f"{_stem(rules, pool, secrets)}-rows{rules.rows}.json"


def save_optimal_tree(tree: StrategyTree, pool: str, secrets: str = "all") -> Path:
    """Save a solved tree where play and ``keypeg next`` look for it; returns the path."""
    _cache_folder()
    path = optimal_tree_path(tree.rules, pool, secrets)
    try:
        atomic_write(path, tree_to_json(tree))
    except KeypegError as error:
        raise KeypegError(f"cannot save the solved strategy: {error}") from None
    return path


@dataclass(frozen=True)
class SavedOptimum:
    """A solved optimal tree found on disk: the tree, its file, and whether it ships with keypeg."""

    tree: StrategyTree
    path: Path
    shipped: bool

    def for_rules(self, rules: Rules) -> StrategyTree:
        """The tree in the asked rules' symbols and rows (it is optimal for every rows it fits)."""
        conventions = {**self.tree.conventions, "rows": rules.rows}
        return StrategyTree(rules, self.tree.flat(), conventions, self.tree.stats)


def find_optimal_tree(rules: Rules, pool: str, secrets: str = "all", cache: Path | None = None) -> SavedOptimum | None:
    """A saved optimal tree that is optimal for these rules and options, with where it was found.

    Looks in the cache (``cache``, by default :func:`cache_dir`, where ``keypeg optimal``
    saves), then in the trees shipped with keypeg. A tree solved with ``R`` rows is optimal
    for ``r`` rows when it never needs more than ``r`` guesses and ``r <= R``. A tree from the cache
    is replayed against every secret first (a file anyone may edit): one that fails is passed over.
    """
    from keypeg.strategy_tree import verify_tree

    stem = _stem(rules, pool, secrets)
    folders = [
        (cache if cache is not None else cache_dir(), False),
        (Path(str(resources.files("keypeg") / "data")), True),
    ]
    for folder, shipped in folders:
        found = [*folder.glob(f"{stem}-rows*.json"), *folder.glob(f"{stem}-rows*.json.gz")] if folder.is_dir() else []
        for path in sorted(found):  # the large shipped trees are gzipped (load_tree reads both)
            try:
                solved_rows = int(path.name.removesuffix(".gz").removesuffix(".json").rsplit("-rows", 1)[1])
                tree = load_tree(path)
            except (ValueError, KeypegError):
                continue
            if tree.rules.game != rules.game or not tree.stats.max <= rules.rows <= solved_rows:
                continue
            if shipped or verify_tree(tree).ok:
                return SavedOptimum(tree, path, shipped)
    return None


def load_optimal_tree(rules: Rules, pool: str, secrets: str = "all", cache: Path | None = None) -> StrategyTree | None:
    """The tree of :func:`find_optimal_tree`, if there is one."""
    found = find_optimal_tree(rules, pool, secrets, cache)
    return None if found is None else found.tree


# -- the checkpoint of an interrupted optimal search --------------------------------------------

Memo = tuple["npt.NDArray[np.int64]", "npt.NDArray[np.int64]"]


def checkpoint_path(rules: Rules, pool: str) -> Path:
    """Where an interrupted optimal search leaves its memo (it does not depend on the secret set)."""
    return cache_dir() / f"{_stem(rules, pool, 'any')}-rows{rules.rows}.partial.npz"


def save_checkpoint(rules: Rules, pool: str, keys: npt.NDArray[np.int64], entries: npt.NDArray[np.int64]) -> Path:
    """Save the memo of an interrupted search (``keys``: N x 2, ``entries``: N x 3); returns the path."""
    import numpy as np

    _cache_folder()
    path = checkpoint_path(rules, pool)
    with atomic_writer(path) as handle:
        np.savez(handle, keys=keys, entries=entries)
    return path


def load_checkpoint(rules: Rules, pool: str) -> Memo | None:
    """The memo an interrupted search left, if any (:class:`KeypegError` if the file is damaged)."""
    import numpy as np

    path = checkpoint_path(rules, pool)
    if not path.is_file():
        return None
    unreadable = KeypegError(f"the saved search {quoted(str(path))} is unreadable; delete it to start afresh")
    budget = memory_budget()
    try:
        with zipfile.ZipFile(path) as archive:  # the arrays' sizes, before any is read
            size = sum(member.file_size for member in archive.infolist())
    except (OSError, zipfile.BadZipFile):
        raise unreadable from None
    if budget is not None and size > budget:
        raise KeypegError(
            f"the saved search {quoted(str(path))} holds {size / 2**20:,.0f} MiB, more than the memory keypeg allows "
            "itself; delete it to start afresh"
        )
    try:
        with np.load(path, allow_pickle=False) as saved:
            keys, entries = saved["keys"], saved["entries"]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        raise unreadable from None
    if keys.ndim != 2 or keys.shape[1:] != (2,) or entries.shape != (keys.shape[0], 3):
        raise unreadable
    return keys, entries


def forget_checkpoint(rules: Rules, pool: str) -> None:
    """Delete the saved memo of an interrupted search (once the search has finished)."""
    with suppress(NotADirectoryError, PermissionError):
        checkpoint_path(rules, pool).unlink(missing_ok=True)
