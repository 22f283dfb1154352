"""Charts saved by the command line (matplotlib, PNG or SVG)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from keypeg.errors import KeypegError
from keypeg.storage import atomic_writer, check_writable
from keypeg.text import quoted

__all__ = ["figure", "check_chart"]


def check_chart(path: Path) -> None:
    """Refuse, before any work, a chart that could not be saved: a file not ending in .png or .svg,
    no matplotlib, or a place that takes no file."""
    if path.suffix.lower() not in (".png", ".svg"):
        raise KeypegError(f"chart file {quoted(str(path))} must end in .png or .svg")
    _pyplot()
    check_writable(path)


def _pyplot() -> Any:
    """matplotlib's pyplot, drawing to files (:class:`KeypegError` saying how to install it if missing)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise KeypegError("charts need matplotlib: pip install 'keypeg[plot]'") from None
    matplotlib.rcParams["text.parse_math"] = False  # titles and labels hold player names: text, not TeX
    return plt


@contextmanager
def figure(path: Path, size: tuple[float, float] = (8, 4.5)) -> Iterator[Any]:
    """Yield matplotlib axes; the chart is written to ``path`` (.png or .svg) when the block ends."""
    check_chart(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=size)
    try:
        yield ax
        ax.legend()
        fig.tight_layout()
        with atomic_writer(path) as handle:  # private (0600), whole or not at all
            fig.savefig(handle, format=path.suffix.lower().lstrip("."))
    finally:
        plt.close(fig)
