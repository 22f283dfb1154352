"""How long this process has spent compiling kernels, so that no time budget counts it.

numba announces each compile (``"numba:compile"``, on whatever thread compiles); :func:`compiling`
marks other compile work (the tree kernel's first compile, which waits on a second process). The
clock counts wall time while any of them runs, once however many run at once or inside each other.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from numba.core import event

__all__ = ["compiling", "compiling_seconds", "listen"]

_lock = threading.Lock()
_running = 0
_since = 0.0
_spent = 0.0


def _enter() -> None:
    global _running, _since
    with _lock:
        if _running == 0:
            _since = time.monotonic()
        _running += 1


def _leave() -> None:
    global _running, _spent
    with _lock:
        _running -= 1
        if _running == 0:
            _spent += time.monotonic() - _since


@contextmanager
def compiling() -> Iterator[None]:
    """Count the time inside as compiling."""
    _enter()
    try:
        yield
    finally:
        _leave()


def compiling_seconds() -> float:
    """Seconds this process has spent compiling kernels so far (a compile under way included)."""
    with _lock:
        return _spent + (time.monotonic() - _since if _running else 0.0)


class _Compiles(event.Listener):
    def on_start(self, event: Any) -> None:
        _enter()

    def on_end(self, event: Any) -> None:
        _leave()


_listening = False


def listen() -> None:
    """Count numba's compiles from now on (once per process)."""
    global _listening
    with _lock:
        if _listening:
            return
        _listening = True
    event.register("numba:compile", _Compiles())  # type: ignore[no-untyped-call]
