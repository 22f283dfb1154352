"""The ``keypeg`` command line: thin over the library, errors translated at the edge.

A command's module is imported when the command is used, not before: ``keypeg next`` loads
:mod:`keypeg.cli.analysis` and nothing of ``play``, ``room`` or ``serve`` (start-up counts, see
``benchmarks/startup.py``). Whatever lists the commands (``keypeg --help``, ``cli.commands.items()``)
imports every command module first, so every command is always there.
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
import threading
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, NoReturn

import click

from keypeg.cli.common import cli

MODULES = (
    "analysis",
    "backup",
    "basic",
    "bound",
    "daily",
    "openings",
    "optimal",
    "play",
    "ratings",
    "records",
    "room",
    "serve",
    "survey",
)
"""Every module of :mod:`keypeg.cli` that registers commands (``@cli.command``): a new one goes here."""

COMMANDS = {
    "analyze": "analysis",
    "backup": "backup",
    "bound": "bound",
    "candidates": "basic",
    "check": "basic",
    "daily": "daily",
    "export": "records",
    "hint": "play",
    "history": "records",
    "match": "play",
    "next": "analysis",
    "openings": "openings",
    "optimal": "optimal",
    "play": "play",
    "player": "records",
    "ratings": "ratings",
    "replay": "analysis",
    "restore": "backup",
    "room": "room",
    "score": "basic",
    "serve": "serve",
    "solve": "play",
    "stats": "records",
    "survey": "survey",
    "tables": "analysis",
    "top": "records",
    "variants": "basic",
    "verify": "analysis",
}
"""Each command and the module of :data:`MODULES` that registers it (a command missing here still works:
looking it up imports every module; tests/test_startup.py checks this table against the modules)."""


NUMERIC = frozenset({"analyze", "next", "optimal", "openings", "survey", "tables"})
"""The commands that always run keypeg's kernels: they load them (:func:`keypeg.cluster.load_numerics`)
as they start, once their arguments are read, not on the way in (``keypeg analyze --help`` loads none)."""


def _numeric(command: click.Command) -> click.Command:
    """``command``, loading the kernels (:func:`keypeg.cluster.load_numerics`, on the command's
    ``--threads``) once its arguments are read."""
    invoke = command.invoke

    def invoking(ctx: click.Context) -> Any:
        from keypeg.cluster import load_numerics

        load_numerics(ctx.params.get("threads"))
        return invoke(ctx)

    command.invoke = invoking  # type: ignore[method-assign]
    return command


class Commands(MutableMapping[str, click.Command]):
    """The group's commands, imported on use: looking a command up by name imports its module (by
    :data:`COMMANDS`), listing them (``keys``, ``items``, ``len``, iterating) imports every module of
    :data:`MODULES`."""

    def __init__(self, known: Mapping[str, click.Command]) -> None:
        self._known: dict[str, click.Command] = {}
        self.update(known)

    def _want(self, name: object) -> None:
        if not isinstance(name, str) or name in self._known:
            return
        if name in COMMANDS:
            importlib.import_module(f"keypeg.cli.{COMMANDS[name]}")
        if name not in self._known:
            self._every()

    def _every(self) -> None:
        for module in MODULES:
            importlib.import_module(f"keypeg.cli.{module}")

    def __getitem__(self, name: str) -> click.Command:
        self._want(name)
        return self._known[name]

    def __contains__(self, name: object) -> bool:
        self._want(name)
        return name in self._known

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._known[name] = _numeric(command) if name in NUMERIC else command

    def __delitem__(self, name: str) -> None:
        del self._known[name]

    def __iter__(self) -> Iterator[str]:
        self._every()
        return iter(dict(self._known))

    def __len__(self) -> int:
        self._every()
        return len(self._known)


cli.commands = Commands(cli.commands)

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
