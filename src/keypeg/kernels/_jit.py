"""How keypeg compiles its kernels: one body twice (on every thread, and on one), and numba's cache
loaded without building its compiler."""

from __future__ import annotations

import os
import types
from collections.abc import Callable
from typing import Any, NamedTuple

from numba import njit
from numba.core import caching
from numba.core.runtime import nrt


def _load_overload(self: caching.Cache, sig: Any, target_context: Any) -> Any:
    """numba's ``Cache.load_overload`` less its first step, ``target_context.refresh()``."""
    nrt.rtsys.initialize(target_context)
    return self._load_overload(sig, target_context)  # type: ignore[no-untyped-call]


def load_cache_cheaply() -> None:
    """Make numba load cached machine code without first building its whole compiler.

    Before it reads a cache file numba refreshes the target context: it imports and registers every
    typing and lowering registry, about 0.25 s, a third of a warm heavy command on classic. Machine
    code read back from the cache needs none of them, only the runtime (NRT) it calls; so loading
    initialises the runtime and reads the file. A compile, on a cache miss, still refreshes the
    context first (numba's ``CompilerBase`` does). Windows keeps numba's own loader, which guards
    against a spurious permission error there.
    """
    if hasattr(caching.Cache, "_load_overload") and os.name != "nt":
        caching.Cache.load_overload = _load_overload  # type: ignore[method-assign]


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
