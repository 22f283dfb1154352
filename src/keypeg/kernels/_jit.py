"""How keypeg compiles its kernels: one body twice (on every thread, and on one), and numba's cache
loaded without building its compiler, nor compiling its runtime."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib
import os
import pickle
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import llvmlite
import numba
import numpy as np
from llvmlite import binding
from numba import njit
from numba.core import caching, config, errors
from numba.core import types as nb_types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.runtime import nrt, nrtdynmod
from numba.core.typing import typeof
from numba.np import numpy_support

from keypeg.kernels._cache import cache_folder

_nrt_python: Any = importlib.import_module("numba.core.runtime._nrt_python")

gc.freeze()
"""Every object so far (numpy's and numba's modules, hundreds of thousands of them) is left out of the
garbage collector's passes: the first full pass after importing numba took 20-50 ms of a heavy command's
start-up, and every later one would look at them all again for nothing (they live as long as the process)."""


def _runtime_file(codegen: Any) -> Path:
    """Where the machine code of numba's runtime (NRT) is kept for this numba, llvmlite, CPU and NRT
    settings, beside the kernels' cache."""
    settings = (vars(config).get("DEBUG_NRT"), vars(config).get("NRT_STATS"))
    key = repr((numba.__version__, llvmlite.__version__, codegen.magic_tuple(), settings))
    return cache_folder() / f"keypeg-nrt-{hashlib.sha1(key.encode()).hexdigest()[:16]}.nrt"


runtime_from = ""
"""How this process got numba's runtime: ``"cache"`` (read back), ``"compiled"``, or ``""`` (not yet)."""


def start_runtime(target_context: Any) -> None:
    """``nrt.rtsys.initialize`` with the runtime's machine code read from the cache when it is there.

    numba compiles its runtime's few functions (reference counts, an abort) with LLVM in every process,
    about 20 ms of CPU; machine code of the kernels read from numba's cache calls them. So the first
    process keeps the compiled runtime beside the kernels' cache (as numba keeps a kernel: object code
    and the bitcode others link to), and later ones read it back, about 3 ms. A file that cannot be read
    or written is no error: the runtime is then compiled as numba does."""
    with global_compiler_lock:
        _start_runtime(target_context)


def _start_runtime(target_context: Any) -> None:
    global runtime_from
    runtime = nrt.rtsys
    if runtime._init:
        return
    if vars(config).get("NRT_STATS"):  # as numba's initialize: statistics on before any use
        _nrt_python.memsys_enable_stats()
    for name, address in _nrt_python.c_helpers.items():
        binding.add_symbol(name if name.startswith("_") else f"NRT_{name}", address)
    codegen = target_context.codegen()
    stored = _runtime_file(codegen)
    library = None
    with contextlib.suppress(OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError):
        library = codegen.unserialize_library(pickle.loads(stored.read_bytes()))
    if library is None:
        module, library = nrtdynmod.create_nrt_module(target_context)  # type: ignore[no-untyped-call]
        library.enable_object_caching()
        library.add_ir_module(module)
        library.finalize()
        _keep(stored, pickle.dumps(library.serialize_using_object_code()))
        runtime_from = "compiled"
    else:
        runtime_from = "cache"
    runtime._library = library
    runtime._init = True


def _keep(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole (a temporary file renamed), or not at all (keypeg.storage's
    atomic_write is a layer above the kernels, and fails loudly: a cache need not)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, delete=False) as temporary:
            temporary.write(data)
        os.replace(temporary.name, path)
    except OSError:
        pass


def _load_overload(self: caching.Cache, sig: Any, target_context: Any) -> Any:
    """numba's ``Cache.load_overload`` less its first step, ``target_context.refresh()``; the runtime
    started by :func:`start_runtime`."""
    start_runtime(target_context)
    return self._load_overload(sig, target_context)  # type: ignore[no-untyped-call]


def load_cache_cheaply() -> None:
    """Make numba load cached machine code without first building its whole compiler.

    Before it reads a cache file numba refreshes the target context: it imports and registers every
    typing and lowering registry, about 0.25 s, a third of a warm heavy command on classic. Machine
    code read back from the cache needs none of them, only the runtime (NRT) it calls; so loading
    starts the runtime (:func:`start_runtime`, itself read from a cache) and reads the file. A compile,
    on a cache miss, still refreshes the context first (numba's ``CompilerBase`` does). Windows keeps
    numba's own loader, which guards against a spurious permission error there.
    """
    if hasattr(caching.Cache, "_load_overload") and os.name != "nt":
        caching.Cache.load_overload = _load_overload  # type: ignore[method-assign]
    typeof.typeof_impl.register(np.ndarray)(_typeof_ndarray)


_numba_typeof_ndarray = typeof.typeof_impl.dispatch(np.ndarray)


def _typeof_ndarray(val: np.ndarray[Any, Any], c: Any) -> Any:
    """numba's type of an array argument, without importing ``numpy.ma`` for a plain ndarray.

    numba's own asks ``isinstance(val, np.ma.MaskedArray)`` first (to refuse masked arrays), which makes
    numpy import ``numpy.ma``, about 12 ms of a heavy command's start-up (numba types the arguments of
    each kernel's first call). A plain ndarray is no masked array: it gets numba's answer the same way,
    less that question; any subclass goes to numba's."""
    if type(val) is not np.ndarray:
        return _numba_typeof_ndarray(val, c)
    try:
        dtype = numpy_support.from_dtype(val.dtype)
    except errors.NumbaNotImplementedError:
        raise errors.NumbaValueError(f"Unsupported array dtype: {val.dtype}") from None
    return nb_types.Array(dtype, val.ndim, numpy_support.map_layout(val), readonly=not val.flags.writeable)


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
