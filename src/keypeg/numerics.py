"""Loading keypeg's numerical side (numpy, numba and the kernels) in one go, as a heavy command starts.

The command line imports nothing numerical on the way in (``keypeg --help`` and the light commands
stay light); a command that always runs the kernels calls :func:`load_numerics` once its arguments
are read, before its work.
"""

from __future__ import annotations

import gc
import sys

__all__ = ["load_numerics"]


def load_numerics(threads: int | None = None) -> None:
    """Import numpy, numba and keypeg's kernels with the garbage collector paused, then leave what they
    made out of its passes; numba's threads are set from ``threads`` first (``None``: every core this
    process may use), as numba reads them when it loads (:func:`keypeg.cluster.use_threads`).

    They make hundreds of thousands of objects that live as long as the process: a full pass of the
    collector during their import (it came once in each heavy command, after the CLI's own imports)
    looked at them all, 10-20 ms of a heavy command's start-up, and every later full pass would again.
    Nothing is done if numba is loaded already."""
    if "numba" in sys.modules:
        return
    from keypeg.cluster import use_threads

    use_threads(threads)
    enabled = gc.isenabled()
    gc.disable()
    try:
        import keypeg.kernels  # noqa: F401  (numpy and numba with it)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
