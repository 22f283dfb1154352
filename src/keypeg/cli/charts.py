"""Charts saved by the command line (matplotlib, PNG or SVG)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from keypeg.errors import KeypegError

__all__ = ["figure"]


@contextmanager
def figure(path: Path, size: tuple[float, float] = (8, 4.5)) -> Iterator[Any]:
    """Yield matplotlib axes; the chart is written to ``path`` (.png or .svg) when the block ends."""
    if path.suffix.lower() not in (".png", ".svg"):
        raise KeypegError(f"chart file {str(path)!r} must end in .png or .svg")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise KeypegError("charts need matplotlib: pip install 'keypeg[plot]'") from None
    fig, ax = plt.subplots(figsize=size)
    try:
        yield ax
        ax.legend()
        fig.tight_layout()
        fig.savefig(path)
    except OSError as error:
        raise KeypegError(f"cannot write {str(path)!r}: {error.strerror}") from None
    finally:
        plt.close(fig)
