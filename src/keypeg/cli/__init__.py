"""The ``keypeg`` command line: thin over the library, errors translated at the edge."""

from __future__ import annotations

from keypeg.cli import analysis, basic, daily, optimal, play, records, serve, survey  # noqa: F401  (they register their commands)
from keypeg.cli.common import cli

__all__ = ["cli", "main"]


def main() -> None:
    """Entry point of the ``keypeg`` script."""
    cli()
