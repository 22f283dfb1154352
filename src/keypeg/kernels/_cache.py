"""What the kernels compile, by public name, and whether numba's cache holds it from an earlier run.

Outside this package the kernels are named by :class:`Kernel` (``Kernel.SCORING``, ``Kernel.TREES``,
...), never by their private modules: which modules and functions make up each is this module's
business. Reading the cache is a look at file names: nothing is compiled or loaded.
"""

from __future__ import annotations

import enum
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["Kernel", "EVERYDAY", "cache_folder", "cold", "compile_seconds", "tree_entry_cold"]


class Kernel(enum.Enum):
    """A family of compiled kernels, by what it does (the values are the public names)."""

    SCORING = "scoring"
    """Scoring codes against codes, partition counts and costs, filtering (every heavy command)."""
    SELECTION = "selection"
    """Choosing a guess by its partition: the one-step heuristics, splits."""
    SYMMETRY = "symmetry"
    """Symmetry classes of codes under the game's relabellings."""
    OPTIMAL_SEARCH = "optimal search"
    """The exact optimal search's branch and bound."""
    TREES = "trees"
    """Whole strategy trees of the one-step heuristics in one compiled call."""


_MODULES = {
    Kernel.SCORING: "_score",
    Kernel.SELECTION: "_select",
    Kernel.SYMMETRY: "_symmetry",
    Kernel.OPTIMAL_SEARCH: "_optimal",
    Kernel.TREES: "_tree",
}
_SECONDS = {Kernel.SCORING: 2, Kernel.SELECTION: 1, Kernel.SYMMETRY: 1, Kernel.OPTIMAL_SEARCH: 14, Kernel.TREES: 10}
"""About how long numba takes to compile each on a first run (measured with an empty cache: 4 s for the
scoring, selection and symmetry kernels together, 14 s more for the optimal search's; 10 s for the
tree kernel, ``analyze`` on classic)."""
_TREE_ENTRY = "_tree.grow"
"""The tree kernel's one entry point: in the cache once a whole tree has been grown (its callees may be
there without it, compiled by :func:`keypeg.kernels.compile_tree_kernel`'s second process)."""

EVERYDAY = (Kernel.SCORING, Kernel.SELECTION, Kernel.SYMMETRY)
"""The kernels every heavy command uses."""


def cache_folder() -> Path:
    """Where numba keeps the compiled kernels, chosen as numba chooses: ``$NUMBA_CACHE_DIR``, else this
    package's ``__pycache__`` if it can be written, else the user's cache folder (keyed as numba keys them)."""
    kernels = os.path.dirname(os.path.abspath(__file__))
    keyed = f"kernels_{hashlib.sha1(kernels.encode()).hexdigest()}"
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / keyed
    in_tree = Path(kernels) / "__pycache__"
    if os.access(in_tree if in_tree.exists() else kernels, os.W_OK):
        return in_tree
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba" / keyed


def _cached(prefix: str) -> bool:
    """Whether numba has an index file of ``prefix`` (a module, or ``module.function``) in its cache."""
    try:
        with os.scandir(cache_folder()) as entries:
            return any(e.name.endswith(".nbi") and e.name.startswith((f"{prefix}.", f"{prefix}-")) for e in entries)
    except OSError:
        return False


def cold(kernels: Iterable[Kernel] = EVERYDAY) -> tuple[Kernel, ...]:
    """The kernels of ``kernels`` that numba has compiled for no earlier run (nothing of them in its cache)."""
    return tuple(k for k in kernels if not _cached(_MODULES[k]))


def compile_seconds(kernels: Iterable[Kernel]) -> int:
    """About how many seconds compiling ``kernels`` takes on a first run."""
    return sum(_SECONDS[k] for k in kernels)


def tree_entry_cold() -> bool:
    """Whether the tree kernel's entry point has never been compiled (a first :meth:`CodeSpace.grow`)."""
    return not _cached(_TREE_ENTRY)
