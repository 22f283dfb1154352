"""The ``keypeg`` command line: thin over the library, errors translated at the edge."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

from keypeg.cli import analysis, backup, basic, daily, openings, optimal, play, ratings, records, room, serve, survey  # noqa: F401  (they register their commands)
from keypeg.cli.common import cli

__all__ = ["cli", "main"]


def main() -> NoReturn:
    """Entry point of the ``keypeg`` script."""
    try:
        cli()
    except SystemExit as end:
        if end.code is not None and not isinstance(end.code, int):
            raise
        leave(end.code or 0)
    leave(0)


def leave(status: int) -> NoReturn:
    """End the process with ``status`` as Python would, less the tearing down of every module and
    object (about 0.08 s once numba is loaded, a sixth of a heavy command on classic): the exit
    handlers run and the output is flushed first. With a thread still running, the usual exit waits
    for it."""
    if threading.active_count() > 1:
        sys.exit(status)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: Python's own exit status for a failed flush
            status = status or 120
    os._exit(status)
