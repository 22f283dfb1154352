"""One kernel body, compiled twice: on every thread, and on one."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, NamedTuple

from numba import njit


class Twins(NamedTuple):
    """The parallel and the serial compilation of one body."""

    parallel: Any
    serial: Any

    def on(self, parallel: bool) -> Any:
        """The parallel one if ``parallel``, else the serial one."""
        return self.parallel if parallel else self.serial


def twins(body: Callable[..., Any]) -> Twins:
    """``body`` (its outer loop a ``prange``) compiled with ``parallel=True`` and without: in the
    serial one ``prange`` is ``range`` and no thread starts, which small jobs want.

    numba's on-disk cache knows a function by its file, qualified name and bytecode, not by its
    compile options, so the serial copy gets a name of its own (``<name>_serial``) and with it
    cache files of its own; else one process would load the other's machine code.
    """
    name = body.__name__ + "_serial"
    serial = types.FunctionType(body.__code__, body.__globals__, name, body.__defaults__, body.__closure__)
    serial.__qualname__ = body.__qualname__ + "_serial"
    serial.__doc__ = body.__doc__
    serial.__module__ = body.__module__
    return Twins(njit(parallel=True, cache=True)(body), njit(cache=True)(serial))
