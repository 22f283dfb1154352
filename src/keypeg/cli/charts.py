"""Charts saved by the command line (matplotlib, PNG or SVG)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from keypeg.errors import KeypegError
from keypeg.storage import atomic_writer

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
    matplotlib.rcParams["text.parse_math"] = False  # titles and labels hold player names: text, not TeX
    fig, ax = plt.subplots(figsize=size)
    try:
        yield ax
        ax.legend()
        fig.tight_layout()
        with atomic_writer(path) as handle:  # private (0600), whole or not at all
            fig.savefig(handle, format=path.suffix.lower().lstrip("."))
    finally:
        plt.close(fig)
