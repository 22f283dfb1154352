"""The tree kernel's first compile, on two cores.

numba compiles one function at a time, and ``_tree.grow`` compiles each function it calls first, one
after another: about 10 s on a first run, nearly all of it ``grow``, ``decide`` and the callees of
``decide``. A callee another process has compiled is read back from numba's cache instead. So on a
first run :func:`compile_tree_kernel` starts a second process that compiles the largest callee,
``_scan_phase`` (the scan of a node's guesses, with ``_select_block``), while this one compiles the
others (``_scan``, a node's setup, and ``grow``'s own); then ``grow`` compiles with every callee at
hand. Each callee is compiled by calling it on tiny arguments of the very types ``decide`` passes
(a test checks that ``grow`` compiles none of them again).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from keypeg import machine
from keypeg.kernels import _symmetry, _tree
from keypeg.kernels._cache import tree_entry_cold
from keypeg.kernels._clock import compiling

CHILD_SECONDS = 120
"""How long the second process may take before this one stops waiting and compiles on its own."""


def _zeros(*shape: int, dtype: type = np.int64) -> np.ndarray:
    return np.zeros(shape, dtype=dtype)


def _space() -> _tree.Space:
    return _tree.Space(_zeros(4, dtype=np.uint64), _zeros(4, dtype=np.uint64), _zeros(4, 4, dtype=np.int8))


def _rule() -> _tree.NodeRule:
    values, perms = _zeros(1, dtype=np.float64), _zeros(1, 4)
    return _tree.NodeRule(4, 6, 0, False, False, False, 0, 14, True, values, 0.0, 0.0, perms)


def compile_here() -> None:
    """Compile ``_is_extreme`` first (``_scan_phase`` calls it: compiled here before the second process
    reaches it), then ``_scan`` (and its callees) and ``grow``'s own callees."""
    no = False
    kept, maps = _symmetry.fixing_symmetries(_zeros(1, 4), _zeros(1, 4), np.int64(6))
    free = _zeros(6, dtype=np.bool_)
    _symmetry._is_extreme(_zeros(4, dtype=np.int8), kept, maps, free, free, _zeros(0), _zeros(0), _zeros(6), no)
    space, none = _space(), _zeros(0)
    _tree._scan(space, _rule(), none, _zeros(4, dtype=np.bool_), none, none, _zeros(4, dtype=np.float64))
    _tree._grown(_zeros(4), np.int64(1))
    _tree._partition(space, np.int64(4), np.int64(0), none, none, _zeros(25), _zeros(25), none)


def compile_beside() -> None:
    """Compile ``_scan_phase`` (and with it ``_select_block``, ``_block_costs`` and ``_table_sum``); a
    call on no guesses."""
    words, none, flags = _zeros(1, dtype=np.uint64), _zeros(0), _zeros(6, dtype=np.bool_)
    block = (
        *(_zeros(1), (words, words), words, words, np.int64(4), np.int64(0)),
        *(_zeros(1, dtype=np.float64), 0.0, False, False),
        (_zeros(1, 1, dtype=np.uint64), words, _zeros(1, dtype=np.float64)),
        (_zeros(25), _zeros(1), 0.0, _zeros(1, dtype=np.float64)),
    )
    classes = _tree.Classes(False, _zeros(0, 4), _zeros(0, 6), flags, flags, none, none, _zeros(6))
    scan = _tree.Scan(
        space=_space(),
        rule=_rule(),
        seg=none,
        pool=none,
        fitting=_zeros(4, dtype=np.bool_),
        ps=words,
        cs=words,
        classes=classes,
        ruled_out=np.uint64(0),
        bound=0.0,
        integer=True,
        blocked=False,
        block=block,
        row=_zeros(25),
        labels=_zeros(1),
        sizes=_zeros(25),
        best_sizes=_zeros(25),
        scratch=_zeros(4, dtype=np.float64),
        first=3,
        end=3,
    )
    _tree._scan_phase(scan, np.int64(3), (0.0, np.int64(-1), np.bool_(False), np.bool_(False)), np.bool_(False))


def compile_tree_kernel() -> None:
    """Compile the tree kernel's callees, half of them in a second process when a core is idle (else
    here, no slower than ``grow`` compiling them itself). On a later run (``grow`` in numba's cache)
    it does nothing: a process's start would cost more than reading the cache."""
    if getattr(_tree.grow, "overloads", True):  # compiled here already (numba's cache may be out of reach), or no JIT
        return
    if not tree_entry_cold():  # in numba's cache from an earlier run: grow reads it back
        return
    with compiling():  # waiting for the second process is compiling too: no time budget counts it
        _compile_side_by_side()


def _compile_side_by_side() -> None:
    child = None
    if machine.idle_cores() >= 1.5:
        try:
            child = subprocess.Popen(
                [sys.executable, "-c", f"from {__name__} import compile_beside; compile_beside()"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            child = None  # grow compiles _scan_phase itself
    try:
        compile_here()
        if child is not None:
            child.wait(timeout=CHILD_SECONDS)
    except subprocess.TimeoutExpired:
        pass  # grow compiles whatever the child has not
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
